// Starts the real bridge (target/release/mcp-bridge, built by ./build.sh) on the port the
// extension talks to, with a throw-away config directory and a known token.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browsers.mjs';
import { waitFor } from './webdriver.mjs';

export const BRIDGE_PORT = 3849;
export const BRIDGE_URL = `http://127.0.0.1:${BRIDGE_PORT}`;

/**
 * Starts the bridge. `config` (optional) is written as mcp-config.json; without it the
 * bridge runs its built-in demo server; `token` (optional) starts it again with a token the
 * extension already has; `env` (optional) is added to its environment. Resolves to
 * `{ token, url, stop, log }`.
 */
export async function startBridge({ config, args = [], token: given, env = {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-bridge-'));
  const token = given ?? `e2e-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const cliArgs = ['--port', String(BRIDGE_PORT), '--token', token, ...args];
  if (config) {
    const file = path.join(dir, 'mcp-config.json');
    fs.writeFileSync(file, JSON.stringify(config));
    cliArgs.push('--config', file);
  }
  const proc = spawn(path.join(ROOT, 'target/release/mcp-bridge'), cliArgs, {
    env: { ...process.env, MCP_BRIDGE_CONFIG_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  let exited = false;
  proc.on('exit', () => { exited = true; });
  await waitFor(async () => {
    if (exited) throw new Error(`bridge exited: ${log}`);
    return (await fetch(`${BRIDGE_URL}/health`)).ok;
  }, { timeoutMs: 30000, what: 'the bridge to answer /health' });
  return {
    token,
    url: BRIDGE_URL,
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
