// A large result end to end: the real bridge with small paging limits, a real MCP server
// (the bridge's own demo server, run as a stdio process, reading a generated file), the
// fixture chat page playing the AI. The AI reads the result page by page by copying the
// exact `read_result` call each report ends with, until the report says it is the end.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatHtml, messagesBeforeMarker } from './support/chat.mjs';

// 130 numbered lines of 41 characters: 5330 characters, three pages of at most 2000.
const LINES = Array.from({ length: 130 }, (_, i) => `L${String(i + 1).padStart(4, '0')} the quick brown fox jumps over it`);
const TEXT = `${LINES.join('\n')}\n`;
const BRIDGE_ARGS = ['--large-result-threshold', '1000', '--result-page-size', '2000'];

/** The `<tool_code>` block a report ends with, parsed; null when there is none. */
function readOn(report) {
  const m = /<tool_code>\s*([\s\S]*?)\s*<\/tool_code>/.exec(report);
  return m ? JSON.parse(m[1]) : null;
}

for (const browser of BROWSERS) {
  describe(`large result in ${browser}`, () => {
    let w;
    let root;
    before(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-large-'));
      fs.writeFileSync(path.join(root, 'big.txt'), TEXT);
      const bridgeConfig = { mcpServers: { files: {
        command: path.join(ROOT, 'target/release/mcp-bridge'), args: ['demo-server', '--root', root],
      } } };
      // The user trusts their file server, so its read-only tools run unasked.
      w = await startWorld(browser, { bridgeArgs: BRIDGE_ARGS, bridgeConfig, settings: { trustedServers: ['files'] } });
    });
    after(async () => {
      await w?.close();
      if (root) fs.rmSync(root, { recursive: true, force: true });
    });

    test('the AI reads a large file page by page with the read_result call each report gives', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      const copy = await w.session.exec('return window.fixtureAI.COPY_CALL');
      await userSays(w, 'Please read big.txt.', [
        `Reading it.\n\n${call('read_text_file', { path: 'big.txt' }, 'files')}`,
        `There is more; reading on.\n\n${copy}`,
        `Still more.\n\n${copy}`,
        'That was all of it.',
      ]);
      const msgs = await userMessages(w, 4, 60000);
      const [first, second, third] = msgs.slice(1, 4);

      // Page 1: the start of the file, uncut, how much is left, and the exact call to read on.
      assert.match(first, /<tool_result>/);
      assert.match(first, new RegExp(`characters 1–\\d+ of ${TEXT.length}; \\d+ more`));
      const call1 = readOn(first);
      assert.equal(call1.tool_name, 'read_result');
      assert.ok(call1.arguments.result_id, first);
      assert.ok(call1.arguments.offset > 0 && call1.arguments.offset <= 2000, first);
      assert.ok(!first.includes('truncated'), 'the page was cut again');

      // Page 2 was read with the call copied from page 1; it gives the next one.
      const call2 = readOn(second);
      assert.equal(call2.tool_name, 'read_result');
      assert.equal(call2.arguments.result_id, call1.arguments.result_id);
      assert.ok(call2.arguments.offset > call1.arguments.offset, second);
      assert.match(second, new RegExp(`characters ${call1.arguments.offset + 1}–${call2.arguments.offset} of ${TEXT.length}`));

      // Page 3 is the end and says so; no call to read on.
      assert.match(third, new RegExp(`This is the last part: characters ${call2.arguments.offset + 1}–${TEXT.length} of ${TEXT.length}`));
      assert.equal(readOn(third), null, third);

      // Together the three reports hold every line of the file exactly once.
      for (const line of LINES) {
        const seen = [first, second, third].reduce((n, r) => n + r.split(line).length - 1, 0);
        assert.equal(seen, 1, `${line} appears ${seen} times`);
      }

      // The AI's answers: its calls ran once each, and it stopped after the last page.
      await w.session.waitForScript('return window.fixtureAI.answers().length >= 4', { what: 'the last answer' });
      if (browser === 'chromium') {
        // The float is in a closed shadow root; only the DevTools protocol can read it.
        const float = await floatHtml(w);
        assert.match(float, new RegExp(`characters ${call2.arguments.offset + 1}–${TEXT.length} of ${TEXT.length}`));
      }
      assert.equal((await messagesBeforeMarker(w)).length, 4, 'a call ran twice');
    });
  });
}
