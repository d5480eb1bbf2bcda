// Starts the real bridge (target/release/mcp-bridge, built by ./build.sh) on a free port —
// never the user's 3849 — with a throw-away config directory and a known token. The tests
// point the extension at it the way a user would (the address in the options); the
// extension's host permission covers the loopback bridge on any port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browsers.mjs';
import { waitFor } from './webdriver.mjs';

/** A port nothing listens on now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the bridge. `config` (optional) is written as mcp-config.json; without it the
 * bridge runs its built-in demo server; `token` and `port` (optional) start it again where
 * the extension already points; `env` (optional) is added to its environment. Resolves to
 * `{ token, url, port, stop, log }`.
 */
export async function startBridge({ config, args = [], token: given, port: givenPort, env = {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-bridge-'));
  // A `--no-auth` bridge takes no token (the two flags conflict): `token` is then ''.
  const noAuth = args.includes('--no-auth');
  const token = noAuth ? '' : given ?? `e2e-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const port = givenPort ?? await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cliArgs = ['--port', String(port), ...(noAuth ? [] : ['--token', token]), ...args];
  if (config) {
    const file = path.join(dir, 'mcp-config.json');
    fs.writeFileSync(file, JSON.stringify(config));
    cliArgs.push('--config', file);
  }
  const proc = spawn(path.join(ROOT, 'target/release/mcp-bridge'), cliArgs, {
    // Successful requests and calls are logged at debug; the tests and benches read those lines.
    env: { RUST_LOG: 'info,rmcp=warn,mcp_bridge::execute=debug,mcp_bridge::trace=debug', ...process.env, MCP_BRIDGE_CONFIG_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  let exited = false;
  proc.on('exit', () => { exited = true; });
  await waitFor(async () => {
    if (exited) throw new Error(`bridge exited: ${log}`);
    return (await fetch(`${url}/health`)).ok;
  }, { timeoutMs: 30000, what: 'the bridge to answer /health' });
  return {
    token,
    url,
    port,
    log: () => log,
    stop: async () => {
      if (!exited) {
        proc.kill('SIGTERM');
        await waitFor(() => exited, { timeoutMs: 10000, what: 'the bridge to exit' }).catch(() => proc.kill('SIGKILL'));
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
