package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/tools"
)

// ServerName is the MCP server name cos announces.
const ServerName = "cos"

// maxMessageBytes bounds one JSON-RPC message on stdio.
const maxMessageBytes = 64 << 20

// Options configure a Server.
type Options struct {
	// Version is announced in the initialize result.
	Version string
	// Budget is the envelope budget every answer is trimmed to (the agent
	// budget; the zero value is the default budget).
	Budget envelope.Options
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
}

// Server speaks MCP for one tools.Runner: over stdio (ServeStdio) or
// streamable HTTP (Mount).
type Server struct {
	r      *tools.Runner
	opts   Options
	logger *slog.Logger
}

// New returns an MCP server over r.
func New(r *tools.Runner, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{r: r, opts: opts, logger: opts.Logger}
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
		mcpserver.WithInstructions("cos answers about this repository's code/doc graph, its task board and agent evidence. "+
			"Every answer is an envelope {ok, data{…, meta}} or {ok:false, error{category, retryable, message, code, details}}. "+
			"Start with cos_graph_resolve to find a node's uid."),
	)
	for _, t := range s.r.Tools() {
		tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema())
		for _, opt := range []mcp.ToolOption{
			mcp.WithRawOutputSchema(tools.OutputSchema),
			mcp.WithReadOnlyHintAnnotation(t.ReadOnly),
			mcp.WithDestructiveHintAnnotation(t.Destructive),
			mcp.WithIdempotentHintAnnotation(t.Idempotent || t.ReadOnly),
			mcp.WithOpenWorldHintAnnotation(false),
		} {
			opt(&tool)
		}
		name := t.Name
		srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, err := json.Marshal(req.GetRawArguments())
			if err != nil {
				raw = []byte("null")
			}
			return resultOf(s.call(ctx, name, raw).JSON()), nil
		})
	}
	return srv
}

// resultOf wraps an envelope's JSON as an MCP tool result.
func resultOf(env []byte) *mcp.CallToolResult {
	var probe struct {
		OK bool `json:"ok"`
	}
	_ = json.Unmarshal(env, &probe)
	return &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.NewTextContent(string(env))},
		RawStructuredContent: json.RawMessage(env),
		IsError:              !probe.OK,
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
func (s *Server) unknownToolResponse(line []byte) []byte {
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
	res := resultOf(s.call(context.Background(), m.Params.Name, nil).JSON())
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	if err != nil {
		return nil
	}
	return out
}

// lockedWriter serialises whole-message writes from mcp-go and the filter.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// ServeStdio speaks MCP over in/out (newline-delimited JSON-RPC) until ctx
// ends or in closes. Tool calls run concurrently. Nothing but MCP messages
// is ever written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the filter: answer unknown tools ourselves, pass the rest on
		defer wg.Done()
		defer pw.Close()
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), maxMessageBytes)
		for sc.Scan() {
			line := sc.Bytes()
			if resp := s.unknownToolResponse(line); resp != nil {
				_, _ = w.Write(append(resp, '\n'))
				continue
			}
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		if err := sc.Err(); err != nil {
			s.logger.Error("stdio: read failed", "err", err)
		}
		cancel()
	}()
	stdio := mcpserver.NewStdioServer(s.MCP())
	stdio.SetErrorLogger(newStdLogger(s.logger))
	err := stdio.Listen(ctx, pr, w)
	pr.Close()
	wg.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Path is where Mount serves MCP over streamable HTTP.
const Path = "/mcp"

// Mount serves MCP over streamable HTTP at Path on mux. token, when set, is
// required as "Authorization: Bearer <token>".
func (s *Server) Mount(mux *http.ServeMux, token string) {
	streamable := mcpserver.NewStreamableHTTPServer(s.MCP(), mcpserver.WithEndpointPath(Path))
	mux.Handle(Path, s.httpFilter(token, streamable))
}

// httpFilter checks the bearer token and answers unknown tools like the
// stdio filter does.
func (s *Server) httpFilter(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxMessageBytes))
			if err != nil {
				http.Error(w, "read body", http.StatusBadRequest)
				return
			}
			if resp := s.unknownToolResponse(body); resp != nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(resp)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}
