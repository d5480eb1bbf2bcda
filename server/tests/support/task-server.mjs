// A small MCP server for the bridge's tests only (never shipped): tools that run as tasks
// (2025-11-25) which misbehave in ways server-everything's never do — `endless` says it is
// working for ever (its ttl is 3 s), `silent` never answers a `tasks/get`, `stuck` never
// answers the `tools/call` that asks for its task (noting `stuck-request` when the client
// cancels that request) —, `secret`, whose
// task (`taskSupport: optional`) completes at once with the `TASK_SECRET` it was given in its
// result, and `cancelled`, a plain tool naming the tasks a client cancelled with
// `tasks/cancel`, so that a test can see the cancel reach the server.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const server = new Server(
  { name: "task-server", version: "1.0.0" },
  {
    capabilities: {
      tools: {},
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    },
  },
);

const tasks = new Map();
const cancelled = [];
let next = 0;

const task = (id) => {
  const { ttl, status } = tasks.get(id);
  const now = new Date().toISOString();
  return { taskId: id, status, statusMessage: `${status}...`, ttl, pollInterval: 100, createdAt: now, lastUpdatedAt: now };
};

const empty = { type: "object", properties: {} };

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "endless", inputSchema: empty, execution: { taskSupport: "required" } },
    { name: "silent", inputSchema: empty, execution: { taskSupport: "required" } },
    { name: "stuck", inputSchema: empty, execution: { taskSupport: "required" } },
    { name: "secret", inputSchema: empty, execution: { taskSupport: "optional" } },
    { name: "cancelled", inputSchema: empty },
    // Runs as a task without its listing saying so.
    { name: "unlisted", inputSchema: empty },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const name = request.params.name;
  if (name === "cancelled") {
    return { content: [{ type: "text", text: JSON.stringify(cancelled) }] };
  }
  if (name === "stuck") {
    return new Promise((_, reject) =>
      extra.signal.addEventListener("abort", () => {
        cancelled.push("stuck-request");
        reject(new Error("cancelled"));
      }),
    );
  }
  const id = `${name}-${++next}`;
  tasks.set(id, { ttl: 3000, status: "working", silent: name === "silent" });
  if (name === "unlisted") {
    Object.assign(tasks.get(id), { status: "completed", result: { content: [{ type: "text", text: `done as ${id}` }] } });
  }
  if (name === "secret") {
    Object.assign(tasks.get(id), {
      status: "completed",
      result: { content: [{ type: "text", text: `the secret is ${process.env.TASK_SECRET}` }] },
    });
  }
  return { task: task(id) };
});

server.setRequestHandler(GetTaskRequestSchema, async (request) => {
  const id = request.params.taskId;
  if (tasks.get(id)?.silent) {
    return new Promise(() => {});
  }
  return task(id);
});

server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => tasks.get(request.params.taskId).result);

server.setRequestHandler(CancelTaskRequestSchema, async (request) => {
  const id = request.params.taskId;
  cancelled.push(id);
  tasks.get(id).status = "cancelled";
  return task(id);
});

await server.connect(new StdioServerTransport());
