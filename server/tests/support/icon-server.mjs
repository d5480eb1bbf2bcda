// A stdio MCP server for the bridge's icon tests only (never shipped): its own icon and a
// tool's point at the http:// origin given as its first argument, another tool's at a file;
// one tool's icon is inline (`data:`). The bridge fetches no icon of a stdio server, so the
// origin's request log must stay empty.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const elsewhere = process.argv[2];
// A PNG of one pixel.
const png =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const server = new Server(
  {
    name: "icon-server",
    version: "1.0.0",
    icons: [{ src: `${elsewhere}/server.png`, mimeType: "image/png" }],
  },
  { capabilities: { tools: {} } },
);

const schema = { type: "object", properties: {} };
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "far", description: "Its icon is on another origin.", inputSchema: schema, icons: [{ src: `${elsewhere}/tool.png` }] },
    { name: "on-disk", description: "Its icon is a file.", inputSchema: schema, icons: [{ src: "file:///etc/hosts" }] },
    { name: "inline", description: "Its icon is inline.", inputSchema: schema, icons: [{ src: `data:image/png;base64,${png}` }] },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "ok" }] }));

await server.connect(new StdioServerTransport());
