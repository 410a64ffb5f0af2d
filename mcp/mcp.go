package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/tools"
)

// ServerName is the MCP server name cos announces.
const ServerName = "cos"

// Options configure a Server.
type Options struct {
	// Version is announced in the initialize result.
	Version string
	// Budget is the envelope budget every answer is trimmed to (the agent
	// budget; the zero value is the default budget).
	Budget envelope.Options
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
	// Tools is the tool profile tools/list shows (ProfileCore,
	// ProfileDefault, ProfileAll; "" is ProfileDefault). The tools it
	// leaves out stay callable and are named in the instructions.
	Tools string
}

// Server speaks MCP for one tools.Runner: over stdio (ServeStdio) or
// streamable HTTP (Mount).
type Server struct {
	r      *tools.Runner
	opts   Options
	logger *slog.Logger
	// live holds the resource subscriptions and module switches shared by
	// the servers MCP builds (resources.go).
	live liveState
}

// New returns an MCP server over r.
func New(r *tools.Runner, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{r: r, opts: opts, logger: opts.Logger}
	s.live.profile = profileListed(opts.Tools)
	return s
}

// call runs one tool with the agent budget.
func (s *Server) call(ctx context.Context, name string, raw json.RawMessage) envelope.Envelope {
	return s.r.Call(ctx, name, raw, s.opts.Budget)
}

// MCP builds the mcp-go server exposing every tool. Each handler returns the
// envelope as structuredContent and as text, with isError set on failure;
// it never returns a Go error (which mcp-go would turn into a JSON-RPC
// error).
func (s *Server) MCP() *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer(ServerName, s.opts.Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithInstructions(instructions+unlistedText(s.r.Tools(), s.live.profile)),
	)
	for _, t := range s.r.Tools() {
		tool := toolOf(t)
		name := t.Name
		srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, err := json.Marshal(req.GetRawArguments())
			if err != nil {
				raw = []byte("null")
			}
			ctx, stopProgress := startProgress(ctx, srv, req)
			env := s.call(callerContext(ctx), name, raw)
			stopProgress()
			if clientCancelled(ctx) {
				return cancelledResult(), nil // dropped on its way out: no answer
			}
			return resultOf(env), nil
		})
	}
	s.setupLive(srv)
	return srv
}

// resultOf wraps an envelope as an MCP tool result: its JSON as the text
// content and as structuredContent, isError from the envelope itself (not
// from parsing its bytes again).
func resultOf(env envelope.Envelope) *mcp.CallToolResult {
	b := env.JSON()
	return &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.NewTextContent(string(b))},
		RawStructuredContent: json.RawMessage(b),
		IsError:              !env.OK(),
	}
}

// toolCall is the part of a JSON-RPC request the unknown-tool filter reads.
type toolCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name string `json:"name"`
	} `json:"params"`
}

// unknownToolResponse answers a tools/call for a name no tool has with a
// tool result (isError, E_UNKNOWN_TOOL listing the nearest names) instead of
// mcp-go's JSON-RPC error; it returns nil for any other message.
//
// session is the MCP session the line belongs to ("stdio" on stdio, the
// Mcp-Session-Id header on HTTP, "" before initialize).
func (s *Server) unknownToolResponse(session string, line []byte) []byte {
	if resp := s.undecodableResponse(line); resp != nil {
		return resp
	}
	if resp := s.liveResponse(session, line); resp != nil {
		return resp
	}
	if !bytes.Contains(line, []byte(`"tools/call"`)) {
		return nil
	}
	var m toolCall
	if json.Unmarshal(line, &m) != nil || m.Method != "tools/call" || len(m.ID) == 0 {
		return nil
	}
	if s.r.Has(m.Params.Name) {
		return nil
	}
	res := resultOf(s.call(context.Background(), m.Params.Name, nil))
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	if err != nil {
		return nil
	}
	return out
}
