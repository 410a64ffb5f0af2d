package mcp

import (
	"context"
	"errors"
	"io"
	"runtime/debug"
	"sync"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// lockedWriter serialises whole-message writes from mcp-go and the filter.
type lockedWriter struct {
	mu sync.Mutex // guards writes to w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// ServeStdio speaks MCP over in/out (newline-delimited JSON-RPC) until ctx
// ends or in reaches its end. Tool calls run concurrently. Nothing but MCP
// messages is ever written to out.
//
// A line longer than MaxMessageBytes is read to its end in bounded memory,
// answered with a JSON-RPC error (code -32600, data {size_bytes,
// limit_bytes}; the message's id when it can be recovered, else null) and
// skipped; the session goes on.
//
// When ctx ends, the calls in flight are cancelled, ServeStdio waits for
// them to answer and returns nil. It does not wait for a read from in that
// is blocked at that moment (a read from a pipe cannot be interrupted): that
// read ends at in's next line or end. A read error on in is returned.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	filtered := make(chan struct{})
	go func() { // the filter: answer unknown tools and oversized lines ourselves, pass the rest on
		err := s.filter(in, pw, w)
		close(filtered)
		_ = pw.CloseWithError(err) // nil: mcp-go reads io.EOF
	}()
	stdio := mcpserver.NewStdioServer(s.MCP())
	stdio.SetErrorLogger(newStdLogger(s.logger))
	session := ctx
	stdio.SetContextFunc(func(ctx context.Context) context.Context { // progress.go, cancel.go
		return context.WithValue(context.WithValue(ctx, stdioOutKey{}, io.Writer(w)), sessionCtxKey{}, session)
	})
	err := stdio.Listen(ctx, pr, dropCancelled{w})
	_ = pr.Close() // unblocks a write the filter has pending
	select {
	case <-filtered:
	default: // the filter is blocked reading in; see the doc comment
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// filter reads lines from in until its end. It answers a call to an unknown
// tool and a line over MaxMessageBytes itself (on w) and passes every other
// line to mcp-go through pw. It returns nil at in's end or once mcp-go has
// stopped reading, and a read error otherwise.
func (s *Server) filter(in io.Reader, pw *io.PipeWriter, w io.Writer) error {
	lr := newLineReader(in, MaxMessageBytes)
	for {
		line, over, err := lr.next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			s.logger.Error("stdio: read failed", "err", err)
			return err
		case over != nil:
			s.logger.Warn("stdio: a message over the size limit was skipped", "bytes", over.Size, "limit_bytes", MaxMessageBytes)
			// Up to MaxMessageBytes were buffered before the line proved
			// too long; hand them back now rather than let repeated
			// oversized lines pile up garbage (this is rare, and a GC is
			// cheap next to reading 64 MiB).
			debug.FreeOSMemory()
			if _, err := w.Write(append(oversizedResponse(over, MaxMessageBytes), '\n')); err != nil {
				return nil
			}
			continue
		}
		if resp := s.unknownToolResponse(stdioSessionID, line); resp != nil {
			_, _ = w.Write(append(resp, '\n'))
			continue
		}
		// io.Pipe hands the bytes over before Write returns, so line's
		// buffer may be reused afterwards.
		if _, err := pw.Write(line); err != nil {
			return nil
		}
		if _, err := pw.Write([]byte{'\n'}); err != nil {
			return nil
		}
	}
}

// stdioSessionID is the session id mcp-go gives the one stdio session.
const stdioSessionID = "stdio"
