#!/usr/bin/env node
// The MCP conformance suite's client under test: the real bridge, driven the way a user
// drives it. The suite runs `node tests/conformance/client.mjs URL` with the scenario's name
// in MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT: JSON with a client's
// credentials). This command writes a config naming URL as a remote server, starts the
// bridge on a free port with its own config directory, signs in through
// `POST /servers/NAME/sign-in` when the server asks for it (following the authorization URL
// as a browser would, redirect by redirect, to the bridge's callback), lists the tools, calls
// each with arguments made from its schema and answers every question with *accept*, leaving
// the fields out so that the schema's defaults are what the server gets.
//
// The bridge is MCP_BRIDGE_EXE, else target/release/mcp-bridge (what `./build.sh build`
// makes). It exits 0 when the tools were listed and called; the suite judges the rest.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER = 'conformance';
const TOKEN = 'c0nf0rmance'.padEnd(64, '0');
const LIMIT_MS = 25_000;

const url = process.argv[2];
if (!url) {
  console.error('usage: client.mjs SERVER_URL (the conformance suite appends it)');
  process.exit(2);
}
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const log = (...args) => console.log(`[adapter ${scenario}]`, ...args);

/** The suite's own address for the bridge's Client ID Metadata Document (it checks that this
 * is the `client_id`, and fetches nothing): the entry names it as a user of a fork would. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The config entry: the scenario's URL, and a client registered by hand when the scenario
 * gives one (its secret by environment variable name, as users are told to; a private key or
 * an ID token in a file of `dir`). A scenario of machine sign-in gets the grant its provider
 * expects, as the user would write it. */
function entry(dir) {
  const server = { type: 'streamable-http', url, timeout: 20, call_timeout: 20, client_metadata_url: CLIENT_METADATA_URL };
  const env = {};
  if (context.client_id) server.client_id = context.client_id;
  if (context.client_secret) {
    server.client_secret_env = 'CONFORMANCE_CLIENT_SECRET';
    env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
  }
  if (scenario.startsWith('auth/client-credentials-')) {
    server.sign_in = { grant: 'client_credentials' };
    if (context.private_key_pem) {
      writeFileSync(join(dir, 'client-key.pem'), context.private_key_pem, { mode: 0o600 });
      server.sign_in.private_key_file = 'client-key.pem';
      if (context.signing_algorithm) server.sign_in.signing_algorithm = context.signing_algorithm;
    }
  }
  if (context.idp_id_token) {
    writeFileSync(join(dir, 'id-token'), context.idp_id_token, { mode: 0o600 });
    server.sign_in = {
      grant: 'cross_app_access',
      idp_issuer: context.idp_issuer,
      idp_token_endpoint: context.idp_token_endpoint,
      idp_client_id: context.idp_client_id,
      id_token_file: 'id-token',
    };
  }
  return { server, env };
}

function startBridge(dir, env) {
  const exe = process.env.MCP_BRIDGE_EXE || join(ROOT, 'target/release/mcp-bridge');
  const child = spawn(exe, ['--port', '0', '--token', TOKEN], {
    env: { ...process.env, ...env, MCP_BRIDGE_CONFIG_DIR: dir, RUST_LOG: process.env.RUST_LOG || 'mcp_bridge=info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePort, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (found) resolvePort({ child, base: `http://127.0.0.1:${found[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`the bridge exited (${code}) before it listened`)));
  });
}

async function api(base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The server's entry in `GET /servers` once it is no longer starting. */
async function settled(base, deadline) {
  for (;;) {
    const { json } = await api(base, 'GET', '/servers');
    const server = json.servers?.find((s) => s.name === SERVER);
    if (server && server.status !== 'starting' && server.status !== 'not_loaded') return server;
    if (Date.now() > deadline) throw new Error(`the server still starts: ${JSON.stringify(server)}`);
    await sleep(100);
  }
}

/** A sign-in as the user makes it: the bridge's authorization URL, opened and followed as a
 * browser follows redirects, until the bridge's own callback has answered. */
async function signIn(base) {
  const begun = await api(base, 'POST', `/servers/${SERVER}/sign-in`);
  if (begun.status !== 200) throw new Error(`sign-in did not begin: ${JSON.stringify(begun.json)}`);
  let next = begun.json.authorization_url;
  for (let hop = 0; hop < 10 && next; hop++) {
    const page = await fetch(next, { redirect: 'manual' });
    const location = page.headers.get('location');
    if (!location) {
      const text = await page.text();
      if (!next.startsWith(base)) throw new Error(`the authorization page did not redirect (${page.status}): ${text.slice(0, 300)}`);
      log('callback:', page.status, text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 200));
      return;
    }
    next = new URL(location, next).href;
  }
}

/** Arguments that satisfy a tool's input schema: each required property gets a value of its
 * type (the schema's default or first enum value when it has one). */
function argumentsFor(schema) {
  const args = {};
  for (const name of schema?.required ?? []) {
    const property = schema.properties?.[name] ?? {};
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    args[name] =
      property.default ?? property.enum?.[0] ??
      ({ number: 1, integer: 1, boolean: true, array: [], object: {}, string: 'conformance' }[type] ?? 'conformance');
  }
  return args;
}

/** One call, through to its end: a question is answered with *accept* and no fields. */
async function call(base, tool) {
  let reply = await api(base, 'POST', '/execute', {
    name: tool.name, serverName: SERVER, arguments: argumentsFor(tool.parameters), wait: 5,
  });
  const answered = new Set();
  while (reply.status === 202) {
    const id = reply.json.call_id;
    const question = reply.json.elicitation;
    if (question && !answered.has(question.id)) {
      answered.add(question.id);
      const answer = await api(base, 'POST', `/calls/${id}/elicitation`, {
        action: 'accept', content: {}, question_id: question.id,
      });
      log('answered question', question.id, answer.status);
    }
    reply = await api(base, 'GET', `/calls/${id}?wait=5`);
  }
  log('called', tool.name, reply.status, JSON.stringify(reply.json).slice(0, 300));
  return reply;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const { server, env } = entry(dir);
  writeFileSync(join(dir, 'mcp-config.json'), JSON.stringify({ mcpServers: { [SERVER]: server } }, null, 2));
  const { child, base } = await startBridge(dir, env);
  try {
    const deadline = Date.now() + LIMIT_MS;
    let tools;
    // Sign in while the server asks for it (a wider scope asks again), at most 3 times.
    for (let signIns = 0; ; ) {
      const state = await settled(base, deadline);
      const listed = await api(base, 'GET', `/tools?serverName=${SERVER}`);
      if (state.status === 'running' && listed.status === 200) {
        tools = listed.json.tools.tools;
        break;
      }
      const needs = state.sign_in?.state === 'needs_sign_in' || state.sign_in?.state === 'failed';
      if (needs && signIns < 3) {
        signIns++;
        log('signing in:', JSON.stringify(state.sign_in));
        await signIn(base);
      } else if (needs || Date.now() > deadline) {
        // Three sign-ins and the server still asks: the user gives up.
        throw new Error(`no tools: ${JSON.stringify(state)} ${JSON.stringify(listed.json)}`);
      }
      await sleep(200);
    }
    const list = tools;
    log('tools:', list.map((t) => t.name).join(', ') || '(none)');
    for (const tool of list) {
      let reply = await call(base, tool);
      // A call refused for a missing sign-in (a scope the server now wants): sign in again.
      for (let again = 0; again < 2 && reply.json?.detail?.type === 'SignInRequired'; again++) {
        await signIn(base);
        await settled(base, deadline);
        reply = await call(base, tool);
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    log('failed:', error.message);
    process.exit(1);
  },
);
