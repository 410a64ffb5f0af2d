import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "demo", version: "1.0.0" });

server.tool("add", { a: 1 }, add);
server.registerTool("echo", { description: "echo" }, async ({ text }: any) => ({ content: [] }));

async function add() {
  return { content: [] };
}
