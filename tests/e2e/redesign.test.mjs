// A chat site redesigned its page: classes, ids, test ids and data attributes renamed,
// custom elements retagged, the composer and the conversation nested differently (the
// `/redesign` fixtures, tests/fixtures/build.mjs). The shipped config's selectors for the
// send control and the answers find nothing there; the extension finds them by the page's
// structure, runs the call once, types the result and sends it, in Chromium and Firefox.
// A page whose send control cannot be found says so in the float, and sends with Enter.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, floatFind, floatWait, messagesBeforeMarker } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

// site -> [host, the chat input on the redesigned page (its editor library's own marks)]
const SITES = {
  deepseek: ['chat.deepseek.com', 'textarea'],
  chatgpt: ['chatgpt.com', '.ProseMirror'],
  gemini: ['gemini.google.com', '.ql-editor'],
  perplexity: ['www.perplexity.ai', '[data-lexical-editor="true"]'],
  kimi: ['www.kimi.com', '[contenteditable="true"]'],
};
const config = (site) => JSON.parse(fs.readFileSync(path.join(ROOT, 'extension/sites', `${site}.json`), 'utf8'));

/** How many elements each selector chain of the site's config finds on the page now. */
const configHits = (w, site) => w.session.exec(`
  const count = (chain) => chain.reduce((n, sel) => { try { return n + document.querySelectorAll(sel).length; } catch { return n; } }, 0);
  return { send: count(arguments[0].send), answers: count(arguments[0].assistantMessage) };`, config(site).selectors);

/** The float's health line, waiting for it to hold `want`. */
async function healthText(w, want) {
  return waitFor(async () => {
    const [box] = await floatFind(w, '.health');
    if (!box) return null;
    // How each part was found sits in a closed details view: its text, shown or not.
    const text = await w.session.cmd('GET', `/element/${Object.values(box)[0]}/property/textContent`);
    return want.test(text) ? text : null;
  }, { what: `the float's health line to match ${want}` });
}

for (const browser of BROWSERS) {
  describe(`redesigned pages in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    for (const [site, [host, inputCss]] of Object.entries(SITES)) {
      test(`${site}: found by structure, the call runs once, its result is typed and sent`, async () => {
        await openChat(w, host, '/redesign/');
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, host, '/redesign/');
        const answer = await w.session.exec(
          'return window.fixtureAI.toolCall(arguments[0], "literal", "Let me check.")',
          { tool_name: 'echo', arguments: { text: `redesigned ${site}` } });
        await userSays(w, 'Please echo something.', [answer, 'Done, thanks.'], inputCss);
        const msgs = await userMessages(w, 2);
        assert.match(msgs[1], /<tool_result>/);
        assert.match(msgs[1], new RegExp(`redesigned ${site}`));
        await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
        assert.equal((await messagesBeforeMarker(w, inputCss)).length, 2, 'the call ran twice');
        // The shipped config finds no answer here, so they were found by structure; the float
        // says how each part was found.
        const hits = await configHits(w, site);
        assert.equal(hits.answers, 0, 'the config still finds the answers: not a redesign');
        const health = await healthText(w, /AI answers: found from the page's layout/);
        if (hits.send === 0) assert.match(health, /Send button: found from the page's layout/);
      });
    }

    test('a page whose send control cannot be found says so, and sends with Enter', async () => {
      const [host, inputCss] = SITES.kimi;
      await openChat(w, host, '/redesign/?send=plain');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, host, '/redesign/?send=plain');
      // Before anything is typed no send control is due; with text in the input it is.
      const editor = await w.session.find(inputCss);
      await w.session.click(editor);
      await w.session.type(editor, 'x');
      const missing = await floatWait(w, '.missing[data-part="send"]', 'note that the send button is missing');
      await w.session.type(editor, '\uE003'); // Backspace: the input is empty again
      const words = await w.session.cmd('GET', `/element/${Object.values(missing)[0]}/text`);
      assert.match(words, /cannot find the send button/);
      assert.equal((await configHits(w, 'kimi')).send, 0);
      const answer = await w.session.exec(
        'return window.fixtureAI.toolCall(arguments[0], "literal", "Checking.")', { tool_name: 'echo', arguments: { text: 'by enter' } });
      await userSays(w, 'Echo please.', [answer, 'Thanks.'], inputCss);
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /by enter/);
    });
  });
}
