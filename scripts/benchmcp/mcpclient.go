package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// protocolVersion is the MCP revision the client announces.
const protocolVersion = "2025-06-18"

// closeGrace is how long Close waits for a server to exit after its stdin
// closes before killing it.
const closeGrace = 5 * time.Second

// errClosed is returned by calls on a client whose server has exited.
var errClosed = errors.New("mcp server closed its stdout")

// Server is how to start one MCP server over stdio: argv, extra
// environment ("K=V") and the working folder (empty: inherit).
type Server struct {
	Argv []string
	Env  []string
	Dir  string
}

// Client drives one MCP server process over stdio: newline-delimited
// JSON-RPC 2.0, one request in flight per caller, any number of callers.
type Client struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan rpcResponse
	readErr error
	done    chan struct{} // closed when the reader goroutine ends
}

type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type rpcResponse struct {
	ID     *int64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	// Bytes is the length of the response line, for reporting transfer size.
	Bytes int `json:"-"`
}

// ToolResult is the part of a tools/call result the workloads read.
type ToolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	// Bytes is the size of the whole JSON-RPC response line.
	Bytes int `json:"-"`
}

// Text is the concatenated text content.
func (r ToolResult) Text() string {
	s := ""
	for _, c := range r.Content {
		s += c.Text
	}
	return s
}

// Start launches the server, performs the initialize handshake and returns
// a ready client. The server's stderr goes to stderr (prefixed lines are
// not worth the goroutine).
func Start(ctx context.Context, s Server) (*Client, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("start: empty argv")
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Dir = s.Dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Argv[0], err)
	}
	c := &Client{cmd: cmd, stdin: stdin, pending: map[int64]chan rpcResponse{}, done: make(chan struct{})}
	go c.readLoop(stdout)
	init := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "benchmcp", "version": "1"},
	}
	if _, err := c.request(ctx, "initialize", init); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize %s: %w", s.Argv[0], err)
	}
	if err := c.send(rpcRequest{JSONRPC: "2.0", Method: "notifications/initialized"}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// readLoop hands each response line to the caller waiting for its id;
// notifications and server requests are ignored.
func (c *Client) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var line []byte
		line, err = br.ReadBytes('\n')
		if len(line) > 0 {
			var resp rpcResponse
			if json.Unmarshal(line, &resp) == nil && resp.ID != nil {
				resp.Bytes = len(line)
				c.mu.Lock()
				ch := c.pending[*resp.ID]
				delete(c.pending, *resp.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- resp
				}
			}
		}
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		err = errClosed
	}
	c.mu.Lock()
	c.readErr = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *Client) send(req rpcRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(append(b, '\n'))
	return err
}

// request sends one JSON-RPC request and waits for its response.
func (c *Client) request(ctx context.Context, method string, params any) (rpcResponse, error) {
	ch := make(chan rpcResponse, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return rpcResponse{}, err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(rpcRequest{JSONRPC: "2.0", ID: &id, Method: method, Params: params}); err != nil {
		return rpcResponse{}, err
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return rpcResponse{}, errClosed
		}
		if resp.Error != nil {
			return resp, fmt.Errorf("%s: rpc error %d: %s", method, resp.Error.Code, resp.Error.Message)
		}
		return resp, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return rpcResponse{}, ctx.Err()
	}
}

// Call runs one tool. A tool-level failure is a result with IsError set,
// not an error; err is a transport or protocol failure.
func (c *Client) Call(ctx context.Context, tool string, args any) (ToolResult, error) {
	resp, err := c.request(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return ToolResult{}, err
	}
	var tr ToolResult
	if err := json.Unmarshal(resp.Result, &tr); err != nil {
		return ToolResult{}, fmt.Errorf("%s: decode result: %w", tool, err)
	}
	tr.Bytes = resp.Bytes
	return tr, nil
}

// MustOK runs one tool and turns a tool-level failure into an error.
func (c *Client) MustOK(ctx context.Context, tool string, args any) (ToolResult, error) {
	tr, err := c.Call(ctx, tool, args)
	if err == nil && tr.IsError {
		err = fmt.Errorf("%s failed: %.400s", tool, tr.Text())
	}
	return tr, err
}

// PID is the server's process id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Close closes the server's stdin, waits up to closeGrace for it to close
// its stdout, kills it if it has not, and reaps it.
func (c *Client) Close() {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(closeGrace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = c.cmd.Wait()
}
