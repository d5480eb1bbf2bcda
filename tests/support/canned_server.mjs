// A canned bridge for the core's browser tests (tests/web_client.rs): every response shape
// the client must turn into an outcome, from fixed answers. Node, no dependencies.
//
//   CANNED_PORT=<a free port> node tests/support/canned_server.mjs
//
// POST /execute answers by tool name (`name` in the body), so one route covers every shape.
// CORS is open (`*`) because wasm-bindgen-test runs the client in a page/worker served from
// another port; the real bridge only allows extension origins.
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';

if (!process.env.CANNED_PORT) throw new Error('CANNED_PORT: the free port to listen on');
const port = Number(process.env.CANNED_PORT);
const calls = new Map(); // call_id -> { polls, cancelled }
let lastAuth = null;
/** Every Authorization header received, for the proof tests. */
const authSeen = [];
/** The token this canned bridge holds: it proves it to `/health?challenge=` (as the bridge). */
const TOKEN = 'test-token';
let nextId = 1;

const TRACEBACK =
  'Traceback (most recent call last):\n  File "/home/alice/srv/tickets.py", line 123, in get_tickets\n' +
  "    date = parse_date(params['date'])\nValueError: Invalid date format: 2025-13-45";

function send(res, status, body, { type = 'application/json', trace = 'canned-trace' } = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': type, 'X-Trace-Id': trace });
  res.end(text);
}

const ok = (text) => ({ success: true, result: { content: [{ type: 'text', text }], isError: false } });

/** Answers of POST /execute by tool name. Returning null means "handled already". */
const EXECUTE = {
  ok: () => [200, ok('hello from canned')],
  whoami: () => [200, ok(lastAuth ?? '(no authorization header)')],
  echo_args: (body) => [200, ok(JSON.stringify({ arguments: body.arguments ?? null, serverName: body.serverName ?? null }))],
  is_error_camel: () => [200, { success: true, result: { content: [{ type: 'text', text: 'no such row' }], isError: true } }],
  is_error_snake: () => [200, { success: true, result: { content: [{ type: 'text', text: 'no such row' }], is_error: true, structured_content: null } }],
  detail_string: () => [404, { detail: 'Not Found' }],
  detail_object: () => [500, { detail: { error: 'Invalid date format: 2025-13-45', type: 'ValueError', traceback: TRACEBACK, code: -32602, retryable: false, trace_id: 'body-trace', server: 'tickets' } }],
  detail_list: () => [422, { detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: {} }] }],
  other_json: () => [500, ['unexpected', 1]],
  limit: () => [429, { detail: { error: 'get_tickets failed 3 times in a row', type: 'CallLimitExceeded', retryable: false } }],
  html_502: () => [502, '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>', 'text/html'],
  text_500: () => [500, 'Internal Server Error', 'text/plain'],
  empty_500: () => [500, '', 'text/plain'],
  truncated: () => [200, '{"success": true, "result": {"content": [{"type": "te'],
  wrong_shape: () => [200, { status: 'ok' }],
};

const server = http.createServer((req, res) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader('Access-Control-Expose-Headers', 'X-Trace-Id');
  if (req.method === 'OPTIONS') {
    res.writeHead(204);
    res.end();
    return;
  }
  if (req.headers.authorization) {
    lastAuth = req.headers.authorization;
    authSeen.push(lastAuth);
  }
  const url = new URL(req.url, `http://127.0.0.1:${port}`);
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => route(req, res, url, raw));
});

function route(req, res, url, raw) {
  const path = url.pathname;
  if (req.method === 'GET' && path === '/health') {
    const body = { status: 'ok', timestamp: Date.now() / 1000, version: 'canned' };
    const nonce = url.searchParams.get('challenge');
    if (nonce) {
      body.auth = 'token';
      body.proof = crypto.createHmac('sha256', TOKEN).update(`mcp-bridge-proof\n${port}\n${nonce}`).digest('hex');
    }
    return send(res, 200, body);
  }
  if (req.method === 'GET' && path === '/auth-seen') {
    return send(res, 200, authSeen);
  }
  if (req.method === 'GET' && path === '/tools') {
    const name = url.searchParams.get('serverName');
    if (name === null) {
      return send(res, 200, { success: true, services: [{ name: 'time', description: 'Time tools', is_core: true }] });
    }
    if (name !== 'time') return send(res, 404, { detail: `服务 ${name} 不存在或未成功加载` });
    return send(res, 200, {
      success: true,
      tools: {
        service_name: 'time',
        service_description: 'Time tools',
        tools: [{ name: 'get_current_time', description: 'Get the time', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } }],
      },
    });
  }
  if (req.method === 'POST' && path === '/reset-history') {
    return send(res, 200, { success: true, message: 'history reset', body: raw ? JSON.parse(raw) : null });
  }
  if (req.method === 'GET' && path === '/history') {
    return send(res, 200, { success: true, history: { 'tickets:get_tickets': 2 } });
  }
  if (req.method === 'POST' && path === '/execute') {
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 422, { detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }] });
    }
    if (body.name === 'slow') {
      // Never answers within the client's limit, ignores `wait` (a stuck bridge).
      setTimeout(() => send(res, 200, ok('too late')), 60_000).unref();
      return;
    }
    if (body.name === 'long') {
      // Long call: 202 pending while the client polls twice, then the result.
      const id = `call-${nextId++}`;
      calls.set(id, { polls: 0, cancelled: false });
      return send(res, 202, { success: true, pending: true, call_id: id });
    }
    const answer = EXECUTE[body.name];
    if (!answer) return send(res, 404, { detail: { error: `No tool ${body.name}`, type: 'ToolNotFound', code: -32003 } });
    const [status, payload, type] = answer(body);
    return send(res, status, payload, { type });
  }
  const m = path.match(/^\/calls\/([^/]+)$/);
  if (m) {
    const call = calls.get(decodeURIComponent(m[1]));
    if (!call) return send(res, 404, { detail: 'Unknown call id' });
    if (req.method === 'DELETE') {
      call.cancelled = true;
      return send(res, 200, { success: true, cancelled: true });
    }
    if (req.method === 'GET') {
      if (call.cancelled) {
        return send(res, 499, { detail: { error: 'The call was cancelled', type: 'CancelledError' } });
      }
      call.polls += 1;
      // Hold the poll a little, as a real long-poll would.
      const wait = Math.min(Number(url.searchParams.get('wait') || 0), 1) * 300;
      setTimeout(() => {
        if (call.polls < 2) send(res, 202, { success: true, pending: true, call_id: m[1] });
        else send(res, 200, ok(`long call done after ${call.polls} polls`));
      }, wait);
      return;
    }
  }
  if (req.method === 'GET' && path === '/closed-port') {
    // A port the system just handed out and nobody listens on: the refused-connection test.
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const closed = probe.address().port;
      probe.close(() => send(res, 200, { port: closed }));
    });
    return;
  }
  if (req.method === 'GET' && path === '/_state') {
    return send(res, 200, { calls: Object.fromEntries(calls), lastAuth });
  }
  send(res, 404, { detail: 'Not Found' });
}

server.listen(port, '127.0.0.1', () => {
  console.log(`canned bridge on http://127.0.0.1:${port}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
