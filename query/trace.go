package query

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Bounds of a trace (cos_graph_trace): the depth below the starting
// function at which steps stop being expanded, and the number of steps
// after which the walk stops.
const (
	TraceDefaultDepth = 6
	TraceMaxDepth     = 12
	TraceDefaultSteps = 200
	TraceMaxSteps     = 2000
)

// Values of TraceStep.Via: how a step is reached from its parent.
const (
	// ViaCall: the parent calls it (a calls edge).
	ViaCall = "call"
	// ViaInterface: the parent is an interface method (or an overridden
	// base-class method) and this is one of its implementations
	// (overrides), a branch of the dynamic dispatch.
	ViaInterface = "interface"
	// ViaReference: the parent uses it as a value (a references edge: a
	// handler passed on, a method value); it may run later.
	ViaReference = "reference"
)

// Values of TraceStep.Mark: why a step is not expanded, or what it is.
const (
	// MarkRecursion: the step re-enters a function already on its path
	// (TraceStep.Ref is that step); not expanded.
	MarkRecursion = "recursion"
	// MarkSeen: the function was expanded earlier in the trace
	// (TraceStep.Ref is its first step); not expanded again.
	MarkSeen = "seen"
	// MarkExternal: a stub of code outside the indexed tree (a library or
	// builtin call); a leaf.
	MarkExternal = "external"
	// MarkUnresolved: a call on a receiver of unknown type (a
	// code:external:*.m stub): its target is not known; a leaf.
	MarkUnresolved = "unresolved"
	// MarkDepthBound: the step is at the depth bound and has calls that
	// were not followed.
	MarkDepthBound = "depth_bound"
	// MarkDispatch: an interface (or overridable) method; its children are
	// its implementations (via "interface"), listed in Branches.
	MarkDispatch = "dispatch"
)

// Keys of a trace's completeness reasons (TraceAnswer.Reasons), each
// present only when non-zero; any one makes the trace a lower bound.
const (
	// traceSyntaxFallback counts the files of expanded steps that were
	// read without types (Go's syntax fallback) or inferred from the
	// syntax (another language without a SCIP index): their calls are a
	// name-based guess.
	traceSyntaxFallback = "syntax_fallback_files"
	// traceUnresolvedReceivers counts the steps on a receiver of unknown
	// type (MarkUnresolved).
	traceUnresolvedReceivers = "unresolved_receivers"
	// traceFuncValueCalls sums the call sites through func values of the
	// expanded functions (their dynamic_calls): their callees are unknown.
	traceFuncValueCalls = "func_value_calls"
	// traceReflectCalls sums the reflective call sites of the expanded
	// functions.
	traceReflectCalls = "reflect_calls"
	// traceDepthBound counts the steps left unexpanded by the depth bound.
	traceDepthBound = "depth_bound"
	// traceSizeBound is the step bound, when the walk stopped at it.
	traceSizeBound = "size_bound"
)

// ErrTraceStart is returned by TraceFrom when the start is not an entry
// point, function or method, or an entry point without a handler.
var ErrTraceStart = errors.New("trace starts at an entry point, a function or a method")

// TraceStep is one step of a trace: a function or method reached from its
// parent step.
type TraceStep struct {
	// Index is the step's position in the trace (0-based, depth-first
	// order); Process the index of the process it belongs to.
	Index   int `json:"index"`
	Process int `json:"process"`
	// Depth is 0 for a process's starting function.
	Depth int    `json:"depth"`
	UID   string `json:"uid"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	File  string `json:"file,omitempty"`
	// Line is the declaration's line; CallLine the line of the parent's
	// call (or reference) that reaches it (0 for a start or a branch).
	Line     int `json:"line,omitempty"`
	CallLine int `json:"call_line,omitempty"`
	// Parent is the index of the parent step; nil for a start.
	Parent *int `json:"parent,omitempty"`
	// Via is how the parent reaches the step (ViaCall, ViaInterface,
	// ViaReference); empty for a start.
	Via string `json:"via,omitempty"`
	// Mark is one of the Mark* values, or empty for an expanded step.
	Mark string `json:"mark,omitempty"`
	// Ref is, for MarkRecursion and MarkSeen, the index of the step the
	// function was first expanded at.
	Ref *int `json:"ref,omitempty"`
	// BuildExcluded marks a function in a Go file the current build leaves
	// out (an implementation for another platform).
	BuildExcluded bool `json:"build_excluded,omitempty"`
}

// TraceProcess is one flow of a trace: from an entry point's handler, or
// from the function asked.
type TraceProcess struct {
	Index int `json:"index"`
	// Entry is the entry point's uid when the trace started at one.
	Entry string `json:"entry,omitempty"`
	// Start is the uid of the starting function; FirstStep its step and
	// Steps the number of steps of the process.
	Start     string `json:"start"`
	FirstStep int    `json:"first_step"`
	Steps     int    `json:"steps"`
	// MaxDepth is the deepest step's depth.
	MaxDepth int `json:"max_depth"`
	// Anonymous says the entry point's handler is a func literal inside
	// Start: the process walks all of Start, a superset of what the
	// handler runs.
	Anonymous bool `json:"anonymous,omitempty"`
}

// TraceBranch is one dynamic dispatch of a trace: the step of the
// interface (or overridable) method called, and the steps of the
// implementations it fans out to, in uid order.
type TraceBranch struct {
	Step            int   `json:"step"`
	Implementations []int `json:"implementations"`
}

// TraceOptions bound a trace; zero values take the defaults.
type TraceOptions struct {
	// MaxDepth is the deepest step expanded (TraceDefaultDepth).
	MaxDepth int
	// MaxSteps bounds the number of steps (TraceDefaultSteps).
	MaxSteps int
	// IncludeTests follows calls into test files (and implementations
	// declared there); off, they are left out.
	IncludeTests bool
}

// Trace is the answer of TraceFrom.
type Trace struct {
	Processes []TraceProcess
	Steps     []TraceStep
	Branches  []TraceBranch
	// Reasons says why the trace is a lower bound (the trace* keys); nil
	// when it is exact.
	Reasons map[string]int
	// Cut is set when the walk stopped at MaxSteps.
	Cut bool
}

// Completeness returns CompleteExact or CompleteLowerBound and its reasons.
func (t *Trace) Completeness() (string, map[string]int) {
	if len(t.Reasons) == 0 {
		return CompleteExact, nil
	}
	return CompleteLowerBound, t.Reasons
}

// BranchesIn returns the branches whose call step is in [from, to).
func (t *Trace) BranchesIn(from, to int) []TraceBranch {
	out := []TraceBranch{}
	for _, b := range t.Branches {
		if b.Step >= from && b.Step < to {
			out = append(out, b)
		}
	}
	return out
}

// traceWalk is the state of one TraceFrom.
type traceWalk struct {
	ctx  context.Context
	g    *projections.Graph
	o    TraceOptions
	t    *Trace
	excl *BuildExclusion
	// first is the step at which each function was expanded.
	first map[string]int
	// onPath counts the steps of each function on the current path (its
	// step index while it is on it).
	onPath map[string]int
	// files records each file of an expanded step once, for the syntax
	// fallback reason.
	files   map[string]bool
	process int
	err     error
}

// TraceFrom walks the flow from start (an entry point: from each function
// it is handled_by, one process each; or a function or method): calls in
// source order, depth-first, interface calls fanning out to their
// implementations, recursion and functions already expanded collapsed
// (marked, not expanded again), stubs as leaves, bounded by o. It fails
// with ErrTraceStart for another kind of node, or with ctx's error.
func TraceFrom(ctx context.Context, g *projections.Graph, start graph.Node, o TraceOptions) (*Trace, error) {
	if o.MaxDepth <= 0 {
		o.MaxDepth = TraceDefaultDepth
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = TraceDefaultSteps
	}
	type root struct {
		entry, uid string
		anonymous  bool
	}
	var roots []root
	switch start.Kind {
	case graph.KindEntrypoint:
		for _, e := range g.Out(start.UID) {
			if e.Type == graph.EdgeHandledBy {
				anon, _ := e.Metadata["anonymous"].(bool)
				roots = append(roots, root{start.UID, e.Target, anon})
			}
		}
	case graph.KindFunction, graph.KindMethod:
		roots = append(roots, root{"", start.UID, false})
	}
	if len(roots) == 0 {
		return nil, ErrTraceStart
	}
	w := &traceWalk{ctx: ctx, g: g, o: o, t: &Trace{Reasons: map[string]int{}}, excl: NewBuildExclusion(g),
		first: map[string]int{}, onPath: map[string]int{}, files: map[string]bool{}}
	for i, r := range roots {
		if len(w.t.Steps) >= o.MaxSteps {
			w.t.Cut = true
			break
		}
		w.process = i
		p := TraceProcess{Index: i, Entry: r.entry, Start: r.uid, FirstStep: len(w.t.Steps), Anonymous: r.anonymous}
		w.visit(r.uid, 0, nil, "", 0)
		if w.err != nil {
			return nil, w.err
		}
		p.Steps = len(w.t.Steps) - p.FirstStep
		for _, s := range w.t.Steps[p.FirstStep:] {
			p.MaxDepth = max(p.MaxDepth, s.Depth)
		}
		w.t.Processes = append(w.t.Processes, p)
	}
	if w.t.Cut {
		w.t.Reasons[traceSizeBound] = o.MaxSteps
	}
	if len(w.t.Reasons) == 0 {
		w.t.Reasons = nil
	}
	return w.t, nil
}

// callee is one outgoing call or reference of a step.
type callee struct {
	uid, via string
	line     int
}

// visit adds the step of uid and, unless it is collapsed, the steps below
// it. It returns the step's index, or -1 when the step bound was hit.
func (w *traceWalk) visit(uid string, depth int, parent *int, via string, callLine int) int {
	if w.err != nil {
		return -1
	}
	if len(w.t.Steps) >= w.o.MaxSteps {
		w.t.Cut = true
		return -1
	}
	if len(w.t.Steps)%64 == 0 {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return -1
		}
	}
	n := NodeOrMissing(w.g, uid)
	idx := len(w.t.Steps)
	s := TraceStep{Index: idx, Process: w.process, Depth: depth, UID: uid, Kind: n.Kind, Label: n.Label, File: n.Path,
		Line: n.Line, CallLine: callLine, Parent: parent, Via: via}
	if h, ok := w.g.NodeHeader(uid); ok {
		s.BuildExcluded = w.excl.Of(h)
	}
	switch {
	case n.Kind == graph.KindExternal && strings.HasPrefix(uid, "code:external:*."):
		s.Mark = MarkUnresolved
		w.t.Reasons[traceUnresolvedReceivers]++
	case n.Kind == graph.KindExternal || n.Kind == "missing":
		s.Mark = MarkExternal
	}
	if s.Mark != "" {
		w.t.Steps = append(w.t.Steps, s)
		return idx
	}
	if at, ok := w.onPath[uid]; ok {
		s.Mark, s.Ref = MarkRecursion, &at
		w.t.Steps = append(w.t.Steps, s)
		return idx
	}
	if at, ok := w.first[uid]; ok {
		s.Mark, s.Ref = MarkSeen, &at
		w.t.Steps = append(w.t.Steps, s)
		return idx
	}
	impls := w.dispatchTargets(uid)
	calls := w.callees(uid)
	if depth >= w.o.MaxDepth {
		if len(impls) > 0 || len(calls) > 0 {
			s.Mark = MarkDepthBound
			w.t.Reasons[traceDepthBound]++
		}
		w.t.Steps = append(w.t.Steps, s)
		return idx
	}
	if len(impls) > 0 {
		s.Mark = MarkDispatch
	}
	w.t.Steps = append(w.t.Steps, s)
	w.first[uid] = idx
	w.onPath[uid] = idx
	defer delete(w.onPath, uid)
	w.account(uid, n)
	for _, c := range calls {
		if w.visit(c.uid, depth+1, &idx, c.via, c.line) < 0 {
			return idx
		}
	}
	if len(impls) > 0 {
		b := TraceBranch{Step: idx, Implementations: []int{}}
		for _, m := range impls {
			i := w.visit(m, depth+1, &idx, ViaInterface, 0)
			if i < 0 {
				break
			}
			b.Implementations = append(b.Implementations, i)
		}
		w.t.Branches = append(w.t.Branches, b)
	}
	return idx
}

// account adds an expanded function's reasons: the func value and
// reflective calls it makes, and its file when that was read without
// types.
func (w *traceWalk) account(uid string, n NodeView) {
	w.t.Reasons[traceFuncValueCalls] += metaCount(n.Metadata[graph.MetaDynamicCalls])
	w.t.Reasons[traceReflectCalls] += metaCount(n.Metadata[graph.MetaReflectCalls])
	for _, k := range []string{traceFuncValueCalls, traceReflectCalls} {
		if w.t.Reasons[k] == 0 {
			delete(w.t.Reasons, k)
		}
	}
	if n.Path == "" || w.files[n.Path] {
		return
	}
	w.files[n.Path] = true
	if !w.typedFile(n.Path) {
		w.t.Reasons[traceSyntaxFallback]++
	}
}

// typedFile reports whether the calls of the file at p are exact: a Go
// file type-checked (or left out of this build), or a file whose calls come
// from a SCIP index.
func (w *traceWalk) typedFile(p string) bool {
	f, ok := w.g.Node(graph.SourceFileUID(p))
	if !ok {
		return true // no file node (a node an agent wrote): nothing to say
	}
	switch f.Metadata[graph.MetaExtraction] {
	case graph.ExtractionTypes, graph.ExtractionPrecise:
		return true
	case graph.ExtractionSyntax:
		r, _ := f.Metadata[graph.MetaFallback].(string)
		return !graph.LowerBoundFallback(r)
	}
	// No extraction said: a Python or JavaScript file inferred from the
	// syntax, or a language matched by name, unless its extractor is exact.
	return exactExtractors[f.Extractor]
}

// callees returns uid's calls and its references to functions and methods,
// in source order (call line, then uid), tests left out unless asked.
func (w *traceWalk) callees(uid string) []callee {
	var out []callee
	for _, e := range w.g.Out(uid) {
		var via string
		switch e.Type {
		case graph.EdgeCalls:
			via = ViaCall
		case graph.EdgeReferences:
			h, ok := w.g.NodeHeader(e.Target)
			if !ok || (h.Kind != graph.KindFunction && h.Kind != graph.KindMethod) {
				continue
			}
			via = ViaReference
		default:
			continue
		}
		if !w.o.IncludeTests {
			if h, ok := w.g.NodeHeader(e.Target); ok && IsTestPath(h.Path) {
				continue
			}
		}
		out = append(out, callee{e.Target, via, e.Line})
	}
	slices.SortStableFunc(out, func(a, b callee) int {
		if a.line != b.line {
			return a.line - b.line
		}
		if c := strings.Compare(a.uid, b.uid); c != 0 {
			return c
		}
		return strings.Compare(a.via, b.via)
	})
	return slices.CompactFunc(out, func(a, b callee) bool { return a.uid == b.uid && a.line == b.line })
}

// dispatchTargets returns the implementations of uid when it is an
// interface method, and the overrides of uid when it is a base-class
// method, in uid order, tests left out unless asked.
func (w *traceWalk) dispatchTargets(uid string) []string {
	h, ok := w.g.NodeHeader(uid)
	if !ok || h.Kind != graph.KindMethod {
		return nil
	}
	out := append(implementationsOf(w.g, uid), overridesOf(w.g, uid)...)
	if !w.o.IncludeTests {
		out = slices.DeleteFunc(out, func(m string) bool {
			mh, ok := w.g.NodeHeader(m)
			return ok && IsTestPath(mh.Path)
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}
