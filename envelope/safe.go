package envelope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// CallInfo identifies one tool call for the forensic log. It carries the
// size of the arguments, never the arguments themselves.
type CallInfo struct {
	// Tool is the tool name, e.g. "cos_graph_context".
	Tool string
	// RequestID is the MCP request id (or the caller's request_id), if any.
	RequestID string
	// ArgBytes is the size of the raw arguments, in bytes.
	ArgBytes int
}

// DatabasePather is implemented by storage errors that know which database
// file the failing handle had open. Safe looks for it with errors.As and
// logs the path as db_path in the forensic log (docs/envelope.md, failures
// the wrapper produces).
type DatabasePather interface {
	DatabasePath() string
}

// Handler is a tool body run by Safe. It returns the envelope it built (OK or
// Fail), or an error: an *Error becomes its failure envelope, anything else
// an E_INTERNAL one.
type Handler func(ctx context.Context) (Envelope, error)

// Safe runs fn and guarantees an envelope comes back:
//
//   - a panic becomes an E_INTERNAL failure with a short message and no
//     stack;
//   - a returned error becomes Fail(err) (AsError's mapping);
//   - a zero Envelope with no error becomes E_INTERNAL (ErrNoEnvelope).
//
// Every internal-category failure writes one forensic JSON line, level ERROR,
// to log: msg "tool failed" with tool, request_id, arg_bytes, pid,
// goroutine, kind ("panic" or "error"), code, error (full text) and stack;
// plus db_path when a DatabasePather is in the error chain. A success
// envelope marked envelope_unshrinkable writes one ERROR line (no stack)
// naming the tool. log may be nil (nothing is written). fn runs on the
// calling goroutine.
func Safe(ctx context.Context, call CallInfo, log *slog.Logger, fn Handler) (env Envelope) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		stack := debug.Stack()
		var cause error
		if rerr, ok := r.(error); ok {
			cause = fmt.Errorf("%w: %w", ErrPanic, rerr)
		} else {
			cause = fmt.Errorf("%w: %v", ErrPanic, r)
		}
		e := Wrap(cause, CodeInternal, "%s", internalMessage)
		writeForensic(ctx, log, call, "panic", e, stack)
		env = Fail(e)
	}()
	env, err := fn(ctx)
	switch {
	case err != nil:
		e := AsError(err)
		if e.Category == CategoryInternal {
			writeForensic(ctx, log, call, "error", e, debug.Stack())
		}
		return Fail(e)
	case env.IsZero():
		e := Wrap(ErrNoEnvelope, CodeInternal, "%s", internalMessage)
		writeForensic(ctx, log, call, "error", e, debug.Stack())
		return Fail(e)
	case !env.OK():
		if e := env.Err(); e.Category == CategoryInternal {
			writeForensic(ctx, log, call, "error", e, debug.Stack())
		}
	case env.Meta()[KeyUnshrinkable] == true && log != nil:
		log.LogAttrs(ctx, slog.LevelError, "envelope unshrinkable",
			slog.String("tool", call.Tool),
			slog.String("request_id", call.RequestID),
			slog.Int("pid", os.Getpid()),
			slog.Int("response_bytes", len(env.JSON())),
		)
	}
	return env
}

func writeForensic(ctx context.Context, log *slog.Logger, call CallInfo, kind string, e *Error, stack []byte) {
	if log == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("tool", call.Tool),
		slog.String("request_id", call.RequestID),
		slog.Int("arg_bytes", call.ArgBytes),
		slog.Int("pid", os.Getpid()),
		slog.Uint64("goroutine", goroutineID()),
		slog.String("kind", kind),
		slog.String("code", string(e.Code)),
		slog.String("error", e.Error()),
		slog.String("stack", string(stack)),
	}
	var dp DatabasePather
	if errors.As(e, &dp) {
		attrs = append(attrs, slog.String("db_path", dp.DatabasePath()))
	}
	log.LogAttrs(ctx, slog.LevelError, "tool failed", attrs...)
}

// goroutineID parses the id of the calling goroutine from the first line of
// its stack, "goroutine 123 [running]:". It is for the log only.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseUint(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return 0
}
