// A 50 MB tool result in a real browser, printed as figures (part of `./build.sh bench`):
//   - end of the AI's answer → the first report in the chat input, for a 1 KB and a 50 MB
//     result of the same real MCP server (the bridge's demo server reading a file), runs
//     interleaved so both see the same machine;
//   - the part of it the bridge spent on /execute (its log), so the MCP server's own time
//     to read and send 50 MB is told apart from ours;
//   - the page's long tasks (> 50 ms, PerformanceObserver 'longtask') while the large
//     result is handled.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { startWorld, openChat, call, waitForLog } from './support/chat.mjs';
import { sleep } from './support/webdriver.mjs';

const RUNS = Number(process.env.BENCH_LARGE_RUNS ?? 5);
const BIG_MB = Number(process.env.BENCH_LARGE_MB ?? 50);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-bench-large-'));
const line = 'the quick brown fox jumps over the lazy dog, line of a large generated file\n';
fs.writeFileSync(path.join(root, 'small.txt'), line.repeat(Math.ceil(1024 / line.length)).slice(0, 1024));
{
  const chunk = line.repeat(Math.floor((1 << 20) / line.length));
  const fd = fs.openSync(path.join(root, 'big.txt'), 'w');
  let left = BIG_MB * (1 << 20);
  while (left > 0) left -= fs.writeSync(fd, chunk.slice(0, left));
  fs.closeSync(fd);
}
const bigBytes = fs.statSync(path.join(root, 'big.txt')).size;
// The extension runs a call once per chat (a repeated identical call is not run again), so
// each run reads its own name for the same file.
for (let i = 0; i < RUNS; i++) {
  for (const kind of ['small', 'big']) fs.linkSync(path.join(root, `${kind}.txt`), path.join(root, `${kind}-${i}.txt`));
}

const w = await startWorld('chromium', {
  bridgeArgs: ['--log-format', 'json'],
  bridgeConfig: { mcpServers: { files: {
    command: path.join(ROOT, 'target/release/mcp-bridge'), args: ['demo-server', '--root', root],
  } } },
});
const s = w.session;
// A loaded machine can take seconds over a 50 MB result; the default script timeout is 30 s.
await s.cmd('POST', '/timeouts', { script: 300000 });
try {
  const times = { small: [], big: [] };
  const bridgeMs = { small: [], big: [] };
  const long = [];
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['small', 'big']) {
      await openChat(w, 'chat.deepseek.com');
      await s.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      const before = w.bridge.log().length;
      // In the page: the answer streams, and from its end a 5 ms poll watches the input
      // (or the sent messages, if the report was already sent) for the report.
      const got = await s.execAsync(`const done = arguments[arguments.length - 1];
        const ai = window.fixtureAI;
        const input = document.querySelector('textarea#chat-input');
        const sent = ai.messages().length;
        const longTasks = [];
        new PerformanceObserver((l) => { for (const e of l.getEntries()) longTasks.push(e.duration); })
          .observe({ type: 'longtask' });
        ai.respond(arguments[0]).then(() => {
          const t0 = performance.now();
          const timer = setInterval(() => {
            if (input.value.includes('<tool_result') || ai.messages().length > sent) {
              clearInterval(timer);
              const ms = performance.now() - t0;
              // Whatever the report's arrival still sets off (typing, sending) counts too.
              setTimeout(() => done({ ms, longTasks }), 1000);
            }
          }, 5);
        });`, `Reading it.\n\n${call('read_text_file', { path: `${kind}-${i}.txt` }, 'files')}`);
      times[kind].push(got.ms);
      if (kind === 'big') long.push(...got.longTasks);
      const logLine = await waitForLog(w, before, '"/execute"');
      const ms = executeMs(logLine);
      if (ms !== null) bridgeMs[kind].push(ms);
      await sleep(500);
    }
  }
  const small = median(times.small);
  const big = median(times.big);
  console.log(`result sizes: ${(bigBytes / (1 << 20)).toFixed(1)} MiB against 1 KiB, ${RUNS} interleaved runs each`);
  console.log(`end of answer → first report in the chat input: 1 KiB median ${small.toFixed(0)} ms, ${BIG_MB} MiB median ${big.toFixed(0)} ms, ratio ${(big / small).toFixed(2)} (target ≤ 1.5)`);
  if (bridgeMs.big.length && bridgeMs.small.length) {
    const ours = big - median(bridgeMs.big) + median(bridgeMs.small);
    console.log(`  of which /execute at the bridge (MCP server reading and sending, bridge decoding and keeping): 1 KiB ${median(bridgeMs.small).toFixed(0)} ms, ${BIG_MB} MiB ${median(bridgeMs.big).toFixed(0)} ms`);
    console.log(`  the extension's part (all but /execute): 1 KiB ${(small - median(bridgeMs.small)).toFixed(0)} ms, ${BIG_MB} MiB ${(big - median(bridgeMs.big)).toFixed(0)} ms, ratio ${(ours / small).toFixed(2)} counting the 1 KiB /execute for both`);
  }
  console.log(`page long tasks while ${BIG_MB} MiB results were handled: ${long.length} (max ${long.length ? Math.max(...long).toFixed(0) : 0} ms; target: none over 50 ms)`);
} finally {
  await w.close();
  fs.rmSync(root, { recursive: true, force: true });
}

/** The time the bridge logged for answering a request (JSON log: `"latency_us": 1559`), in ms. */
function executeMs(logLine) {
  const us = JSON.parse(logLine).latency_us;
  return typeof us === 'number' ? us / 1000 : null;
}
