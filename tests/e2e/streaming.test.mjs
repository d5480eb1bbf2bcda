// Answers that stream as real ones do: seconds of text, a few characters at a time, before
// and after the call. Every fixture page, both browsers: the call runs once and its result
// is typed and sent once. A stop control that is in the page but hidden is not "generating".
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { CHAT_SITES } from './support/fixtures.mjs';
import { startWorld, openChat, userSays, userMessages } from './support/chat.mjs';


/** Prose of about `n` characters, in sentences, different for each `seed`. */
function prose(n, seed) {
  const words = ['the', 'tool', 'will', 'tell', 'us', 'what', 'time', 'it', 'is', 'in', 'Tokyo', 'and', 'then', 'I', 'can', 'answer', 'your', 'question'];
  let out = '';
  for (let i = 0; out.length < n; i++) out += words[(i * 7 + seed) % words.length] + ((i + seed) % 9 === 8 ? '. ' : ' ');
  return out.trim() + '.';
}

// The speeds real answers stream at: a few characters every 50–100 ms, for seconds.
const SPEEDS = [
  { size: 2, intervalMs: 60 },
  { size: 4, intervalMs: 90 },
];

for (const browser of BROWSERS) {
  describe(`answers streamed for seconds in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('a stop control that stays in the page, hidden while nothing streams, does not count as generating', async () => {
      // As on Doubao: the config's stop control matches at all times; only its being shown says
      // the AI is still writing.
      await openChat(w, 'chat.deepseek.com', '/?stop=always');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com', '/?stop=always');
      await w.session.exec('window.fixtureAI.setChunk(arguments[0])', SPEEDS[0]);
      const answer = await w.session.exec(
        'return window.fixtureAI.toolCall(arguments[0], "literal", arguments[1])',
        { tool_name: 'echo', arguments: { text: 'hidden stop' } }, prose(80, 5));
      await userSays(w, 'Please echo something.', [answer, 'Done, thanks.']);
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /^<tool_result>\n# MCP Bridge · result of `[^`]+`\n/, msgs[1]);
      assert.ok(msgs[1].includes('hidden stop'), msgs[1]);
    });

    for (const [name, host] of CHAT_SITES) {
      SPEEDS.forEach((speed, i) => {
        const lead = 120 + 80 * i;
        test(`${name}: ${lead} characters before the call and after it, ${speed.size} every ${speed.intervalMs} ms`, async () => {
          await openChat(w, host);
          await w.session.exec('window.fixtureAI.reset()');
          await openChat(w, host);
          await w.session.exec('window.fixtureAI.setChunk(arguments[0])', speed);
          const marker = `streamed ${name} ${i}`;
          const answer = await w.session.exec(
            'return window.fixtureAI.toolCall(arguments[0], "literal", arguments[1])',
            { tool_name: 'echo', arguments: { text: marker } }, prose(lead, i));
          await userSays(w, 'Please echo something.', [`${answer}\n\n${prose(lead, i + 3)}`, 'Done, thanks.']);
          const msgs = await userMessages(w, 2, 60000);
          assert.match(msgs[1], /^<tool_result>\n# MCP Bridge · result of `[^`]+`\n/, msgs[1]);
          assert.ok(msgs[1].includes(marker), msgs[1]);
          // The AI's next answer (streamed as slowly) is the later event that proves the
          // call was not run or reported again meanwhile.
          await w.session.waitForScript(
            'const a = window.fixtureAI.answers(); return a.length >= 2 && !window.fixtureAI.isGenerating() && a[1].includes("Done, thanks.")',
            { timeoutMs: 30000, what: 'the AI to answer the result' });
          const all = await w.session.exec('return window.fixtureAI.messages()');
          assert.equal(all.length, 2, JSON.stringify(all));
          await w.session.exec('window.fixtureAI.setChunk({ size: 40, intervalMs: 20 })');
        });
      });
    }
  });
}
