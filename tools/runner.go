package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/nearest"
	"github.com/cos-dev/cos/state"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/search"
)

// Options configure a Runner.
type Options struct {
	// Version is the build version cos_health reports.
	Version string
	// Worktree, when set, serves a linked git worktree: graph reads and
	// Call.Refresh sync its files instead of re-indexing.
	Worktree Worktree
}

// Runner runs tool calls against one state: it holds the tool catalogue,
// parses arguments, applies the module gate, runs each handler in the
// right view and wraps its answer in the envelope. Transports (MCP, the
// command line, HTTP routes) call Call; it is safe for concurrent use.
type Runner struct {
	st      *state.State
	ix      *indexing.Indexer
	version string
	tools   map[string]*Tool
	names   []string
	// fresh checks the files graph answers name (read-your-edits).
	fresh *indexing.Freshness
	// history is the index cos_history reads, built on its first call.
	history *state.History
	// worktree is Options.Worktree.
	worktree Worktree
	// boardCoords is the board's coordination of the last positions read.
	boardCoords boardCoords
}

// New returns a Runner over st; ix runs cos_graph_index and approves the
// paths tools read files under.
func New(st *state.State, ix *indexing.Indexer, opts Options) *Runner {
	r := &Runner{st: st, ix: ix, version: opts.Version, tools: map[string]*Tool{}, fresh: indexing.NewFreshness(st),
		history: state.NewHistory(st), worktree: opts.Worktree}
	for _, t := range catalogue() {
		r.tools[t.Name] = t
	}
	for n := range r.tools {
		r.names = append(r.names, n)
	}
	for _, t := range withAt(hubCatalogue()) {
		r.tools[t.Name] = t // runnable, not listed (Tool.HubOnly)
	}
	sort.Strings(r.names)
	return r
}

// Call is one running tool call, handed to the tool's Handler.
type Call struct {
	Tool *Tool
	Args *Args
	// V is what the handler reads: for a read-only tool, the view the
	// whole handler runs in; for a write tool, the view inside the
	// function given to ReadBack or freshView (zero outside it). V.Pos is
	// the log position the answer reflects (meta.log_seq).
	V state.View
	// Budget is the envelope budget the answer is trimmed to.
	Budget envelope.Options

	st      *state.State
	ix      *indexing.Indexer
	version string
	// committed are the receipts of the call's appends that committed.
	committed []eventlog.Receipt

	runner *Runner
	fresh  *indexing.Freshness
	// inView is true while a ReadOnly handler runs inside its view.
	inView bool
	// index is meta.index of the answer (nil: omitted), warnings lines
	// added to meta.warnings (Warn).
	index    *envelope.Index
	warnings []string
	// afterView are run by a ReadOnly tool's handler for work that must
	// not hold the view (file reads, git): after the view is released,
	// before the answer is built.
	afterView []func(context.Context)
	// atSeq is meta.at_seq: the past seq the answer reflects (an `at`
	// argument, at.go); nil for an answer from the live state.
	atSeq *uint64
	// files are the files the answer names, declared by the handler
	// (NameFiles, fresh.go).
	files []string
	// pageBudget is meta.page_budget_chars: the budget that shortened a
	// page below its limit (cutPage); 0 when none did.
	pageBudget int
}

// Call runs the tool name with raw JSON arguments and returns its envelope,
// trimmed to budget (the agent budget over MCP, none for a browser route).
// It never returns a Go error and never panics: every failure is a failure
// envelope (an unknown tool is E_UNKNOWN_TOOL listing the nearest names).
//
// budget is checked (envelope.Options.Validate) before anything else: an
// invalid one is the transport's programming error, not the agent's, so
// the answer is E_INTERNAL (with a forensic log line) and the tool does not
// run — a write tool writes nothing.
func (r *Runner) Call(ctx context.Context, name string, raw json.RawMessage, budget envelope.Options) envelope.Envelope {
	info := envelope.CallInfo{Tool: name, ArgBytes: len(raw), RequestID: requestIDOf(raw)}
	if err := budget.Validate(); err != nil {
		return envelope.Safe(ctx, info, r.st.Forensic(), func(context.Context) (envelope.Envelope, error) {
			return envelope.Fail(envelope.Wrap(err, envelope.CodeInternal,
				"the server's envelope budget is invalid (%v); %s did not run", err, clip(name, 60))), nil
		})
	}
	t, ok := r.tools[name]
	if !ok || (t.HubOnly && !budget.NoBudget) {
		return envelope.Fail(r.unknownTool(name))
	}
	return envelope.Safe(ctx, info, r.st.Forensic(), func(ctx context.Context) (envelope.Envelope, error) {
		return r.call(ctx, t, raw, budget)
	})
}

// Has reports whether a tool is named name (a Tool.HubOnly tool is not).
func (r *Runner) Has(name string) bool {
	t, ok := r.tools[name]
	return ok && !t.HubOnly
}

// Spec returns the tool named name, a Tool.HubOnly one included, and
// false when there is none: the Hub builds its routes and its OpenAPI
// document from it.
func (r *Runner) Spec(name string) (*Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

func (r *Runner) call(ctx context.Context, t *Tool, raw json.RawMessage, budget envelope.Options) (envelope.Envelope, error) {
	on, err := r.st.ModuleEnabled(t.Module)
	if err != nil {
		r.st.Logger().Warn("module state unreadable; every module stays on", "err", err)
	}
	if !on {
		return envelope.Fail(envelope.Errorf(envelope.CodeModuleDisabled,
			"module %q is disabled in this project; enable it with `cos module enable %s`", t.Module, t.Module).
			WithDetails(map[string]any{"module": t.Module})), nil
	}
	if aerr := refuseAt(t, raw); aerr != nil {
		return envelope.Fail(aerr), nil
	}
	args, aerr := parseArgs(t, raw)
	if aerr != nil {
		return envelope.Fail(aerr), nil
	}
	if r.worktree != nil && t.Name == "cos_graph_index" {
		// It would add the worktree to the shared graph as a root.
		return envelope.Fail(envelope.Errorf(envelope.CodeReadOnly,
			"this server answers for the worktree %s, whose changed files it reads without indexing; index from a server started in the main worktree",
			r.worktree.Status().Name)), nil
	}
	c := &Call{Tool: t, Args: args, Budget: budget, st: r.st, ix: r.ix, version: r.version, runner: r, fresh: r.fresh}
	var (
		data any
		tm   envelope.ToolMeta
	)
	walkSeq, paging := cursorSeq(t, args)
	served := false
	if paging && graphRead(t) && r.worktree == nil && !args.Has(atParamName) && r.graphChangedAfter(ctx, walkSeq) {
		// The live answer would be a moved cursor: spare computing it.
		data, tm, err, served = r.servePast(ctx, c, walkSeq)
	}
	if served {
	} else if args.Has(atParamName) && acceptsAt(t) {
		var rerr error
		if data, tm, err, rerr = r.readAt(ctx, c); rerr != nil {
			return envelope.Fail(ToEnvelopeError(rerr)), nil
		}
	} else if graphRead(t) {
		var rerr error
		if data, tm, err, rerr = r.readGraph(ctx, c); rerr != nil {
			return envelope.Fail(ToEnvelopeError(rerr)), nil
		}
	} else if t.ReadOnly && t.OwnViews {
		data, tm, err = t.Handler(ctx, c)
	} else if t.ReadOnly {
		if rerr := r.st.Read(ctx, func(v state.View) {
			c.V = v
			data, tm, err = t.Handler(ctx, c)
		}); rerr != nil {
			return envelope.Fail(ToEnvelopeError(rerr)), nil
		}
		if err == nil {
			for _, fn := range c.afterView {
				fn(ctx)
			}
		}
	} else if t.WritesOnlyToRefresh {
		data, tm, err = t.Handler(ctx, c)
	} else {
		if r.st.ReadOnly() {
			return envelope.Fail(envelope.Errorf(envelope.CodeReadOnly,
				"%s writes, and this is a read-only view of the log at seq %d", t.Name, r.st.Position().Seq)), nil
		}
		if !r.st.Writable() {
			return envelope.Fail(envelope.Errorf(envelope.CodeReadOnly,
				"%s writes, and the state folder %s is read-only (a read-only mount or no write permission); reads still work", t.Name, r.st.Dir()).
				WithDetails(map[string]any{"state_dir": r.st.Dir()})), nil
		}
		data, tm, err = t.Handler(ctx, c)
	}
	if err != nil && paging && c.atSeq == nil && t.ReadOnly && cursorMoved(err) && (r.worktree == nil || !graphRead(t)) {
		// The data moved after the walk's seq: read the page there (a
		// worktree's graph answers hold its overlay, which the past lacks).
		if pdata, ptm, perr, ok := r.servePast(ctx, c, walkSeq); ok {
			data, tm, err = pdata, ptm, perr
		}
	}
	if c.atSeq == nil && (graphRead(t) || c.index != nil) {
		c.index = r.ix.WithStartState(c.index)
	}
	if err == nil && r.worktree != nil && t.Name == "cos_task_claim" {
		r.worktree.Claimed(args.Str("task_id"), args.Str("assignee"))
	}
	if err != nil && len(c.committed) > 0 {
		// The handler failed after its write committed: a failure would
		// invite a retry that writes again. Answer ok with the receipts and
		// say what went wrong.
		return committedAnswer(t, c, err), nil
	}
	if err != nil {
		if errors.Is(err, eventlog.ErrCommitUnknown) {
			rid := RequestIDNone
			if args.Str("request_id") != "" {
				rid = RequestIDSent
			}
			return envelope.Fail(CommitUnknownError(err, rid)), nil
		}
		ee := ToEnvelopeError(err)
		if im := integrityMeta(c.V.Integrity); im != nil {
			// A read past a damaged record: "not found" may only mean "after
			// the damage". Say so in the failure too.
			ee = ee.WithDetails(map[string]any{"integrity": map[string]any{
				"ok": false, "first_bad_seq": im.FirstBadSeq, "events_after": im.EventsAfter}})
		}
		return envelope.Fail(ee), nil
	}
	if len(c.warnings) > 0 {
		tm.Warnings = append(tm.Warnings, c.warnings...)
	}
	if c.pageBudget > 0 {
		tm.PageBudgetChars = c.pageBudget
	}
	markIndexing(&tm, c.index)
	var since uint64
	if pos := r.st.Position().Seq; paging && pos > walkSeq {
		since = pos - walkSeq
	}
	return envelope.OK(data, envelope.Meta{Layer: t.Layer, LogSeq: c.V.Pos.Seq, Tool: tm,
		Integrity: integrityMeta(c.V.Integrity), Index: c.index, AtSeq: c.atSeq, EventsSinceWalk: since}, budget), nil
}

// servePast answers a later page of a walk from the state at the walk's
// seq (state.State.Past): the page of a cursor the data moved under (a
// task or the graph changed since), so that a walk always finishes and
// every page agrees with its first. ok is false, and c as it was, when
// that state cannot be had; the caller then answers live.
func (r *Runner) servePast(ctx context.Context, c *Call, walkSeq uint64) (data any, tm envelope.ToolMeta, err error, ok bool) {
	live := *c
	c.warnings, c.index, c.files, c.afterView = nil, nil, nil, nil
	data, tm, err, rerr := r.readAtSeq(ctx, c, walkSeq)
	if rerr != nil {
		r.st.Logger().Debug("a cursor's page could not be read at its seq", "tool", c.Tool.Name, "seq", walkSeq, "err", rerr)
		*c = live
		return nil, tm, nil, false
	}
	return data, tm, err, true
}

// graphChangedAfter reports whether the live graph changed after seq.
func (r *Runner) graphChangedAfter(ctx context.Context, seq uint64) bool {
	changed := false
	_ = r.st.Read(ctx, func(v state.View) { changed = v.Graph.LastChange(v.Pos.Seq) > seq })
	return changed
}

// ReasonIndexing is the meta.completeness_reasons key of a graph answer
// given while the server's start index still fills the graph
// (meta.index.state "indexing"): what it has not reached is missing. Its
// count is 1.
const ReasonIndexing = "indexing"

// markIndexing makes an answer that states its completeness a lower bound
// while the start index runs (idx.State "indexing"): an "exact" over a
// graph still filling would be false.
func markIndexing(tm *envelope.ToolMeta, idx *envelope.Index) {
	if tm.Completeness == "" || idx == nil || idx.State != envelope.IndexStateIndexing {
		return
	}
	tm.Completeness = query.CompleteLowerBound
	reasons := make(map[string]int, len(tm.CompletenessReasons)+1)
	maps.Copy(reasons, tm.CompletenessReasons)
	reasons[ReasonIndexing] = 1
	tm.CompletenessReasons = reasons
}

// integrityMeta is meta.integrity for an answer read from a view: nil
// (the key left out) when the log read cleanly.
func integrityMeta(i state.Integrity) *envelope.Integrity {
	if i.OK || (i == state.Integrity{}) {
		return nil
	}
	return &envelope.Integrity{FirstBadSeq: i.FirstBadSeq, EventsAfter: i.EventsAfter, SeenSeq: i.SeenSeq}
}

// requestIDOf returns the request_id argument, for the forensic log.
func requestIDOf(raw json.RawMessage) string {
	if !bytes.Contains(raw, []byte("request_id")) && !bytes.Contains(raw, []byte(`\u`)) {
		// No such key (not even spelled with escapes): spare the parse of
		// what may be megabytes of arguments.
		return ""
	}
	var v struct {
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.RequestID
}

// Append appends requests on behalf of the call (recording the client) and
// returns the receipts, or the first error.
func (c *Call) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Receipt, error) {
	recs, err := c.st.Append(ctx, reqs...)
	c.committed = append(c.committed, recs...)
	return recs, err
}

// ReadBack waits until the projections include seq, then runs fn inside a
// view of them (c.V) and records the view's position as the answer's
// log_seq. Write tools answer with the post-write state read back this way.
func (c *Call) ReadBack(ctx context.Context, seq uint64, fn func()) error {
	if err := c.st.WaitFor(ctx, seq); err != nil {
		return err
	}
	c.st.View(func(v state.View) {
		c.V = v
		fn()
	})
	return nil
}

// Resolve resolves a uid, raw path or name (direct → path_prefix → fuzzy);
// call it inside the view. strict refuses fuzzy answers (mutations). A raw
// string shaped like a uid (a scheme prefix, graph.KindOfUID) is always
// looked up strictly: a uid that is not in the graph is *search.NotFoundError
// with suggestions, never an E_AMBIGUOUS or a fuzzy neighbour.
func (c *Call) Resolve(ctx context.Context, raw string, strict bool) (search.Resolution, error) {
	if strict {
		return c.V.Resolver.ResolveStrict(ctx, raw)
	}
	if _, uidShaped := graph.KindOfUID(strings.TrimSpace(raw)); uidShaped {
		res, err := c.V.Resolver.ResolveStrict(ctx, raw)
		var nf *search.NotFoundError
		if errors.As(err, &nf) {
			nf.Strict = false // a read: the "writes never resolve fuzzily" hint does not apply
		}
		return res, err
	}
	return c.V.Resolver.Resolve(ctx, raw)
}

// unknownTool is E_UNKNOWN_TOOL with the nearest real tool names.
func (r *Runner) unknownTool(name string) *envelope.Error {
	near := nearestNames(name, r.names, 3)
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
func (r *Runner) Tools() []*Tool {
	out := make([]*Tool, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.tools[n])
	}
	return out
}
