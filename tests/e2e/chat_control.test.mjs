// The chat loop under control and under failure, in both browsers: every failure category
// in the report shape, "ask" policy, cancel, a 60-second tool, the automatic-round cap,
// an XSS payload in an error, and the bridge going away.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { freshChat, startWorld, openChat, userSays, userMessages, call, configure, clickFloatButton, floatWait, floatFind, floatStatus } from './support/chat.mjs';
import { sleep } from './support/webdriver.mjs';
import { startBridge } from './support/bridge.mjs';

const HOST = 'chat.deepseek.com';

const fresh = (w, settings) => freshChat(w, settings, HOST);

/** One round: the user asks, the AI answers with `toolCall`; resolves to the report. */
async function round(w, n, toolCall, timeoutMs = 30000) {
  await userSays(w, `Round ${n}.`, [`Calling.\n${toolCall}`, 'Noted.']);
  const msgs = await userMessages(w, 2 * n, timeoutMs);
  return msgs[2 * n - 1];
}

for (const browser of BROWSERS) {
  describe(`chat control in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('each failure category reaches the AI in the report shape', async () => {
      // `crash` says it is destructive: allowed here, so it runs without a prompt.
      await fresh(w, { toolPolicies: { 'demo:crash': 'allow' } });
      const cases = [
        [call('fail_validation', { date: '2025-13-45' }), 'validation'],
        [call('fail_logical', { query: 'nothing' }), 'logical'],
        [call('fail_runtime', {}), 'runtime'],
        [call('fail_runtime', {}), 'runtime'],
        [call('fail_runtime', {}), 'runtime'],
        // The bridge's failure counter refuses the fourth call in a row.
        [call('fail_runtime', {}), 'limit'],
        // The MCP server dies mid-call: the bridge reports the crash (and restarts it later).
        [call('crash', {}), 'unavailable'],
      ];
      let n = 0;
      for (const [toolCall, category] of cases) {
        n += 1;
        const report = await round(w, n, toolCall);
        assert.match(report, /^<tool_result>\n# MCP Bridge · `[^`]+` failed\n/, report);
        assert.match(report, new RegExp(`\\*\\*Category\\*\\*: ${category} `), report);
        assert.match(report, /\*\*Error\*\*: \[\w+\] /);
        assert.match(report, /Please analyse the cause of the error\./);
      }
      await fetch(`${w.bridge.url}/reset-history`, { method: 'POST', headers: { authorization: `Bearer ${w.bridge.token}` } });
      await configure(w, { toolPolicies: {} });
    });

    test('an error carrying HTML renders inert', async () => {
      await fresh(w);
      const payload = '<img src=x onerror="document.documentElement.dataset.xss=1"><script>document.documentElement.dataset.xss=2</script>';
      const report = await round(w, 1, call('fail_logical', { query: payload }));
      assert.ok(report.includes('<img src=x'), 'the payload is quoted as text');
      // The float drew the failure: the payload is in it as text, never as elements.
      await floatStatus(w, 'error');
      assert.deepEqual(await floatFind(w, 'img[src="x"], script'), [], 'the payload became elements');
      assert.equal(await w.session.exec('return document.documentElement.dataset.xss ?? null'), null);
      await fetch(`${w.bridge.url}/reset-history`, { method: 'POST', headers: { authorization: `Bearer ${w.bridge.token}` } });
    });

    test('"ask" set for a server waits for the user even when the call names no server', async () => {
      // The options page keeps policies per `server:tool`; the AI may leave the server out.
      await fresh(w, { toolPolicies: { 'demo:echo': 'ask' } });
      await userSays(w, 'Echo please.', [`Sure.\n${call('echo', { text: 'asked first' })}`, 'Done.']);
      await floatStatus(w, 'confirm');
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 1, 'ran without asking');
      await clickFloatButton(w, 0); // Run
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /asked first/);
      await configure(w, { toolPolicies: {} });
    });

    test('settings that no longer validate hold every call for the user, who can still run it', async () => {
      // One bad value (as from another version): the deny and ask policies cannot be known.
      await fresh(w, { maxAutoRounds: 0 });
      await userSays(w, 'Echo please.', [`Sure.\n${call('echo', { text: 'held back' })}`, 'Done.']);
      await floatStatus(w, 'confirm', 'held');
      const sent = await w.session.exec('return window.fixtureAI.messages()');
      assert.equal(sent.length, 1, `ran by itself: ${JSON.stringify(sent)}`);
      await clickFloatButton(w, 0); // Run: the token that was valid is still used
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /held back/);
      await configure(w, { maxAutoRounds: 10 });
    });

    test('a tool denied on its server is refused with or without server_name', async () => {
      await fresh(w, { toolPolicies: { 'demo:echo': 'deny' } });
      for (const [n, toolCall] of [[1, call('echo', { text: 'never' })], [2, call('echo', { text: 'never' }, 'demo')]]) {
        const report = await round(w, n, toolCall);
        assert.match(report, /# MCP Bridge · (the user declined `|用户拒绝了 `)/);
        assert.ok(!report.includes('**Result**'));
      }
      await configure(w, { toolPolicies: {} });
    });

    test('a tool that may change things asks the first time; "Always allow" is kept', async () => {
      // The demo's `slow` does not say it only reads. Nothing is set for it.
      await fresh(w, { toolPolicies: {} });
      await userSays(w, 'Wait a second.', [`Sure.\n${call('slow', { seconds: 1 })}`, 'Done.']);
      await floatStatus(w, 'confirm');
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 1, 'ran without asking');
      await clickFloatButton(w, 1); // Allow once · Always allow · Deny
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /# MCP Bridge · result of `/);
      // Kept: the next call runs by itself.
      const report = await round(w, 2, call('slow', { seconds: 1 }));
      assert.match(report, /# MCP Bridge · result of `/);
      await configure(w, { toolPolicies: {} });
    });

    test('cancel stops a running tool', async () => {
      await fresh(w, { toolPolicies: { 'demo:slow': 'allow' } });
      await userSays(w, 'Wait a while.', [`Waiting.\n${call('slow', { seconds: 40 })}`, 'Stopped.']);
      await floatStatus(w, 'executing');
      const pressed = Date.now();
      await clickFloatButton(w, 0); // Cancel
      // One click stops it at once, also in the call's first seconds (before the bridge's
      // first "still running"), far sooner than the 40 s call would end by itself.
      const msgs = await userMessages(w, 2, 10000);
      console.log(`${browser}: the cancel's report came ${Date.now() - pressed} ms after the click`);
      assert.match(msgs[1], /\*\*Category\*\*: aborted /);
    });

    test('the automatic-round cap stops a loop', async () => {
      await fresh(w, { maxAutoRounds: 2 });
      const loop = `Again.\n${call('echo', { text: 'loop' })}`;
      await userSays(w, 'Start looping.', [loop, loop, loop, loop]);
      await userMessages(w, 3);
      await floatStatus(w, 'confirm'); // the cap asks before the next round
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 3, 'ran past the cap');
      await configure(w, { maxAutoRounds: 10 });
    });

    test('instructions: the float button types them; a new chat gets them by itself when asked', async () => {
      await fresh(w);
      await clickFloatButton(w, 0); // Insert instructions
      const typed = await w.session.waitForScript(
        'const v = document.querySelector("textarea#chat-input").value; return v.includes("list_tools_in_service") ? v : null',
        { what: 'the instructions in the input' });
      assert.match(typed, /<tool_code>/);
      assert.match(typed, /demo/);
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 0, 'instructions were sent');
      await fresh(w, { sites: { deepseek: { autoInsertInstructions: true } } });
      await w.session.waitForScript(
        'return document.querySelector("textarea#chat-input").value.includes("list_tools_in_service")',
        { what: 'instructions inserted by themselves' });
      await configure(w, { sites: {} });
    });

    test('a 60-second tool completes (long-polling past the worker fetch limit)', async () => {
      await fresh(w, { toolPolicies: { 'demo:slow': 'allow' } });
      const report = await round(w, 1, call('slow', { seconds: 60 }), 120000);
      assert.match(report, /# MCP Bridge · result of `/);
    });
  });
}

/** How long the bridge stays away once the call is held. */
const AWAY_MS = 6000;

/** How many calls the bridge's log shows reaching `/execute`. */
const executes = (bridge) => bridge.log().split('\n').filter((l) => l.startsWith('{') && l.includes('"/execute"')).length;

// A call made while the bridge is away is held in the float, and runs exactly once when the
// bridge answers again: with a token, and with a `--no-auth` bridge and no token at all.
for (const browser of BROWSERS) {
  for (const auth of ['token', 'no-auth']) {
    describe(`a held call in ${browser}, ${auth}`, () => {
      const noAuth = auth === 'no-auth';
      const args = ['--log-format', 'json', ...(noAuth ? ['--no-auth'] : [])];
      let w;
      before(async () => {
        w = await startWorld(browser, { bridgeArgs: args, settings: noAuth ? { token: '' } : {} });
      });
      after(async () => { await w?.close(); });

      // The bridge goes away after the page opened, or was away when it opened (the page's
      // own connection check then answers beside the call).
      for (const when of ['after the page opened', 'before the page opened']) {
        test(`away ${when}: runs once within seconds of the bridge answering, typed and sent once`, async () => {
          await fresh(w);
          const { token, port } = w.bridge;
          await w.bridge.stop();
          if (when === 'before the page opened') await openChat(w, HOST);
          // Each variant's own call: one already run in this conversation never runs again.
          const text = `anyone ${when}?`;
          await userSays(w, 'Round 1.', [`Calling.\n${call('echo', { text })}`, 'Noted.']);
          // Held: the float says so (and keeps saying so), and nothing reached the AI.
          await floatWait(w, '.box[data-status="held"]', 'held call');
          // Away for a while, as when the user goes to a terminal to start it: the float
          // keeps checking (its pause grows to 2 s) and keeps holding the call.
          await sleep(AWAY_MS);
          assert.equal((await floatFind(w, '.box[data-status="held"]')).length, 1, 'the float still holds the call');
          assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 1);
          w.bridge = await startBridge({ token, port, args });
          const back = Date.now();
          const msgs = await userMessages(w, 2, 20000);
          const ranAfterMs = Date.now() - back;
          assert.match(msgs[1], /^<tool_result>\n# MCP Bridge · result of `[^`]+`\n/, msgs[1]);
          assert.ok(msgs[1].includes(text), msgs[1]);
          // The watch checks the bridge at most 2 s apart: a few seconds at most.
          assert.ok(ranAfterMs < 8000, `ran ${ranAfterMs} ms after the bridge was back`);
          // A later round proves the held call did not run or report again meanwhile.
          const report = await round(w, 2, call('echo', { text: `later ${when}` }));
          assert.ok(report.includes(`later ${when}`), report);
          const all = await w.session.exec('return window.fixtureAI.messages()');
          assert.equal(all.length, 4, JSON.stringify(all));
          assert.equal(all.filter((m) => m.includes(text)).length, 1, JSON.stringify(all));
          assert.equal(executes(w.bridge), 2, 'the held call and the later one, once each');
        });
      }
    });
  }
}
