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
import { sleep } from './support/webdriver.mjs';

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
      const shown = { status: view.document.getElementById('state').dataset.status, disabled: button.disabled };
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
    before(async () => {
      w = await startWorld(browser);
      await openChat(w, 'www.kimi.com', '/?popup');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com', '/?popup');
      chat = await w.session.cmd('GET', '/window');
      // An extension page in a second tab of the chat's window opens the popup.
      const { handle } = await w.session.cmd('POST', '/window/new', { type: 'tab' });
      await w.session.switchTo(handle);
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      await w.session.waitForScript("return document.readyState === 'complete' && !!chrome.tabs", { what: 'the options page' });
      // The chat tab is the one tab besides this one (without the "tabs" permission the
      // extension does not see tabs' addresses).
      const others = await w.session.execAsync(`const done = arguments[0];
        Promise.all([chrome.tabs.query({}), chrome.tabs.getCurrent()])
          .then(([all, own]) => done(all.map((t) => t.id).filter((id) => id !== own.id)));`);
      assert.equal(others.length, 1, `tabs besides the options page: ${others}`);
      [chatTab] = others;
    });
    after(async () => { await w?.close(); });

    test('over an extension page, the popup says it is not a chat page', async () => {
      const shown = await pressInsert(w, null);
      assert.equal(shown.error, undefined, shown.error);
      assert.equal(shown.status, 'connected');
      assert.equal(shown.closed, false);
      assert.equal(shown.result, 'The active tab is not a chat page MCP Bridge works on.');
    });

    test('over the chat tab, "Insert instructions" types them into its editor, sends nothing, and the popup closes', async () => {
      const shown = await pressInsert(w, chatTab);
      assert.equal(shown.error, undefined, shown.error);
      assert.deepEqual(shown, { status: 'connected', disabled: false, closed: true, result: null });
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
