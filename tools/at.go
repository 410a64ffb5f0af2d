package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// Time travel: every read tool takes `at`, a log seq or an RFC 3339 time,
// and answers from the state at that point (state.State.Past, cached by
// seq) exactly as `cos call --at` does, with meta.at_seq. Write tools
// refuse it.

// atParamName is the argument every read tool accepts.
const atParamName = "at"

// atExpected is what a legal `at` is, for its errors.
const atExpected = "a log seq (an integer ≥ 0) or an RFC 3339 time such as 2026-11-30T12:00:00Z"

// atParam is the one definition of `at`, added to every read tool. Its
// schema is its types only: the server's instructions say once what it
// means for every read tool.
var atParam = Param{Name: atParamName, Type: TJSON, JSONTypes: []string{"integer", "string"}}

// acceptsAt reports whether t answers from a past state: a read tool that
// runs in one view.
func acceptsAt(t *Tool) bool { return t.ReadOnly }

// withAt adds `at` to every tool that accepts it.
func withAt(all []*Tool) []*Tool {
	for _, t := range all {
		if acceptsAt(t) {
			if _, ok := t.param(atParamName); !ok {
				t.Params = append(t.Params, atParam)
			}
		}
	}
	return all
}

// refuseAt is E_ARGUMENT naming `at` when a tool that does not accept it
// (it writes, or refreshes the graph first) was sent one; nil otherwise.
func refuseAt(t *Tool, raw json.RawMessage) *envelope.Error {
	if acceptsAt(t) || (!bytes.Contains(raw, []byte(`"at"`)) && !bytes.Contains(raw, []byte(`\u`))) {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil // parseArgs says what is wrong with it
	}
	v, ok := obj[atParamName]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	why := "it writes to the log, and the past cannot be changed"
	if t.WritesOnlyToRefresh {
		why = "it brings the graph up to date with the files first, which only the live state can do"
	}
	msg := fmt.Sprintf("at: %s does not take at: %s; leave at out (read tools such as cos_task_get take it)", t.Name, why)
	if t.Example != "" {
		msg += "; example: " + t.Example
	}
	d := map[string]any{"field": atParamName, "got": describe(v), "expected": "no at: " + t.Name + " acts on the live state",
		"accepted_arguments": t.paramNames()}
	if t.Example != "" {
		d["example"] = json.RawMessage(t.Example)
	}
	return envelope.Errorf(envelope.CodeArgument, "%s", msg).WithDetails(d)
}

// parseAt reads the raw `at` argument: a whole number ≥ 0 (a seq; 0 is
// the empty state, before the first event), a string of digits (the
// same), or an RFC 3339 time.
func parseAt(t *Tool, raw json.RawMessage) (projections.Until, *envelope.Error) {
	bad := func(got string) *envelope.Error { return argError(t, atParamName, got, atExpected) }
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return projections.Until{}, bad(describe(raw))
		}
		s = strings.TrimSpace(s)
		if n, err := strconv.ParseUint(s, 10, 64); err == nil && n <= 1<<53 {
			return untilSeq(n), nil
		}
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return projections.Until{}, bad(describe(raw))
		}
		// Year 1 is Go's zero time, which Until reads as no bound: any
		// time up to 1970 is before every event, the state at seq 0.
		if !tm.After(atZero.Time) {
			return atZero, nil
		}
		return projections.Until{Time: tm}, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return projections.Until{}, bad(describe(raw))
	}
	return untilSeq(uint64(f)), nil
}

// untilSeq is the bound of seq n; seq 0, which Until would read as no
// bound, is kept apart by atZero.
func untilSeq(n uint64) projections.Until {
	if n == 0 {
		return atZero
	}
	return projections.Until{Seq: n}
}

// atZero stands for `at: 0`, the state before the first event: every
// event's commit time is after it.
var atZero = projections.Until{Time: time.Unix(0, 0).UTC()}

// readAt runs the read tool of c in the state at its `at` argument: a
// cached point-in-time view (state.State.Past), no read-your-edits (the
// past is the past: meta.index is the index as that graph recorded it).
// rerr is a failure of the call (a bad `at`, the view could not be
// built); err is the handler's.
//
// A cursor sent with `at` must read at the same seq (its walk's), or the
// call is E_ARGUMENT saying so.
func (r *Runner) readAt(ctx context.Context, c *Call) (data any, tm envelope.ToolMeta, err, rerr error) {
	until, aerr := parseAt(c.Tool, c.Args.Raw(atParamName))
	if aerr != nil {
		return nil, tm, nil, aerr
	}
	seq, head, err := r.st.SeqAt(ctx, until)
	if err != nil {
		return nil, tm, nil, err
	}
	if cs, ok := cursorSeq(c.Tool, c.Args); ok && cs != seq {
		return nil, tm, nil, atCursorError(c.Tool, cs, seq)
	}
	if data, tm, err, rerr = r.readAtSeq(ctx, c, seq); rerr != nil || err != nil {
		if ee := ToEnvelopeError(err); err != nil && ee.Code == envelope.CodeNotFound {
			// What is missing at seq may exist later: say which state
			// answered, or it reads as if it never existed.
			cp := *ee // a copy: the error may be shared
			cp.Message += fmt.Sprintf(" (in the state at log seq %d, of %d; without at the answer is the live state)", seq, head)
			err = &cp
		}
		return data, tm, err, rerr
	}
	if until.Seq > head {
		c.Warn(fmt.Sprintf("at: seq %d is past the log head %d; this answer is the state at %d", until.Seq, head, head))
	}
	if now := time.Now(); until.Seq == 0 && until.Time.After(now) {
		c.Warn(fmt.Sprintf("at: %s is in the future; this answer is the state at the log head %d, as of %s",
			until.Time.UTC().Format(time.RFC3339), seq, now.UTC().Format(time.RFC3339)))
	}
	return data, tm, nil, nil
}

// atCursorError is E_ARGUMENT for `at` sent with a cursor of a walk that
// reads at another seq.
func atCursorError(t *Tool, cursorSeq, atSeq uint64) *envelope.Error {
	return envelope.Errorf(envelope.CodeArgument,
		"cursor: it reads at log seq %d (its first page's), at asks for %d; leave at out (a cursor reads at its own seq) or send at: %d",
		cursorSeq, atSeq, cursorSeq).
		WithDetails(map[string]any{"field": "cursor", "cursor_seq": cursorSeq, "at_seq": atSeq, "accepted_arguments": t.paramNames()})
}

// readAtSeq runs the read tool of c in the state at log seq seq, as
// readAt does. rerr: the view could not be built or read.
func (r *Runner) readAtSeq(ctx context.Context, c *Call, seq uint64) (data any, tm envelope.ToolMeta, err, rerr error) {
	past, err := r.st.Past(ctx, seq)
	if err != nil {
		return nil, tm, nil, err
	}
	defer past.Release()
	pst := past.State()
	c.st, c.fresh, c.atSeq = pst, nil, &seq
	if c.Tool.OwnViews {
		// It opens its own views, of c.st: the past state.
		if data, tm, err = c.Tool.Handler(ctx, c); err != nil {
			return nil, tm, err, nil
		}
	} else if rerr := pst.Read(ctx, func(v state.View) {
		c.V, c.inView = v, true
		defer func() { c.inView = false }()
		data, tm, err = c.Tool.Handler(ctx, c)
		if err == nil && graphRead(c.Tool) {
			c.index = indexing.IndexMeta(v, indexing.Check{}, nil)
		}
	}); rerr != nil {
		return nil, tm, nil, rerr
	}
	if err != nil {
		return nil, tm, err, nil
	}
	for _, fn := range c.afterView {
		fn(ctx)
	}
	return data, tm, nil, nil
}
