package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/evidence"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/tools/envelope"
)

// requestIDExample is the corrected example of an E_REQUEST_ID message.
const requestIDExample = `{"request_id": "task-create-7f3a"}`

// requestIDParam is the optional request_id argument of every write tool of
// the tasks, evidence and metrics modules (seed 002 "Safe CAS sequence").
var requestIDParam = Param{Name: "request_id", Type: TString,
	Description: "1–128 characters; makes the write idempotent: a resend with the same request_id and the same " +
		"arguments answers the original write and writes nothing; changed arguments under it are E_REQUEST_REUSE"}

// requestIDOfCall returns the call's request_id ("" when none was sent). An
// explicitly sent id that eventlog.ValidateRequestID refuses — empty, only
// whitespace, longer than 128 characters, with control characters — is
// E_REQUEST_ID (seed 002 "Nonempty request_id required"): leaving the
// argument out is how a caller asks for no idempotency. Every write tool
// that takes a request_id validates it here, so the code is always the same.
func requestIDOfCall(c *Call) (string, error) {
	if !c.Args.Has("request_id") {
		return "", nil
	}
	id := c.Args.Str("request_id")
	if err := eventlog.ValidateRequestID(id); err != nil {
		got := fmt.Sprintf("%q", id)
		if n := utf8.RuneCountInString(id); n > eventlog.MaxRequestIDLen {
			got = fmt.Sprintf("a string of %d characters", n)
		}
		return "", envelope.Wrap(err, envelope.CodeRequestID,
			"Nonempty request_id required: request_id: got %s, expected 1–%d characters without control characters, "+
				"or leave request_id out; example: %s", got, eventlog.MaxRequestIDLen, requestIDExample).
			WithDetails(map[string]any{"field": "request_id", "got": got, "example": json.RawMessage(requestIDExample)})
	}
	return id, nil
}

// freshView brings the projections up to the log head and runs fn inside a
// view of them, recording the view's position as the answer's log_seq.
// Write tools use it for the reads that precede their append.
func freshView(ctx context.Context, c *Call, fn func()) error {
	if err := c.S.tailer.Fresh(ctx); err != nil {
		return err
	}
	c.S.tailer.View(func(pos projections.Position) {
		c.Pos = pos
		fn()
	})
	return nil
}

// domainTool wraps a handler of the tasks, evidence or metrics tools so that
// the domain packages' errors reach the agent with their seed-002 codes;
// every other error goes on to ToEnvelopeError unchanged.
func domainTool(h Handler) Handler {
	return func(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
		data, tm, err := h(ctx, c)
		if err != nil {
			if de := domainError(err); de != nil {
				return nil, tm, de
			}
		}
		return data, tm, err
	}
}

// domainError maps the errors of projections/tasks, evidence and
// projections/metrics to envelope errors, or returns nil for any other
// error:
//
//	*tasks.ArgumentError, *metrics.ArgumentError  E_ARGUMENT (field, got, legal, example)
//	*tasks.CycleError                             E_ARGUMENT naming the cycle
//	*tasks.CursorError                            E_CURSOR
//	*tasks.StaleCursorError                       STALE_CURSOR
//	*tasks.NotFoundError, metrics.ErrNotFound,
//	evidence.ErrNotFound                          E_NOT_FOUND
//	*tasks.ClaimedError                           STALE_REVISION (category conflict) naming the holder
//	evidence session, role, kind, output errors   E_ARGUMENT
func domainError(err error) *envelope.Error {
	var (
		envErr  *envelope.Error
		targ    *tasks.ArgumentError
		tfield  *tasks.FieldError
		marg    *metrics.ArgumentError
		cycle   *tasks.CycleError
		curs    *tasks.CursorError
		stale   *tasks.StaleCursorError
		tnf     *tasks.NotFoundError
		claimed *tasks.ClaimedError
		outErr  *evidence.OutputError
	)
	switch {
	case errors.As(err, &envErr):
		return nil // already an envelope error
	case errors.As(err, &targ):
		fields := make([]string, len(targ.Fields))
		example := ""
		for i, f := range targ.Fields {
			fields[i] = f.Field
			if example == "" {
				example = f.Example
			}
		}
		d := map[string]any{"fields": targ.Fields}
		if len(fields) > 0 {
			d["field"] = fields[0]
			d["got"] = targ.Fields[0].Got
			d["expected"] = targ.Fields[0].Legal
		}
		if example != "" {
			d["example"] = json.RawMessage(example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &tfield):
		d := map[string]any{"field": tfield.Field, "got": tfield.Got, "expected": tfield.Legal}
		if tfield.Example != "" {
			d["example"] = json.RawMessage(tfield.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &marg):
		d := map[string]any{"field": marg.Field, "got": marg.Got, "expected": marg.Legal}
		if marg.Example != "" {
			d["example"] = json.RawMessage(marg.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.As(err, &cycle):
		example := cycleExample(cycle)
		return envelope.Wrap(err, envelope.CodeArgument,
			"%s: the change would close a dependency cycle %s; leave out one of these links; example: %s",
			cycle.Relation, strings.Join(cycle.Cycle, " → "), example).
			WithDetails(map[string]any{"field": cycle.Relation, "cycle": cycle.Cycle, "example": json.RawMessage(example)})
	case errors.As(err, &curs):
		return envelope.Wrap(err, envelope.CodeCursor,
			"Invalid board cursor (%s); list again without cursor to get a fresh one", curs.Reason).
			WithDetails(map[string]any{"field": "cursor", "reason": curs.Reason})
	case errors.As(err, &stale):
		d := map[string]any{"reason": stale.Reason}
		if stale.TaskID != "" {
			d["task_id"] = stale.TaskID
		}
		return envelope.Wrap(err, envelope.CodeStaleCursor,
			"The board changed since this cursor (%s); list again without cursor", stale.Reason).WithDetails(d)
	case errors.As(err, &tnf):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; list the board with cos_task_board", err.Error()).
			WithDetails(map[string]any{"field": tnf.Field, "task_id": tnf.TaskID})
	case errors.As(err, &claimed):
		return envelope.Wrap(err, envelope.CodeStaleRevision,
			"%s is claimed by %q; only the holder can work it (ask them to release it, or pick another task)",
			claimed.TaskID, claimed.Holder).
			WithDetails(map[string]any{"task_id": claimed.TaskID, "holder": claimed.Holder,
				"current_revision": claimed.Revision, "current_hash": claimed.Hash})
	case errors.As(err, &outErr):
		d := map[string]any{"kind": outErr.Kind, "output_class": outErr.Class, "problems": outErr.Problems, "field": "output"}
		if outErr.Role != "" {
			d["role"] = outErr.Role
		}
		if json.Valid([]byte(outErr.Example)) {
			d["example"] = json.RawMessage(outErr.Example)
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s", err.Error()).WithDetails(d)
	case errors.Is(err, evidence.ErrInvalidSession):
		return envelope.Wrap(err, envelope.CodeArgument,
			"session_id: %s; expected 1–%d characters of A–Z a–z 0–9 . _ - not starting with \".\"; example: %s",
			err.Error(), evidence.MaxSessionLen, recordExample).
			WithDetails(map[string]any{"field": "session_id", "example": json.RawMessage(recordExample)})
	case errors.Is(err, evidence.ErrUnknownRole), errors.Is(err, evidence.ErrUnknownKind):
		field := "role"
		if errors.Is(err, evidence.ErrUnknownKind) {
			field = "kind"
		}
		return envelope.Wrap(err, envelope.CodeArgument, "%s: %s; example: %s", field, err.Error(), recordExample).
			WithDetails(map[string]any{"field": field, "example": json.RawMessage(recordExample)})
	case errors.Is(err, evidence.ErrNotFound):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; record an output with cos_supervise_record_output first", err.Error())
	case errors.Is(err, metrics.ErrNotFound):
		return envelope.Wrap(err, envelope.CodeNotFound, "%s; record a point with cos_metric_record first", err.Error())
	}
	return nil
}

// joinQuoted renders a list of legal values: "a", "b", "c".
func joinQuoted(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// cycleExample is a corrected update for a refused cycle: the task of the
// cycle's first element without the link that closed it.
func cycleExample(e *tasks.CycleError) string {
	id := "TASK-001"
	if len(e.Cycle) > 0 {
		id = e.Cycle[0]
	}
	patch := `{"depends_on": []}`
	if e.Relation == "parent" {
		patch = `{"parent": ""}`
	}
	return fmt.Sprintf(`{"task_id": %q, "patch": %s}`, id, patch)
}
