// A bare MCP server over stdio for the bridge's tests only (never shipped), written without an
// SDK so that it can say what no SDK lets a server say. It answers `initialize` with the
// protocol version given as its first argument (the client's own when none); `server/discover`
// it does not know (a server of a revision before 2026-07-28), unless the first argument is
// `discover=V1,V2`: then it answers `server/discover` naming those versions; or `lenient`: then
// it answers every method it does not know, `server/discover` included, with an empty result
// (as some servers of older revisions do); or `silent`: then it never answers `server/discover`.
// It lists one tool,
// `seen`, whose result is the protocolVersion the client's `initialize` named, one tool,
// `ask`, that asks the client a form question whose fields all have defaults and returns the
// answer's content as JSON, and one tool, `handle`, answered with a task handle of the 2026-07-28
// tasks extension whatever the client declared.
import { createInterface } from "node:readline";

const answer = process.argv[2];
const discovered = answer?.startsWith("discover=") ? answer.slice("discover=".length).split(",") : null;
const lenient = answer === "lenient";
const silent = answer === "silent";
let seen = null;
let nextId = 1;
const waiting = new Map();
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

const schema = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive"], default: "active" },
    verified: { type: "boolean", default: true },
    note: { type: "string" },
  },
};

async function handle(request) {
  switch (request.method) {
    case "initialize":
      seen = request.params.protocolVersion;
      return {
        protocolVersion: answer === undefined || lenient || silent || discovered ? seen : answer,
        capabilities: { tools: {} },
        serverInfo: { name: "bare-server", version: "1.0.0" },
      };
    case "server/discover":
      if (discovered === null) {
        if (lenient) return {};
        throw { code: -32601, message: `no method ${request.method}` };
      }
      return {
        resultType: "complete",
        supportedVersions: discovered,
        ttlMs: 0,
        cacheScope: "private",
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "bare-server", version: "1.0.0" } },
      };
    case "tools/list":
      return {
        tools: [
          { name: "seen", inputSchema: { type: "object" } },
          { name: "ask", inputSchema: { type: "object" } },
          { name: "handle", inputSchema: { type: "object" } },
        ],
      };
    case "tools/call": {
      if (request.params.name === "seen") return { content: [{ type: "text", text: String(seen) }] };
      if (request.params.name === "handle") {
        const now = new Date().toISOString();
        return { resultType: "task", taskId: "h-1", status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: null };
      }
      const id = nextId++;
      const reply = new Promise((resolve) => waiting.set(id, resolve));
      send({ id, method: "elicitation/create", params: { mode: "form", message: "Defaults?", requestedSchema: schema } });
      const result = await reply;
      return { content: [{ type: "text", text: JSON.stringify(result) }] };
    }
    case "ping":
      return {};
    default:
      if (lenient) return {};
      throw { code: -32601, message: `no method ${request.method}` };
  }
}

createInterface({ input: process.stdin }).on("line", async (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    waiting.get(message.id)?.(message.result ?? message.error);
    return;
  }
  if (message.id === undefined) return;
  if (silent && message.method === "server/discover") return;
  try {
    send({ id: message.id, result: await handle(message) });
  } catch (error) {
    send({ id: message.id, error });
  }
});
