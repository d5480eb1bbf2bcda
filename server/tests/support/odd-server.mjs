// A small MCP server for the bridge's tests only (never shipped): it does what
// server-everything does not — asks for sampling whatever the client advertised, returns
// structured content that breaks its own output schema, asks the user a question after a
// delay (so it comes while a client already waits), and adds tools, prompts and resources
// while it runs, announcing them (or not) with `notifications/{tools,prompts,resources}/list_changed`,
// and lists a tool for its MCP App view only
// — so the bridge's (and the extension's) answers to all of it can be checked.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ListPromptsRequestSchema,
  GetPromptRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const weather = {
  type: "object",
  properties: {
    temperature: { type: "number" },
    conditions: { type: "string" },
  },
  required: ["temperature", "conditions"],
};

const server = new Server(
  { name: "odd-server", version: "1.0.0" },
  {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    },
  },
);

// What `add-tool`, `add-prompt` and `add-resource` have added so far (one prompt and one
// resource to start with).
const added = [];
const prompts = [{ name: "first-prompt", description: "There from the start." }];
const resources = [{ uri: "odd://first", name: "first", mimeType: "text/plain" }];

server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts }));
server.setRequestHandler(GetPromptRequestSchema, async (request) => ({
  messages: [
    { role: "user", content: { type: "text", text: `The prompt ${request.params.name}.` } },
  ],
}));
server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [],
}));
server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
  contents: [{ uri: request.params.uri, mimeType: "text/plain", text: "odd" }],
}));

const adds = (what) => ({
  type: "object",
  properties: {
    name: { type: "string", description: `The new ${what}'s name.` },
    notify: { type: "boolean", description: "Announce the change (list_changed)." },
  },
  required: ["name"],
});

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    ...added,
    {
      name: "add-tool",
      description: "Adds a tool; with notify, sends notifications/tools/list_changed.",
      inputSchema: adds("tool"),
      annotations: { readOnlyHint: true },
    },
    {
      name: "ask-for-sampling",
      description: "Sends sampling/createMessage to the client and reports what came back.",
      inputSchema: { type: "object", properties: {} },
    },
    {
      name: "ask-later",
      description: "Waits delay_ms, then asks the user for a name (form elicitation).",
      inputSchema: { type: "object", properties: { delay_ms: { type: "number" } } },
    },
    {
      name: "add-prompt",
      description: "Adds a prompt; with notify, sends notifications/prompts/list_changed.",
      inputSchema: adds("prompt"),
    },
    {
      name: "add-resource",
      description: "Adds a resource; with notify, sends notifications/resources/list_changed.",
      inputSchema: adds("resource"),
    },
    {
      name: "bad-weather",
      description: "Returns structured content whose temperature is a string.",
      inputSchema: { type: "object", properties: {} },
      outputSchema: weather,
    },
    {
      name: "good-weather",
      description: "Returns structured content that matches its output schema.",
      inputSchema: { type: "object", properties: {} },
      outputSchema: weather,
    },
    {
      name: "silent-weather",
      description: "Declares an output schema and returns no structured content.",
      inputSchema: { type: "object", properties: {} },
      outputSchema: weather,
    },
    {
      name: "view-tick",
      description: "A tool of an MCP App view, for the view only (visibility: app).",
      inputSchema: { type: "object", properties: {} },
      _meta: { ui: { resourceUri: "ui://odd/view.html", visibility: ["app"] } },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] });
  switch (request.params.name) {
    case "ask-for-sampling":
      try {
        const answer = await server.request(
          {
            method: "sampling/createMessage",
            params: {
              messages: [{ role: "user", content: { type: "text", text: "Hello" } }],
              maxTokens: 10,
            },
          },
          CreateMessageResultSchema,
        );
        return text({ answered: answer });
      } catch (error) {
        return text({ refused: { code: error.code, message: error.message } });
      }
    case "ask-later": {
      await new Promise((resolve) => setTimeout(resolve, request.params.arguments?.delay_ms ?? 0));
      const answer = await server.elicitInput({
        message: "What is your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
      });
      return text({ answer });
    }
    case "view-tick":
      return text({ ticked: true });
    case "add-tool": {
      const { name, notify } = request.params.arguments;
      added.push({
        name,
        description: `Added while running: ${name}.`,
        inputSchema: { type: "object", properties: {} },
      });
      if (notify) await server.sendToolListChanged();
      return text({ added: name, notified: !!notify });
    }
    case "add-prompt": {
      const { name, notify } = request.params.arguments;
      prompts.push({ name, description: `Added while running: ${name}.` });
      if (notify) await server.sendPromptListChanged();
      return text({ added: name, notified: !!notify });
    }
    case "add-resource": {
      const { name, notify } = request.params.arguments;
      resources.push({ uri: `odd://${name}`, name, mimeType: "text/plain" });
      if (notify) await server.sendResourceListChanged();
      return text({ added: name, notified: !!notify });
    }
    case "bad-weather": {
      const value = { temperature: "warm", conditions: "sunny" };
      return { ...text(value), structuredContent: value };
    }
    case "good-weather": {
      const value = { temperature: 21.5, conditions: "sunny" };
      return { ...text(value), structuredContent: value };
    }
    case "silent-weather":
      return text({ temperature: 1 });
    default:
      if (added.some((t) => t.name === request.params.name)) return text({ ran: request.params.name });
      throw new Error(`unknown tool ${request.params.name}`);
  }
});

await server.connect(new StdioServerTransport());
