// The toolbar popup shows the chat tab's health record: how each part of the page was found.
// The real popup is opened over the chat tab (`action.openPopup()` from an extension page in
// another tab of its window) and read through its own window (`extension.getViews`), as in
// popup.test.mjs. The chat tab is Kimi's redesigned page whose send control is a bare <div>:
// its input is the config's, its send control is found by nothing (and not due while the
// input is empty).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat } from './support/chat.mjs';

for (const browser of BROWSERS) {
  describe(`the popup's health record in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('lists each part of the chat page and how it was found', async () => {
      await openChat(w, 'www.kimi.com', '/redesign/?send=plain');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com', '/redesign/?send=plain');
      const { handle } = await w.session.cmd('POST', '/window/new', { type: 'tab' });
      await w.session.switchTo(handle);
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      await w.session.waitForScript("return document.readyState === 'complete' && !!chrome.tabs", { what: 'the options page' });
      const parts = await w.session.execAsync(`const done = arguments[0];
        (async () => {
          const own = await chrome.tabs.getCurrent();
          const [chat] = (await chrome.tabs.query({})).filter((t) => t.id !== own.id);
          await chrome.tabs.update(chat.id, { active: true });
          await chrome.action.openPopup();
          for (let i = 0; i < 100; i++) {
            const view = chrome.extension.getViews({ type: 'popup' }).find((v) => v.document.body?.dataset.ready === 'true');
            if (view && !view.document.getElementById('health').hidden) {
              const items = [...view.document.querySelectorAll('#parts li')].map((li) => [li.dataset.part, li.dataset.found, li.textContent]);
              view.close();
              return items;
            }
            await new Promise((r) => setTimeout(r, 100));
          }
          return { error: 'no health record in the popup' };
        })().then(done, (e) => done({ error: String(e) }));`);
      assert.equal(parts.error, undefined, parts.error);
      const found = Object.fromEntries(parts.map(([part, how]) => [part, how]));
      // Nothing is typed yet: the bare send control is not due, so it is not missing.
      assert.deepEqual(found, { input: 'config', send: 'pending', answers: 'pending', generating: 'structure' });
      assert.match(parts.find(([p]) => p === 'send')[2], /Send button: not shown yet/);
    });
  });
}
