// A failed call's first report in a worker's life, in real Chromium (part of
// `./build.sh bench`): the chat page is open, the extension's service worker is stopped,
// the AI answers with a call of the demo server's `fail_runtime`, and the time from the end
// of the answer to the report in the chat input is measured in the page. The worker wakes
// on the answer's first message, so the report is the first it writes. The bridge's own
// time for `/execute` (its JSON log) is taken off, leaving the extension's part (which holds
// the chat loop's wait for the answer's end).
//
//   node tests/e2e/bench_first_report.mjs [runs] [name=extension-dir …]
//
// `runs` reports of each (default 10) after one uncounted. Further extensions (a build of
// another commit, say) are measured the same way, each in its own browser, the browsers
// taking turns in blocks of runs so that drift in the machine's load hits all of them.
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { startWorld, openChat, call, waitForLog } from './support/chat.mjs';
import { sleep, waitFor } from './support/webdriver.mjs';

const RUNS = Number(process.argv[2] || 10);
const BLOCK = 5; // runs of one extension before the next one's turn
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const variants = [
  ['core', path.join(ROOT, 'dist/chrome')],
  ...process.argv.slice(3).map((a) => a.split('=')),
].map(([name, dir]) => ({ name, dir, total: [], ours: [], n: 0 }));

for (const v of variants) {
  // Every report is sent by itself: more of them than the default limit of automatic rounds.
  v.world = await startWorld('chromium', {
    bridgeArgs: ['--log-format', 'json'], extension: v.dir, settings: { maxAutoRounds: 100 },
  });
  await v.world.session.cmd('POST', '/timeouts', { script: 60000 });
}
try {
  // One uncounted run each, then turns of BLOCK runs until every extension has RUNS.
  for (const v of variants) await once(v);
  while (variants.some((v) => v.total.length < RUNS)) {
    for (const v of variants) {
      for (let i = 0; i < BLOCK && v.total.length < RUNS; i++) {
        const t = await once(v);
        v.total.push(t.total);
        v.ours.push(t.ours);
      }
    }
  }
  for (const v of variants) {
    console.log(`${v.name.padEnd(6)} end of answer → first report of a failed call in a fresh worker: median ${median(v.total).toFixed(1)} ms; the extension's part (all but /execute) median ${median(v.ours).toFixed(1)} ms, min ${Math.min(...v.ours).toFixed(1)} ms`);
  }
  console.log(`${RUNS} runs of each after 1 uncounted (Chromium)`);
} finally {
  for (const v of variants) await v.world.close();
}

/** One report: the worker stopped, then the answer; its timings in ms. */
async function once(v) {
  const w = v.world;
  const s = w.session;
  await openChat(w, 'chat.deepseek.com');
  await s.exec('window.fixtureAI.reset()');
  await openChat(w, 'chat.deepseek.com');
  await stopWorker(s);
  const before = w.bridge.log().length;
  const got = await s.execAsync(`const done = arguments[arguments.length - 1];
    const ai = window.fixtureAI;
    const input = document.querySelector('textarea#chat-input');
    const sent = ai.messages().length;
    ai.respond(arguments[0]).then(() => {
      const t0 = performance.now();
      const timer = setInterval(() => {
        if (input.value.includes('<tool_result') || ai.messages().length > sent) {
          clearInterval(timer);
          done({ ms: performance.now() - t0 });
        }
      }, 2);
    });`, `Trying.\n\n${call('fail_runtime', { message: `run ${v.n++} failed` })}`);
  const line = JSON.parse(await waitForLog(w, before, '"/execute"'));
  await sleep(300); // whatever the report sets off (typing, sending) settles outside the timing
  return { total: got.ms, ours: got.ms - line.latency_us / 1000 };
}

/** Stops the extension's service worker (CDP `Target.closeTarget`) and waits until it is gone. */
async function stopWorker(s) {
  const cdp = (cmd, params = {}) => s.cmd('POST', '/goog/cdp/execute', { cmd, params });
  const workers = async () => (await cdp('Target.getTargets')).targetInfos
    .filter((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));
  for (const t of await workers()) await cdp('Target.closeTarget', { targetId: t.targetId });
  await waitFor(async () => (await workers()).length === 0,
    { intervalMs: 20, what: 'the extension worker to leave the target list' });
}
