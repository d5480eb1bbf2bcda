// The toolbar popup's "Insert instructions", end to end in real Chromium and real Firefox with
// the real bridge: the popup page, opened in a window of its own and pointed at the chat tab
// (`popup.html?tab=<id>`; as a toolbar popup it takes the active tab of its window), asks the
// chat tab's content script, which asks the core, which types the instructions into the
// page's editor.
//   flock /tmp/e2e.lock node --test --test-concurrency=1 tests/e2e/popup.test.mjs
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat } from './support/chat.mjs';
import { sleep, waitFor } from './support/webdriver.mjs';

/** Opens the popup page in the current window, for `tab` (an id, or none), and waits for its status. */
async function openPopup(w, tab) {
  await w.session.navigate(`${w.extensionBase}popup/popup.html${tab ? `?tab=${tab}` : ''}`);
  await w.session.waitForScript("return document.body.dataset.ready === 'true'", { what: 'the popup', timeoutMs: 30000 });
}

for (const browser of BROWSERS) {
  describe(`the toolbar popup in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('"Insert instructions" types the instructions into the chat tab\'s editor, and sends nothing', async () => {
      await openChat(w, 'www.kimi.com', '/?popup');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com', '/?popup');
      const chat = await w.session.cmd('GET', '/window');
      // The popup's own window, as a toolbar popup has.
      const { handle } = await w.session.cmd('POST', '/window/new', { type: 'window' });
      await w.session.switchTo(handle);
      await openPopup(w);
      // The chat tab is the one tab besides this one (without the "tabs" permission the
      // extension does not see tabs' addresses).
      const tabs = await w.session.execAsync(`const done = arguments[0];
        Promise.all([chrome.tabs.query({}), chrome.tabs.getCurrent()])
          .then(([all, own]) => done(all.map((t) => t.id).filter((id) => id !== own.id)));`);
      assert.equal(tabs.length, 1, `tabs besides the popup: ${tabs}`);
      const [tab] = tabs;
      await openPopup(w, tab);
      assert.equal(await w.session.exec("return document.getElementById('state').dataset.status"), 'connected');
      await w.session.click(await w.session.find('#insert'));
      // Done, the popup closes itself; a popup page WebDriver opened may stay open.
      await sleep(500);
      if ((await w.session.windowHandles()).includes(handle)) {
        assert.equal(await w.session.exec("return document.getElementById('insert-result').textContent"), '');
        await w.session.cmd('DELETE', '/window');
      }
      await w.session.switchTo(chat);
      const typed = await w.session.waitForScript(
        `const v = document.querySelector('.chat-input-editor').innerText;
         return v.includes('list_tools_in_service') ? v : null`, { what: 'the instructions in the editor' });
      assert.match(typed, /<tool_code>/);
      assert.match(typed, /demo/);
      await sleep(500);
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 0, 'the instructions were sent');
    });

    test('for a tab that is not a chat page, the popup says so', async () => {
      const chat = await w.session.cmd('GET', '/window');
      const { handle } = await w.session.cmd('POST', '/window/new', { type: 'window' });
      await w.session.switchTo(handle);
      await openPopup(w);
      // Its own tab: an extension page, where no content script runs.
      const own = await w.session.execAsync(`const done = arguments[0];
        chrome.tabs.getCurrent().then((t) => done(t.id));`);
      await openPopup(w, own);
      await w.session.click(await w.session.find('#insert'));
      const said = await waitFor(() => w.session.exec("return document.getElementById('insert-result').textContent"),
        { what: 'the popup to answer' });
      assert.equal(said, 'The active tab is not a chat page MCP Bridge works on.');
      await w.session.cmd('DELETE', '/window');
      await w.session.switchTo(chat);
    });
  });
}
