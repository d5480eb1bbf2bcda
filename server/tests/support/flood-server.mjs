// A hostile stdio MCP server for the bridge's tests only (never shipped), written as raw
// JSON-RPC so that it controls every byte it writes: on request it floods the bridge with
// `notifications/tools/list_changed` in one burst, or with questions (`elicitation/create`)
// during a call, and reports how the bridge answered; it answers a completion with 20,000
// values and a call of `deep` with a result nested 1,000 levels deep, and lists tools whose
// names hold control characters or repeat another's; `ask` asks one question and returns the
// answer as it arrived; the prompt `huge` renders `chars` characters of text and the resource
// `flood://blob/<bytes>` is a blob of that many bytes of base64.
import { createInterface } from "node:readline";

const write = (message) => process.stdout.write(JSON.stringify(message) + "\n");

// The tools it lists: enough text that every reload of the list costs the bridge something.
const tools = () => {
  const list = [];
  for (let i = 0; i < 20; i++) {
    list.push({
      name: `tool_${i}`,
      description: `Tool number ${i}. `.repeat(20),
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", description: "Some text." } },
      },
    });
  }
  list.push({
    name: "flood_list_changed",
    description: "Sends `count` tools/list_changed notifications in one burst, then adds `settled`.",
    inputSchema: { type: "object", properties: { count: { type: "number" } } },
  });
  list.push({
    name: "flood_questions",
    description:
      "Asks `count` questions of `bytes` characters at once; returns how many were answered " +
      "once `enough` were, or at `wait_ms`.",
    inputSchema: {
      type: "object",
      properties: {
        count: { type: "number" },
        bytes: { type: "number" },
        wait_ms: { type: "number" },
        enough: { type: "number" },
      },
    },
  });
  // Names no client should be shown: control characters, and a name listed twice.
  for (const name of ["line\nbreak", "esc\u001b[31mred", "nul\u0000", "tool_0"]) {
    list.push({ name, description: "An odd name.", inputSchema: { type: "object" } });
  }
  list.push({
    name: "ask",
    description: "Asks one question (`url` given: in URL mode) and returns the answer it got.",
    inputSchema: { type: "object", properties: { url: { type: "string" } } },
  });
  list.push({ name: "deep", description: "Answers nested 1,000 levels deep.", inputSchema: { type: "object" } });
  if (settled) {
    list.push({ name: "settled", description: "Listed after the flood.", inputSchema: { type: "object" } });
  }
  return list;
};

let settled = false;
let nextId = 1;
// Answers awaited for requests this server sent, by id.
const waiting = new Map();

const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] });

async function call(name, args) {
  if (name === "flood_list_changed") {
    const count = args.count ?? 60000;
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }) + "\n";
    process.stdout.write(line.repeat(count));
    settled = true;
    process.stdout.write(line);
    return text({ sent: count + 1 });
  }
  if (name === "flood_questions") {
    const count = args.count ?? 20000;
    const message = "?".repeat(args.bytes ?? 1000);
    let answered = 0;
    let declined = 0;
    const all = [];
    let burst = "";
    for (let i = 0; i < count; i++) {
      const id = `q${nextId++}`;
      all.push(
        new Promise((resolve) => waiting.set(id, resolve)).then((reply) => {
          answered++;
          if (reply?.result?.action === "decline") declined++;
        }),
      );
      burst +=
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "elicitation/create",
          params: {
            mode: "form",
            message,
            requestedSchema: { type: "object", properties: { a: { type: "string" } } },
          },
        }) + "\n";
    }
    process.stdout.write(burst);
    // Done when `enough` answers came, or at `wait_ms`.
    const enough = args.enough ?? count;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, args.wait_ms ?? 20000);
      const check = () => {
        if (answered >= enough) {
          clearTimeout(timer);
          resolve();
        }
      };
      for (const one of all) one.then(check);
    });
    return text({ asked: count, answered, declined });
  }
  if (name === "ask") {
    const id = `q${nextId++}`;
    const params = args.url === undefined
      ? { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }
      : { mode: "url", message: "Open this", url: args.url, elicitationId: id };
    const reply = new Promise((resolve) => waiting.set(id, resolve));
    write({ jsonrpc: "2.0", id, method: "elicitation/create", params });
    return text(await reply);
  }
  if (name === "deep") {
    let nested = {};
    for (let i = 0; i < 1000; i++) nested = { a: nested };
    return { content: [{ type: "text", text: "deep" }], structuredContent: nested };
  }
  if (name.startsWith("tool_") || name === "settled") return text({ ok: name });
  return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
}

async function handle(message) {
  const { id, method, params } = message;
  if (method === undefined) {
    const resolve = waiting.get(id);
    if (resolve) {
      waiting.delete(id);
      resolve(message);
    }
    return;
  }
  if (id === undefined) return;
  try {
    let result;
    if (method === "initialize") {
      result = {
        protocolVersion: "2025-06-18",
        capabilities: { tools: { listChanged: true }, prompts: {}, resources: {}, completions: {} },
        serverInfo: { name: "flood-server", version: "1.0.0" },
      };
    } else if (method === "tools/list") {
      result = { tools: tools() };
    } else if (method === "tools/call") {
      result = await call(params.name, params.arguments ?? {});
    } else if (method === "prompts/list") {
      result = {
        prompts: [
          { name: "many", arguments: [{ name: "value" }] },
          { name: "huge", arguments: [{ name: "chars" }] },
        ],
      };
    } else if (method === "prompts/get") {
      const chars = Number(params.arguments?.chars ?? 0);
      const line = "a line of a huge prompt\n";
      const text = line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
      result = {
        messages: [
          { role: "user", content: { type: "text", text } },
          { role: "assistant", content: { type: "text", text: "the last message" } },
        ],
      };
    } else if (method === "resources/list") {
      result = { resources: [] };
    } else if (method === "resources/templates/list") {
      result = { resourceTemplates: [] };
    } else if (method === "resources/read") {
      const bytes = Number(params.uri.split("/").pop());
      result = { contents: [{ uri: params.uri, mimeType: "image/png", blob: "A".repeat(bytes) }] };
    } else if (method === "completion/complete") {
      const values = [];
      for (let i = 0; i < 20000; i++) values.push(`${String(i).padStart(5, "0")} ${"v".repeat(994)}`);
      result = { completion: { values, total: 20000, hasMore: false } };
    } else if (method === "ping") {
      result = {};
    } else {
      write({ jsonrpc: "2.0", id, error: { code: -32601, message: `no method ${method}` } });
      return;
    }
    write({ jsonrpc: "2.0", id, result });
  } catch (err) {
    write({ jsonrpc: "2.0", id, error: { code: -32603, message: String(err) } });
  }
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  if (line.trim() === "") return;
  handle(JSON.parse(line));
});
