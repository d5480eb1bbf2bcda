// The toolbar popup's "Insert instructions", end to end in real Chromium and real Firefox with
// the real bridge. The real popup is opened (`action.openPopup()`, from an extension page in a
// background tab of the chat's window) over the active chat tab; its button is pressed through
// the popup's own window (`extension.getViews`, the one way to reach a toolbar popup's page);
// it asks the active tab's content script, which asks the core, which types the instructions
// into the page's editor.
//   flock /tmp/e2e.lock node --test --test-concurrency=1 tests/e2e/popup.test.mjs
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat } from './support/chat.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { sleep } from './support/webdriver.mjs';

/** A chat site with no site config. */
const NO_CONFIG = 'chat.example.org';

/**
 * A copy of the built extension that may read its tabs' addresses ("tabs"), as the toolbar
 * click's `activeTab` grant lets the real popup read the active tab's (a test cannot click
 * the toolbar, and `action.openPopup()` grants nothing).
 */
function extensionSeeing(browser) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-popup-${browser}-`));
  fs.cpSync(path.join(ROOT, 'dist', browser === 'chromium' ? 'chrome' : 'firefox'), dir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  manifest.permissions.push('tabs');
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

/**
 * From an extension page in another tab of the same window: makes `active` (a tab id, or
 * the extension page's own tab) the window's active tab, opens the toolbar popup over it,
 * waits for its status, presses "Insert instructions" and waits `settleMs`. Returns what
 * the popup showed: `{status, disabled, result, closed}` (`closed`: it closed itself; if it
 * did not, it is closed after reading its `result`).
 */
async function pressInsert(w, active, settleMs = 1500) {
  return w.session.execAsync(`const [active, settleMs, done] = arguments;
    (async () => {
      const own = await chrome.tabs.getCurrent();
      await chrome.tabs.update(active ?? own.id, { active: true });
      await chrome.action.openPopup();
      let view;
      for (let i = 0; i < 100 && !view; i++) {
        view = chrome.extension.getViews({ type: 'popup' }).find((v) => v.document.body?.dataset.ready === 'true');
        if (!view) await new Promise((r) => setTimeout(r, 100));
      }
      if (!view) return { error: 'the popup did not open' };
      const button = view.document.getElementById('insert');
      const shown = { status: view.document.getElementById('state').dataset.status, disabled: button.disabled, offered: !button.hidden };
      button.click();
      await new Promise((r) => setTimeout(r, settleMs));
      const still = chrome.extension.getViews({ type: 'popup' }).includes(view);
      const result = still ? view.document.getElementById('insert-result').textContent : null;
      if (still) view.close(); // as a click outside it would
      return { ...shown, closed: !still, result };
    })().then(done, (e) => done({ error: String(e) }));`, active, settleMs);
}

for (const browser of BROWSERS) {
  describe(`the toolbar popup in ${browser}`, () => {
    let w;
    let chat;
    let chatTab;
    let dir;
    before(async () => {
      dir = extensionSeeing(browser);
      w = await startWorld(browser, { extension: dir });
      await openChat(w, 'www.kimi.com', '/?popup');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com', '/?popup');
      chat = await w.session.cmd('GET', '/window');
      // An extension page in a second tab of the chat's window opens the popup.
      const { handle } = await w.session.cmd('POST', '/window/new', { type: 'tab' });
      await w.session.switchTo(handle);
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      await w.session.waitForScript("return document.readyState === 'complete' && !!chrome.tabs", { what: 'the options page' });
      // The chat tab is the one tab besides this one.
      const others = await w.session.execAsync(`const done = arguments[0];
        Promise.all([chrome.tabs.query({}), chrome.tabs.getCurrent()])
          .then(([all, own]) => done(all.map((t) => t.id).filter((id) => id !== own.id)));`);
      assert.equal(others.length, 1, `tabs besides the options page: ${others}`);
      [chatTab] = others;
    });
    after(async () => {
      await w?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('over an extension page, the popup says it is not a chat page', async () => {
      const shown = await pressInsert(w, null);
      assert.equal(shown.error, undefined, shown.error);
      assert.equal(shown.status, 'connected');
      assert.equal(shown.offered, false, 'Insert instructions is offered over an extension page');
      assert.equal(shown.closed, false);
      assert.equal(shown.result, 'The active tab is not a chat page MCP Bridge works on.');
    });

    test('over the chat tab, "Insert instructions" types them into its editor, sends nothing, and the popup closes', async () => {
      const shown = await pressInsert(w, chatTab);
      assert.equal(shown.error, undefined, shown.error);
      assert.deepEqual(shown, { status: 'connected', disabled: false, offered: true, closed: true, result: null });
      await w.session.switchTo(chat);
      const typed = await w.session.waitForScript(
        `const v = document.querySelector('.chat-input-editor').innerText;
         return v.includes('list_tools_in_service') ? v : null`, { what: 'the instructions in the editor' });
      assert.match(typed, /<tool_code>/);
      assert.match(typed, /demo/);
      await sleep(500);
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 0, 'the instructions were sent');
    });
  });
}

/**
 * Opens the popup over the tab at `host` (from an extension page in another tab of its
 * window) and reads its buttons: `{shown: [ids], primary: [ids of the shown main ones]}`.
 */
async function popupButtons(w, host) {
  // The fixture server answers only for sites with a config: elsewhere the tab shows the
  // browser's error page, at the site's address all the same.
  if (host === NO_CONFIG) await w.session.navigate(`https://${host}/`).catch(() => {});
  else await openChat(w, host);
  const chat = await w.session.cmd('GET', '/window');
  const { handle } = await w.session.cmd('POST', '/window/new', { type: 'tab' });
  await w.session.switchTo(handle);
  await w.session.navigate(`${w.extensionBase}options/options.html`);
  await w.session.waitForScript("return document.readyState === 'complete' && !!chrome.tabs", { what: 'the options page' });
  const got = await w.session.execAsync(`const done = arguments[0];
    (async () => {
      const own = await chrome.tabs.getCurrent();
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.id !== own.id);
      await chrome.tabs.update(tab.id, { active: true });
      await chrome.action.openPopup();
      let view;
      for (let i = 0; i < 100 && !view; i++) {
        view = chrome.extension.getViews({ type: 'popup' }).find((v) => v.document.body?.dataset.ready === 'true');
        if (!view) await new Promise((r) => setTimeout(r, 100));
      }
      if (!view) return { error: 'the popup did not open' };
      const buttons = [...view.document.querySelectorAll('.buttons button')].filter((b) => !b.hidden);
      const read = { shown: buttons.map((b) => b.id), primary: buttons.filter((b) => b.classList.contains('primary')).map((b) => b.id),
        site: view.document.getElementById('site')?.textContent ?? '' };
      view.close();
      return read;
    })().then(done, (e) => done({ error: String(e) }));`);
  await w.session.cmd('DELETE', '/window');
  await w.session.switchTo(chat);
  return got;
}

for (const browser of BROWSERS) {
  describe(`the popup's main button in ${browser}`, () => {
    let w;
    let dir;
    before(async () => {
      dir = extensionSeeing(browser);
      w = await startWorld(browser, { extension: dir });
    });
    after(async () => {
      await w?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('on a shipped site it is on already: Insert instructions is the one main button, Turn on is not offered', async () => {
      const got = await popupButtons(w, 'chat.deepseek.com');
      assert.equal(got.error, undefined, got.error);
      assert.deepEqual(got.primary, ['insert'], JSON.stringify(got));
      assert.equal(got.shown.includes('enable'), false, JSON.stringify(got));
      assert.equal(got.site, 'MCP Bridge is on for DeepSeek.');
    });

    test('on a site with no config, Turn on for this site is the one main button', async () => {
      const got = await popupButtons(w, NO_CONFIG);
      assert.equal(got.error, undefined, got.error);
      assert.deepEqual(got.primary, ['enable'], JSON.stringify(got));
      assert.deepEqual(got.shown, ['enable', 'settings'], JSON.stringify(got));
    });
  });
}
