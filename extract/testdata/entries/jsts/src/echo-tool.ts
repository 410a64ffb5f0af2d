import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const name = "echo_tool";

export const registerEchoTool = (server: McpServer) => {
  server.registerTool(name, { title: "Echo" }, async (args: any) => ({ content: [] }));
};
