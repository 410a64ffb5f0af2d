package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cos-dev/cos/internal/nearest"
	"strings"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/search"
	"github.com/cos-dev/cos/tools/envelope"
)

// Call is one running tool call, handed to the tool's Handler.
type Call struct {
	S    *Server
	Tool *Tool
	Args *Args
	// Pos is the log position the answer reflects: set by Call for a
	// read-only tool (the view it runs in), by ReadBack for a write tool.
	Pos projections.Position
}

// Call runs the tool name with raw JSON arguments and returns its envelope.
// It never returns a Go error and never panics: every failure is a failure
// envelope (an unknown tool is E_UNKNOWN_TOOL listing the nearest names).
func (s *Server) Call(ctx context.Context, name string, raw json.RawMessage) envelope.Envelope {
	t, ok := s.tools[name]
	if !ok {
		return envelope.Fail(s.unknownTool(name))
	}
	info := envelope.CallInfo{Tool: name, ArgBytes: len(raw), RequestID: requestIDOf(raw)}
	return envelope.Safe(ctx, info, s.forensic, func(ctx context.Context) (envelope.Envelope, error) {
		return s.call(ctx, t, raw)
	})
}

func (s *Server) call(ctx context.Context, t *Tool, raw json.RawMessage) (envelope.Envelope, error) {
	on, err := s.modules.enabled(t.Module)
	if err != nil {
		s.logger.Warn("module state unreadable; every module stays on", "err", err)
	}
	if !on {
		return envelope.Fail(envelope.Errorf(envelope.CodeModuleDisabled,
			"module %q is disabled in this project; enable it with `cos module enable %s`", t.Module, t.Module).
			WithDetails(map[string]any{"module": t.Module})), nil
	}
	args, aerr := parseArgs(t, raw)
	if aerr != nil {
		return envelope.Fail(aerr), nil
	}
	c := &Call{S: s, Tool: t, Args: args}
	var (
		data any
		tm   envelope.ToolMeta
	)
	if t.ReadOnly {
		if err := s.tailer.Fresh(ctx); err != nil {
			if !errors.Is(err, eventlog.ErrIntegrity) {
				return envelope.Fail(ToEnvelopeError(err)), nil
			}
			// Reads still work on a damaged log (DESIGN §3): answer from the
			// state before the damage; meta.log_seq says how far that is.
			s.logger.Warn("answering from the state before a damaged log record", "tool", t.Name, "err", err)
		}
		s.tailer.View(func(pos projections.Position) {
			c.Pos = pos
			data, tm, err = t.Handler(ctx, c)
		})
	} else {
		if s.ReadOnly() {
			return envelope.Fail(envelope.Errorf(envelope.CodeReadOnly,
				"%s writes, and this is a read-only view of the log at seq %d", t.Name, s.tailer.Position().Seq)), nil
		}
		data, tm, err = t.Handler(ctx, c)
	}
	if err != nil {
		return envelope.Fail(ToEnvelopeError(err)), nil
	}
	return envelope.OK(data, envelope.Meta{Layer: t.Layer, LogSeq: c.Pos.Seq, Tool: tm}, s.opts.Budget), nil
}

// requestIDOf returns the request_id argument, for the forensic log.
func requestIDOf(raw json.RawMessage) string {
	var v struct {
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.RequestID
}

// Append appends requests on behalf of the call (recording the client) and
// returns the receipts, or the first error.
func (c *Call) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Receipt, error) {
	for i := range reqs {
		if reqs[i].Client == "" {
			reqs[i].Client = c.S.opts.Client
		}
	}
	res, err := c.S.log.Append(ctx, reqs...)
	if err != nil {
		return nil, err
	}
	out := make([]eventlog.Receipt, len(res))
	for i, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		out[i] = r.Receipt
	}
	return out, nil
}

// ReadBack waits until the projections include seq, then runs fn inside a
// view of them and records the view's position as the answer's log_seq.
// Write tools answer with the post-write state read back this way.
func (c *Call) ReadBack(ctx context.Context, seq uint64, fn func()) error {
	for c.S.tailer.Position().Seq < seq {
		if _, err := c.S.tailer.CatchUp(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	c.S.tailer.View(func(pos projections.Position) {
		c.Pos = pos
		fn()
	})
	return nil
}

// Resolve resolves a uid, raw path or name (direct → path_prefix → fuzzy);
// call it inside the view. strict refuses fuzzy answers (mutations). A raw
// string shaped like a uid (a seed-003 prefix, graph.KindOfUID) is always
// looked up strictly: a uid that is not in the graph is *search.NotFoundError
// with suggestions, never an E_AMBIGUOUS or a fuzzy neighbour.
func (c *Call) Resolve(ctx context.Context, raw string, strict bool) (search.Resolution, error) {
	if strict {
		return c.S.resolver.ResolveStrict(ctx, raw)
	}
	if _, uidShaped := graph.KindOfUID(strings.TrimSpace(raw)); uidShaped {
		res, err := c.S.resolver.ResolveStrict(ctx, raw)
		var nf *search.NotFoundError
		if errors.As(err, &nf) {
			nf.Strict = false // a read: the "writes never resolve fuzzily" hint does not apply
		}
		return res, err
	}
	return c.S.resolver.Resolve(ctx, raw)
}

// ToEnvelopeError maps any error a handler returns to the envelope error:
// the log's errors (LogError), the resolver's E_AMBIGUOUS and E_NOT_FOUND
// with their candidates, an *envelope.Error as is, anything else E_INTERNAL.
func ToEnvelopeError(err error) *envelope.Error {
	var (
		amb *search.AmbiguousError
		nf  *search.NotFoundError
	)
	switch {
	case errors.As(err, &amb):
		return envelope.Wrap(err, envelope.CodeAmbiguous,
			"%q matches %d nodes and none clearly wins; pass one of the candidate uids", amb.Query, len(amb.Candidates)).
			WithDetails(map[string]any{"query": amb.Query, "candidates": amb.Candidates})
	case errors.As(err, &nf):
		msg := fmt.Sprintf("no node matches %q", nf.Query)
		if nf.Strict {
			msg += " exactly (writes never resolve fuzzily: pass a uid or a repo-relative path)"
		}
		if len(nf.Suggestions) > 0 {
			uids := make([]string, len(nf.Suggestions))
			for i, c := range nf.Suggestions {
				uids[i] = c.UID
			}
			msg += "; did you mean " + strings.Join(uids, ", ") + "?"
		}
		sugg := nf.Suggestions
		if sugg == nil {
			sugg = []search.Candidate{}
		}
		return envelope.Wrap(err, envelope.CodeNotFound, "%s", msg).
			WithDetails(map[string]any{"query": nf.Query, "suggestions": sugg})
	}
	return LogError(err)
}

// unknownTool is E_UNKNOWN_TOOL with the nearest real tool names.
func (s *Server) unknownTool(name string) *envelope.Error {
	near := nearestNames(name, s.names, 3)
	msg := fmt.Sprintf("no tool is named %q", name)
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return envelope.Errorf(envelope.CodeUnknownTool, "%s", msg).
		WithDetails(map[string]any{"tool": name, "nearest": near})
}

// nearestNames returns the k tool names nearest to name.
func nearestNames(name string, names []string, k int) []string { return nearest.Rank(name, names, k) }

// Tools returns the registered tools sorted by name.
func (s *Server) Tools() []*Tool {
	out := make([]*Tool, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.tools[n])
	}
	return out
}
