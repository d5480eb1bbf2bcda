// The chat loop end to end: real browser, built extension, real bridge with its demo MCP
// server, fixture chat pages built on the real editor libraries.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { CHAT_SITES } from './support/fixtures.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatHtml, messagesBeforeMarker } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';


for (const browser of BROWSERS) {
  describe(`chat loop in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    for (const [name, host] of CHAT_SITES) {
      test(`${name}: a call runs once and its result is typed and sent`, async () => {
        await openChat(w, host);
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, host);
        const variant = { deepseek: 'literal', chatgpt: 'fenced', gemini: 'escaped', perplexity: 'stripped', kimi: 'literal', grok: 'fenced', doubao: 'literal' }[name];
        const answer = await w.session.exec(
          'return window.fixtureAI.toolCall(arguments[0], arguments[1], "Let me check.")',
          { tool_name: 'echo', arguments: { text: `hello from ${name}` } }, variant);
        await userSays(w, 'Please echo something.', [answer, 'Done, thanks.']);
        const msgs = await userMessages(w, 2);
        assert.match(msgs[1], /<tool_result>/);
        assert.match(msgs[1], new RegExp(`hello from ${name}`));
        assert.match(msgs[1], /<\/tool_result>/);
        // The AI continued, and nothing ran twice even after the page re-rendered.
        await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
        assert.equal((await messagesBeforeMarker(w)).length, 2, 'the call ran twice');
      });
    }

    test('a failing tool arrives in the report shape, masked', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      const secret = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
      await userSays(w, 'Run the failing tool.', [
        `Trying.\n${call('fail_runtime', { message: `cannot open /home/alice/data.csv with key ${secret}` })}`,
        'It failed.',
      ]);
      const msgs = await userMessages(w, 2);
      const report = msgs[1];
      assert.match(report, /# MCP Bridge · `[^`]+` (failed|执行失败)/);
      assert.match(report, /fail_runtime/);
      assert.match(report, /RuntimeError/);
      assert.ok(!report.includes(secret), 'the API key reached the chat');
      assert.ok(!report.includes('/home/alice'), 'the home path reached the chat');
      if (browser === 'chromium') {
        // The float is in a closed shadow root; only the DevTools protocol can read it.
        const float = await floatHtml(w);
        assert.ok(float, 'no float');
        assert.match(float, /fail_runtime/);
        assert.ok(!float.includes(secret), 'the API key reached the float');
        assert.ok(!float.includes('/home/alice'), 'the home path reached the float');
      }
      // The worker keeps the unmasked record in the error log.
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      const logged = await waitFor(async () => {
        const log = await w.session.execAsync(`const done = arguments[arguments.length - 1];
          chrome.storage.local.get('errorLog').then((got) => done(got.errorLog || null), () => done(null));`);
        return log?.entries?.find((e) => e.record.tool === 'fail_runtime');
      }, { what: 'the failure in the error log' });
      assert.equal(logged.site, 'chat.deepseek.com');
      assert.ok(logged.record.message.includes('/home/alice/data.csv'), JSON.stringify(logged));
    });

    test('a reload does not run the last call again', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Echo before the reload.', [`Sure.\n${call('echo', { text: 'before the reload' })}`, 'Done.']);
      await userMessages(w, 2);
      await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
      await w.session.navigate('https://chat.deepseek.com/');
      await openChat(w, 'chat.deepseek.com');
      assert.equal((await messagesBeforeMarker(w)).length, 2, 'the call ran again after the reload');
    });

    test('a malformed call is reported back to the AI', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Call something.', ['<tool_code>\n{"tool_name": "echo", "arguments": {text: oops}}\n</tool_code>', 'Sorry.']);
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /<tool_result>/);
      assert.match(msgs[1], /tool_name/);
    });
  });
}
