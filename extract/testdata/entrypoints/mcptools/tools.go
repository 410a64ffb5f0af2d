// Package mcptools registers MCP tools with mcp-go.
package mcptools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func add(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }

// Server builds the server.
func Server() *server.MCPServer {
	s := server.NewMCPServer("calc", "1.0.0")
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("adds")), add)
	echo := mcp.NewTool("echo")
	s.AddTool(echo, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	return s
}
