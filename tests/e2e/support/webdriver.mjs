// A minimal W3C WebDriver client over fetch: enough to drive chromedriver and geckodriver
// without an npm driver package (those try to download browsers and drivers, which this
// machine cannot do).
import { spawn } from 'node:child_process';
import net from 'node:net';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes; returns that value. */
export async function waitFor(fn, { timeoutMs = 15000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await sleep(intervalMs);
  }
}

/** Starts a driver binary on a free port and resolves once it answers /status. */
export async function startDriver(binary, args = [], env = {}) {
  const port = await freePort();
  const portArg = binary.includes('gecko') ? ['--port', String(port)] : [`--port=${port}`];
  const proc = spawn(binary, [...portArg, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/status`)).ok, { what: `${binary} to start (${stderr})` });
  return { base, stop: () => proc.kill('SIGTERM') };
}

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  static async create(base, capabilities) {
    const res = await fetch(`${base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: capabilities } }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`new session failed: ${JSON.stringify(body.value)}`);
    return new Session(base, body.value.sessionId);
  }

  async cmd(method, path, body) {
    const res = await fetch(`${this.base}/session/${this.id}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) {
      const v = json.value || {};
      throw new Error(`${method} ${path}: ${v.error}: ${v.message}`);
    }
    return json.value;
  }

  navigate(url) { return this.cmd('POST', '/url', { url }); }
  url() { return this.cmd('GET', '/url'); }
  /** Runs `script` (a function body) in the page; arguments are in `arguments`. */
  exec(script, ...args) { return this.cmd('POST', '/execute/sync', { script, args }); }
  execAsync(script, ...args) { return this.cmd('POST', '/execute/async', { script, args }); }
  async find(css) {
    const el = await this.cmd('POST', '/element', { using: 'css selector', value: css });
    return Object.values(el)[0];
  }
  click(elementId) { return this.cmd('POST', `/element/${elementId}/click`, {}); }
  type(elementId, text) { return this.cmd('POST', `/element/${elementId}/value`, { text }); }
  screenshot() { return this.cmd('GET', '/screenshot'); }
  windowHandles() { return this.cmd('GET', '/window/handles'); }
  newWindow() { return this.cmd('POST', '/window/new', { type: 'tab' }); }
  switchTo(handle) { return this.cmd('POST', '/window', { handle }); }
  close() { return this.cmd('DELETE', ''); }

  /** Waits for `script` (returning a value) to return something truthy in the page. */
  waitForScript(script, opts = {}) {
    return waitFor(() => this.exec(script), { what: script, ...opts });
  }
}
