// A copy of the built extension with support/hooks.js loaded before the content script, for tests
// that count what the content script leaves running or measure its float, and support/probe.js
// on loopback pages, which shows when the content script would have been injected there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browsers.mjs';

// The benchmark's user-timing marks, written into the copy's content script at fixed places
// (the shipped script has none: a page sees every mark and measure on its timeline).
// Each is [where, what to put before or after it]; a place that moved fails loudly here.
const TIMING = [
  ["// Message names, from contract.js", "before", "performance.mark('mcp-bridge:start');"],
  ['async function detectParts() {', 'after', 'const benchStart = performance.now();'],
  // The main thread's share of a detection (the core's part runs in the background).
  ['const answer = await send({ type: TAB.DETECT, scene });', 'before',
    "performance.measure('mcp-bridge:gather', { start: benchStart });"],
  // One re-check per throttled batch; not kept in the buffer (a PerformanceObserver sees it).
  ['throttleTimer = 0;\n    report();', 'replace',
    "throttleTimer = 0; const benchT = performance.now(); report();" +
    " performance.measure('mcp-bridge:recheck', { start: benchT }); performance.clearMeasures('mcp-bridge:recheck');"],
  ['render(setup.float);', 'after', "performance.mark('mcp-bridge:float');"],
];

/** Puts the marks into the content script's files (`files`: their paths) in the copy at `dir`. */
function addTiming(dir, files) {
  const texts = new Map(files.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  for (const [at, how, code] of TIMING) {
    const where = files.filter((f) => texts.get(f).includes(at));
    if (where.length !== 1 || texts.get(where[0]).split(at).length !== 2) {
      throw new Error(`the content script changed: "${at}" is not found once; update support/instrumented.mjs`);
    }
    const put = { after: `${at}\n${code}\n`, before: `${code}\n${at}`, replace: code }[how];
    texts.set(where[0], texts.get(where[0]).replace(at, () => put));
  }
  for (const [f, text] of texts) fs.writeFileSync(path.join(dir, f), text);
}

/**
 * Copies dist/chrome or dist/firefox; resolves to `{ dir, remove }`. `timing` adds the
 * benchmark's user-timing marks to the copy's content script; `hooks: false` leaves out
 * hooks.js (whose wrappers would weigh on what the benchmark measures).
 */
export function instrumentedExtension(browser, { timing = false, hooks = true } = {}) {
  const src = path.join(ROOT, 'dist', browser === 'chromium' ? 'chrome' : 'firefox');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-ext-${browser}-`));
  fs.cpSync(src, dir, { recursive: true });
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  if (timing) addTiming(dir, manifest.content_scripts[0].js);
  if (hooks) {
    fs.copyFileSync(path.join(ROOT, 'tests/e2e/support/hooks.js'), path.join(dir, 'test-hooks.js'));
    for (const cs of manifest.content_scripts) cs.js = ['test-hooks.js', ...cs.js];
    // The probe: injected when the content script would be, on loopback pages only.
    fs.copyFileSync(path.join(ROOT, 'tests/e2e/support/probe.js'), path.join(dir, 'test-probe.js'));
    const runAt = manifest.content_scripts[0].run_at;
    manifest.content_scripts.push({ matches: ['http://127.0.0.1/*'], js: ['test-probe.js'], run_at: runAt });
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  }
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
