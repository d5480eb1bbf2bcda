// The content script runs on chat sites only, keeps one MutationObserver and one timer however
// often the site replaces its message area, and keeps reporting from the new area. Seen and
// counted in the content script's own world by support/hooks.js (a copy of the built extension
// that loads it first; the shipped build leaves no mark a page could read).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call } from './support/chat.mjs';
import { instrumentedExtension } from './support/instrumented.mjs';

const SWAPS = 4;

for (const browser of BROWSERS) {
  describe(`content script observers in ${browser}`, () => {
    let w;
    let ext;
    before(async () => {
      ext = instrumentedExtension(browser);
      w = await startWorld(browser, { extension: ext.dir });
    });
    after(async () => {
      await w?.close();
      ext?.remove();
    });

    test('the content script never runs on pages that are not chat sites', async () => {
      // support/hooks.js runs wherever the content script is injected and marks <html>
      // at once; the chat page shows the mark, the same page on another host must not.
      await openChat(w, 'chat.deepseek.com');
      assert.notEqual(await w.session.exec('return document.documentElement.dataset.mcpTestObservers ?? null'), null);
      await w.session.navigate(`http://127.0.0.1:${w.fixtures.port}/deepseek/`);
      await w.session.waitForScript('return !!window.fixtureAI', { what: 'the fixture page' });
      // The probe is injected when the content script would be: once it is there, the
      // content script's moment has passed on this page.
      await w.session.waitForScript('return document.documentElement.dataset.mcpTestProbe === "injected"',
        { what: 'the probe content script' });
      assert.equal(await w.session.exec('return document.documentElement.dataset.mcpTestObservers ?? null'), null);
    });

    test(`after ${SWAPS} replaced message areas: one observer, one timer, and calls still run`, async () => {
      await openChat(w, 'www.kimi.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com');
      const counts = () => w.session.exec(
        'const d = document.documentElement.dataset; return { observers: Number(d.mcpTestObservers), intervals: Number(d.mcpTestIntervals) }');
      assert.deepEqual(await counts(), { observers: 1, intervals: 1 });
      // After each swap an answer rendered in the new area calls a tool: its report in the
      // chat proves the content script followed that area, which is when a leaked observer
      // or timer would have been left behind.
      for (let i = 0; i < SWAPS; i++) {
        await w.session.exec('window.fixtureAI.swapMessageArea()');
        await userSays(w, `Echo ${i}.`, [`Sure.\n${call('echo', { text: `from area ${i}` })}`, 'Done.']);
        const msgs = await userMessages(w, 2 * (i + 1));
        assert.match(msgs[2 * i + 1], new RegExp(`from area ${i}`));
      }
      const after = await counts();
      console.log(`${browser}: after ${SWAPS} swaps`, after);
      assert.deepEqual(after, { observers: 1, intervals: 1 });
    });
  });
}
