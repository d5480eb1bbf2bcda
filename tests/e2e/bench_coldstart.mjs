// The background's cold start in real Chromium (part of `./build.sh bench`): the extension's
// service worker is stopped, a `ping` is sent from one of its pages, and the time until the
// `pong` arrives is measured in the page. The same is measured, in the same browser and
// interleaved, for a plain-JS worker that answers the same message
// (tests/fixtures/plain_worker), and the figure is the ratio of the two.
//
//   node tests/e2e/bench_coldstart.mjs [rounds] [name=extension-dir …]
//
// `rounds` cold starts of each (default 30). Further extensions (a variant of dist/chrome,
// say) are measured in the same run, interleaved with the two.
//
// Every extension is loaded from a copy with an empty `bench.html` added (titled with its
// name) to send from; the worker and the other files are the built ones. The options page
// would not do: it sends messages of its own, and it compiles the core's wasm in the same
// renderer process, where V8 may hand the worker that compiled module (its NativeModuleCache
// shares modules with the same bytes between isolates) instead of compiling it again.
//
// Stopping a worker: CDP `Target.closeTarget` on its service_worker target stops it, as
// `worker.close()` does in the Chrome docs' "Test service worker termination with Puppeteer"
// (https://developer.chrome.com/docs/extensions/how-to/test/test-serviceworker-termination-with-puppeteer).
// Before every timed send the worker's target must have left the target list and
// chrome://serviceworker-internals must show it STOPPED.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { Session, sleep, startDriver, waitFor } from './support/webdriver.mjs';

const ROUNDS = Number(process.argv[2] || 30);
const WARMUP = 3; // uncounted cold starts of each first (first disk reads, first code caches)

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const fmt = (x) => x.toFixed(1);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-coldstart-'));
const variants = [
  ['core', path.join(ROOT, 'dist/chrome')],
  ['plain', path.join(ROOT, 'tests/fixtures/plain_worker')],
  ...process.argv.slice(3).map((a) => a.split('=')),
].map(([name, src]) => {
  const dir = path.join(tmp, name);
  fs.cpSync(src, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'bench.html'), `<!doctype html><meta charset="utf-8"><title>${name}</title>\n`);
  return { name, dir };
});
const exts = variants.map((v) => v.dir).join(',');

const driver = await startDriver(process.env.CHROMEDRIVER || '/usr/bin/chromedriver');
let session;
try {
  session = await Session.create(driver.base, {
    browserName: 'chrome',
    'goog:chromeOptions': {
      binary: process.env.CHROMIUM || '/usr/bin/chromium',
      args: [
        '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--no-first-run', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', `--user-data-dir=${path.join(tmp, 'profile')}`,
        // Chromium ≥ 137 ignores --load-extension unless this feature is off.
        '--disable-features=DisableLoadExtensionCommandLineSwitch',
        `--load-extension=${exts}`, `--disable-extensions-except=${exts}`,
      ],
      excludeSwitches: ['disable-extensions', 'enable-automation'],
    },
  });
  await run(session);
} finally {
  await session?.close().catch(() => {});
  driver.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function run(s) {
  const cdp = (cmd, params = {}) => s.cmd('POST', '/goog/cdp/execute', { cmd, params });
  const workerUrls = async () => (await cdp('Target.getTargets')).targetInfos
    .filter((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));

  // Every worker runs once installed; the ids of unpacked extensions are random. One tab per
  // extension, on its bench.html, which tells which one it is.
  const ids = await waitFor(async () => {
    const ts = await workerUrls();
    return ts.length === variants.length && ts.map((t) => new URL(t.url).host);
  }, { what: 'every extension worker to start' });
  let handle = await s.cmd('GET', '/window');
  for (const id of ids) {
    if (!handle) handle = (await s.newWindow()).handle;
    await s.switchTo(handle);
    await s.navigate(`chrome-extension://${id}/bench.html`);
    const title = await s.exec('return document.title');
    const v = variants.find((x) => x.name === title);
    if (!v) throw new Error(`no variant for ${id}`);
    Object.assign(v, { id, handle, cold: [], warm: [] });
    handle = null;
  }
  // A last tab with the browser's own view of the workers.
  const internals = (await s.newWindow()).handle;

  // chrome://serviceworker-internals lists each registration by scope with the running
  // status of its active version.
  const statusIn = (id) => s.exec(`
    for (const reg of document.querySelectorAll('.serviceworker-registration')) {
      if (reg.querySelector('.serviceworker-scope .value')?.textContent !== arguments[0]) continue;
      return reg.querySelector('.serviceworker-running-status .value')?.textContent ?? 'unknown';
    }
    return 'missing';`, `chrome-extension://${id}/`);

  async function stopWorker(id) {
    const url = `chrome-extension://${id}/background.js`;
    const target = (await workerUrls()).find((t) => t.url === url);
    if (target) await cdp('Target.closeTarget', { targetId: target.targetId });
    await waitFor(async () => !(await workerUrls()).some((t) => t.url === url),
      { intervalMs: 20, what: `the worker of ${id} to leave the target list` });
    await s.switchTo(internals);
    await s.navigate('chrome://serviceworker-internals/');
    await waitFor(async () => (await statusIn(id)) === 'STOPPED',
      { intervalMs: 20, what: `chrome://serviceworker-internals to show ${id} STOPPED` });
  }

  // The timed send, measured in the page around sendMessage.
  const ping = () => s.execAsync(`const done = arguments[arguments.length - 1];
    const t0 = performance.now();
    chrome.runtime.sendMessage({ type: 'ping' }).then(
      (r) => done({ ms: performance.now() - t0, r }),
      (e) => done({ error: String(e) }));`);

  async function coldStart(v) {
    await stopWorker(v.id);
    await s.switchTo(v.handle);
    await sleep(100); // the browser's own bookkeeping after the stop, outside the timing
    const cold = await ping();
    if (cold.error || cold.r?.type !== 'pong') throw new Error(`${v.name}: ${cold.error ?? JSON.stringify(cold.r)}`);
    const warm = await ping(); // the same worker, now running: what any message costs
    return { cold: cold.ms, warm: warm.ms };
  }

  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    // Interleaved, the order rotating each round, so drift in the machine's load hits all.
    const order = variants.map((_, k) => variants[(k + i) % variants.length]);
    for (const v of order) {
      const t = await coldStart(v);
      if (i >= WARMUP) {
        v.cold.push(t.cold);
        v.warm.push(t.warm);
      }
    }
  }

  const plain = variants.find((v) => v.name === 'plain');
  for (const v of variants) {
    const ratio = v === plain ? '' : `; ${(quantile(v.cold, 0.5) / quantile(plain.cold, 0.5)).toFixed(2)}× plain at the median, ${(quantile(v.cold, 0.9) / quantile(plain.cold, 0.9)).toFixed(2)}× at p90`;
    console.log(`${v.name.padEnd(6)} cold start ping→pong: median ${fmt(quantile(v.cold, 0.5))} ms, p90 ${fmt(quantile(v.cold, 0.9))} ms, min ${fmt(Math.min(...v.cold))} ms (running worker: ${fmt(quantile(v.warm, 0.5))} ms)${ratio}`);
  }
  console.log(`${ROUNDS} interleaved cold starts of each after ${WARMUP} uncounted; target: core ≤ 2.5× plain at the median`);
}
