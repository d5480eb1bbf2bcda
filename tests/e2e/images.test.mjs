// Images in a tool's result end to end: the real bridge running
// @modelcontextprotocol/server-everything (its get-tiny-image tool answers text, a PNG,
// text). The report names the image; the float shows it with a save link and, on sites
// whose input takes pasted images, attaches it to the chat input with one click, which the
// fixture page's own paste handler (ProseMirror, Lexical, Quill, React textarea,
// contenteditable) receives as a file.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { EDITOR_PAGES } from './support/fixtures.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatHtml, clickFloatButton } from './support/chat.mjs';
import { sleep } from './support/webdriver.mjs';
import { MCP_TINY_IMAGE } from '../../node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js';

const PNG = Buffer.from(MCP_TINY_IMAGE, 'base64');
const SUM = PNG.reduce((a, b) => (a + b) % 65521, 0);

const SITES = EDITOR_PAGES;

for (const browser of BROWSERS) {
  describe(`images in ${browser}`, () => {
    let w;
    before(async () => {
      const bridgeConfig = { mcpServers: { everything: {
        command: path.join(ROOT, 'node_modules/.bin/mcp-server-everything'), args: ['stdio'],
      } } };
      w = await startWorld(browser, { bridgeConfig });
    });
    after(async () => { await w?.close(); });

    for (const [name, host, page] of SITES) {
      test(`${name}: the report names the image, the float shows it and attaches it to the input`, async () => {
        await openChat(w, host, page);
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, host, page);
        await userSays(w, 'Show me the logo.', [
          `Here it comes.\n\n${call('get-tiny-image', {}, 'everything')}`,
          'That is the logo.',
        ]);
        const msgs = await userMessages(w, 2);
        assert.match(msgs[1], new RegExp(`\\[image: image/png, \\d+ KB\\]`));
        assert.ok(!msgs[1].includes(MCP_TINY_IMAGE.slice(0, 64)), 'image bytes reached the chat as text');
        // The float is redrawn once the report has left.
        await sleep(1000);
        if (browser === 'chromium') {
          // The float is in a closed shadow root; only the DevTools protocol can read it.
          const float = await floatHtml(w);
          assert.match(float, /<img [^>]*src="blob:/);
          assert.match(float, /<a [^>]*download="mcp-image-1\.png"/);
          assert.match(float, /data-action="floatAttach"/);
        }
        assert.deepEqual(await w.session.exec('return window.fixtureAI.pastedFiles()'), []);
        await clickFloatButton(w, 0);
        const files = await w.session.waitForScript(
          'const f = window.fixtureAI.pastedFiles(); return f.length ? f : null', { what: 'the pasted image' });
        assert.deepEqual(files, [{ name: 'mcp-image-1.png', type: 'image/png', size: PNG.length, sum: SUM }]);
        if (browser === 'chromium') assert.match(await floatHtml(w), /Attached to the chat input\./);
        // The chat input holds no text from it, and nothing more was sent.
        await sleep(500);
        assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 2);
      });
    }
  });
}
