// The float says what happened and why, in both browsers, against the real bridge and its
// demo server: a failure carries one short line of why (the tool's own words, masked), a
// tool the bridge blocks after repeated failures says so and offers *Reset*, and a call
// refused by a saved *Deny* says the choice is kept and offers *Ask me next time*.
//   node --test --test-concurrency=1 tests/e2e/float_reasons.test.mjs
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { freshChat, startWorld, userSays, userMessages, call, configure, floatStatus, floatFind, floatWait, clickAt } from './support/chat.mjs';

const HOST = 'chat.deepseek.com';

const fresh = (w, settings) => freshChat(w, settings, HOST);

/** One round: the user asks, the AI answers with `toolCall`; resolves to the report. */
async function round(w, n, toolCall) {
  await userSays(w, `Round ${n}.`, [`Calling.\n${toolCall}`, 'Noted.']);
  const msgs = await userMessages(w, 2 * n);
  return msgs[2 * n - 1];
}

/** The text of the float's first element matching `css` (WebDriver reads into its closed root). */
async function floatText(w, css) {
  const el = await floatWait(w, css);
  return w.session.cmd('GET', `/element/${Object.values(el)[0]}/text`);
}

/** Waits until the float's title holds `needle`, and returns the title. */
async function titleWith(w, needle) {
  let last = '';
  for (let i = 0; i < 100; i++) {
    last = await floatText(w, '.title').catch(() => '');
    if (last.includes(needle)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the float's title never held "${needle}"; it says "${last}"`);
}

const resetAll = (w) => fetch(`${w.bridge.url}/reset-history`, { method: 'POST', headers: { authorization: `Bearer ${w.bridge.token}` } });

for (const browser of BROWSERS) {
  describe(`the float says why, in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test("a failure says why in one line: the tool's own words, masked and cut short", async () => {
      await fresh(w);
      await round(w, 1, call('fail_logical', { query: 'no such thing' }));
      await floatStatus(w, 'error');
      const why = await floatText(w, '.detail');
      assert.equal(why, 'Why: the tool says: No records match the query "no such thing"; try a broader query.');
      // A path outside the folder the tool may read: the reason is the tool's own sentence.
      await round(w, 2, call('read_text_file', { path: '/home/demo/notes/todo.txt' }));
      await titleWith(w, 'read_text_file');
      const outside = await floatText(w, '.detail');
      assert.match(outside, /^Why: the tool says: .*outside the demo folder/, outside);
      const secret = `sk-ant-api03-${'A'.repeat(40)}`;
      await round(w, 3, call('fail_runtime', { message: `cannot open the vault with ${secret} ${'and more '.repeat(40)}` }));
      await titleWith(w, 'fail_runtime');
      const said = await floatText(w, '.detail');
      assert.match(said, /^Why: the tool says: cannot open the vault with /, said);
      assert.ok(!said.includes('AAAAAAAAAAAAAAAA'), `the secret is shown: ${said}`);
      assert.ok(said.length <= 200 && said.endsWith('…'), `not cut short: ${said.length} ${said}`);
      await resetAll(w);
    });

    test('a blocked tool says so and Reset lets it run again', async () => {
      await fresh(w);
      let n = 0;
      for (let i = 0; i < 3; i++) await round(w, ++n, call('fail_runtime', { message: `boom ${i}` }));
      // The bridge's failure counter refuses the fourth call in a row.
      const report = await round(w, ++n, call('fail_runtime', { message: 'boom 3' }));
      assert.match(report, /\*\*Category\*\*: limit /, report);
      const title = await titleWith(w, 'is blocked');
      assert.match(title, /^fail_runtime is blocked: /, title);
      const [reset] = await floatFind(w, '.row button[data-id="reset-tool"]');
      assert.ok(reset, 'no Reset button');
      assert.equal(await w.session.cmd('GET', `/element/${Object.values(reset)[0]}/text`), 'Reset');
      await clickAt(w, reset);
      await titleWith(w, 'no longer blocked');
      // The bridge runs it again: the next failure is the tool's, not the counter's.
      const again = await round(w, ++n, call('fail_runtime', { message: 'boom 4' }));
      assert.match(again, /\*\*Category\*\*: runtime /, again);
      await resetAll(w);
    });

    test('a refusal by a kept Deny says the choice is kept; Ask me next time asks again', async () => {
      await fresh(w, { toolPolicies: { 'demo:echo': 'deny' } });
      try {
        const report = await round(w, 1, call('echo', { text: 'refused' }));
        assert.ok(!report.includes('refused\n'), 'the call ran');
        await floatStatus(w, 'denied');
        assert.equal(await floatText(w, '.detail'), "Your choice is kept: the AI's calls of this tool are refused until you change it.");
        const [ask] = await floatFind(w, '.row button[data-id="ask-next-time"]');
        assert.ok(ask, 'no Ask me next time button');
        await clickAt(w, ask);
        await titleWith(w, 'will ask you');
        // The next call asks instead of being refused.
        await userSays(w, 'Echo again.', [`Sure.\n${call('echo', { text: 'asked' })}`, 'Done.']);
        await floatStatus(w, 'confirm');
        // What the options page shows: the tool's policy is Ask.
        await w.session.navigate(`${w.extensionBase}options/options.html`);
        await w.session.waitForScript("return document.readyState === 'complete' && !!globalThis.chrome?.storage", { what: 'the options page' });
        const policies = await w.session.execAsync(`const done = arguments[arguments.length - 1];
          chrome.storage.local.get('settings').then((got) => done(got.settings.toolPolicies));`);
        assert.deepEqual(policies, { 'demo:echo': 'ask' });
      } finally {
        await configure(w, { toolPolicies: {} });
      }
    });
  });
}
