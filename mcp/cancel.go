package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Cancellation: notifications/cancelled for a running tools/call cancels
// its context (mcp-go does that); the tool stops and the request gets no
// answer at all, as the MCP specification asks. mcp-go answers every
// tools/call its handler returns from, so the handler returns a result
// carrying cancelMarker in its _meta and the transports drop the message
// that carries it: stdio's writer, and over HTTP the response writer of
// the request's POST (a JSON answer becomes 202 Accepted with no body; on
// an event stream the answer's event is left out).
//
// The marker is random per process and never leaves it, so no text of an
// answer (a task title, a file) can imitate it.
var cancelMarker = func() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "cos-cancelled-" + hex.EncodeToString(b)
}()

// cancelMarkerKey is the _meta key of a cancelled call's result.
const cancelMarkerKey = "cos/cancelled"

// sessionCtxKey carries the context of the session (the stdio server's):
// when it has ended the server is shutting down, and a call cancelled by
// that is answered like any other.
type sessionCtxKey struct{}

// clientCancelled reports whether ctx ended because the client cancelled
// the request: cancelled (not past a deadline of the server's) while the
// session goes on.
func clientCancelled(ctx context.Context) bool {
	if ctx.Err() == nil || !errors.Is(context.Cause(ctx), context.Canceled) {
		return false
	}
	if sctx, ok := ctx.Value(sessionCtxKey{}).(context.Context); ok && sctx.Err() != nil {
		return false
	}
	return true
}

// cancelledResult is the result of a cancelled call, dropped on its way
// out.
func cancelledResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{cancelMarkerKey: cancelMarker}}}}
}

// carriesCancelMarker reports whether a message written out is the answer
// of a cancelled call.
func carriesCancelMarker(p []byte) bool {
	return bytes.Contains(p, []byte(cancelMarker))
}

// dropCancelled writes every message but the answers of cancelled calls.
// mcp-go writes one message per Write.
type dropCancelled struct{ w io.Writer }

func (d dropCancelled) Write(p []byte) (int, error) {
	if carriesCancelMarker(p) {
		return len(p), nil
	}
	return d.w.Write(p)
}

// cancelAwareWriter is the response writer of one HTTP POST: it holds back
// a JSON answer's status until its body shows whether it is a cancelled
// call's (then 202 Accepted, no body, as for a notification), and leaves
// such an answer's event out of an event stream.
type cancelAwareWriter struct {
	http.ResponseWriter
	status  int  // held back: 0 when none is
	written bool // the status went out
}

func (c *cancelAwareWriter) WriteHeader(code int) {
	if c.written || c.status != 0 {
		return
	}
	if strings.HasPrefix(c.Header().Get("Content-Type"), "application/json") {
		c.status = code
		return
	}
	c.written = true
	c.ResponseWriter.WriteHeader(code)
}

func (c *cancelAwareWriter) Write(p []byte) (int, error) {
	if carriesCancelMarker(p) {
		if c.status != 0 && !c.written {
			c.Header().Del("Content-Type")
			c.status, c.written = 0, true
			c.ResponseWriter.WriteHeader(http.StatusAccepted)
		}
		return len(p), nil
	}
	c.flushStatus()
	return c.ResponseWriter.Write(p)
}

// flushStatus sends a held-back status.
func (c *cancelAwareWriter) flushStatus() {
	if c.status != 0 && !c.written {
		c.written = true
		c.ResponseWriter.WriteHeader(c.status)
		c.status = 0
	}
}

func (c *cancelAwareWriter) Flush() {
	if c.status != 0 {
		return // a JSON answer is not flushed before its body
	}
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *cancelAwareWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
