// A small MCP server for the bridge's tests only (never shipped): it does what
// server-everything does not — asks for sampling whatever the client advertised, and returns
// structured content that breaks its own output schema — so the bridge's answers to both can
// be checked.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
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
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "ask-for-sampling",
      description: "Sends sampling/createMessage to the client and reports what came back.",
      inputSchema: { type: "object", properties: {} },
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
      throw new Error(`unknown tool ${request.params.name}`);
  }
});

await server.connect(new StdioServerTransport());
