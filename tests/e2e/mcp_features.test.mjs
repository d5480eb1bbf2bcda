// MCP beyond tools in the chat, end to end: the real bridge running the real
// `@modelcontextprotocol/server-everything`, the fixture chat page playing the AI. A long
// operation shows its server's progress in the float; a server's question shows as a form in
// the float, the user's answer reaches the server, and the question never reaches the AI.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatWait, floatFind, elementId, clickAt } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const EVERYTHING = path.join(ROOT, 'node_modules/.bin/mcp-server-everything');

/** The text of a float element. */
async function textOf(w, ref) {
  return w.session.cmd('GET', `/element/${elementId(ref)}/text`);
}

for (const browser of BROWSERS) {
  describe(`MCP progress and questions in ${browser}`, () => {
    let w;
    before(async () => {
      const bridgeConfig = { mcpServers: { everything: { command: EVERYTHING, args: ['stdio'] } } };
      w = await startWorld(browser, {
        bridgeConfig,
        settings: { toolPolicies: { 'everything:trigger-elicitation-request': 'allow' } },
      });
    });
    after(async () => { await w?.close(); });

    test('a long operation shows its progress in the float', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Run the long operation.', [
        `Starting it.\n\n${call('trigger-long-running-operation', { duration: 6, steps: 6 }, 'everything')}`,
        'It finished.',
      ]);
      const bar = await floatWait(w, '.progress', 'progress');
      const text = await waitFor(async () => {
        const t = await textOf(w, bar).catch(() => '');
        return /Progress \d \/ 6/.test(t) ? t : null;
      }, { what: 'a progress line', timeoutMs: 30000 });
      assert.match(text, /Progress \d \/ 6/);
      const meter = await floatFind(w, '.progress progress');
      assert.equal(meter.length, 1, 'a bar, since the total is known');
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /Long running operation completed/);
    });

    test("a server's question is answered in the float and never shown to the AI", async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Ask me for my details.', [
        `Asking.\n\n${call('trigger-elicitation-request', {}, 'everything')}`,
        'Thanks.',
      ]);
      const question = await floatWait(w, '.question', 'question');
      assert.match(await textOf(w, question), /everything asks you/);
      const name = await floatWait(w, '.field[data-field="name"] input', 'name field');
      // Typed as a user would: a click into the field, then key presses.
      await clickAt(w, name);
      await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keys',
        actions: [...'Ada Lovelace'].flatMap((c) => [{ type: 'keyDown', value: c }, { type: 'keyUp', value: c }]) }] });
      await w.session.cmd('DELETE', '/actions');
      const submit = await floatWait(w, '.question button[data-action="floatSubmitAnswer"]', 'submit');
      await w.session.click(elementId(submit));
      const msgs = await userMessages(w, 2, 60000);
      const report = msgs[msgs.length - 1];
      assert.match(report, /Name: Ada Lovelace/);
      assert.doesNotMatch(report, /Please provide inputs/, 'the question is not in the report');
    });
  });
}
