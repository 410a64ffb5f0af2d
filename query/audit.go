package query

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Checks of cos_graph_audit.
const (
	// AuditDead lists functions and methods no root reaches.
	AuditDead = "dead"
	// AuditUntested lists functions and methods no test reaches within
	// a depth.
	AuditUntested = "untested"
	// AuditCycles lists import cycles and recursion cycles.
	AuditCycles = "cycles"
)

// AuditChecks are the values of check.
var AuditChecks = []string{AuditDead, AuditUntested, AuditCycles}

// Certainty of a finding.
const (
	// Certain: nothing known reaches the node.
	Certain = "certain"
	// Uncertain: the node may be reached in a way the graph does not
	// show (its address is taken, reflection, an interface defined
	// outside the graph); Reasons say which.
	Uncertain = "uncertain"
)

// Reasons a finding is uncertain.
const (
	// ReasonAddressTaken: the function is used as a value somewhere
	// (a references edge), so a call through that value may run it.
	ReasonAddressTaken = "address_taken"
	// ReasonReflection: a reachable function calls methods through
	// reflect by name, and this is an exported method.
	ReasonReflection = "reflection"
	// ReasonExternalInterface: the method's type satisfies an interface
	// declared outside the graph, whose callers the graph cannot see.
	ReasonExternalInterface = "external_interface"
	// ReasonNameMatched: calls into the function's file are matched by
	// name, not resolved by a type checker or an index (Python and
	// JavaScript/TypeScript without a SCIP index, the languages parsed
	// without types), so a caller may be missing.
	ReasonNameMatched = "name_matched"
)

// DefaultUntestedDepth is how many hops from a test untested follows
// when no depth is given.
const DefaultUntestedDepth = 8

// AuditOptions is one audit question.
type AuditOptions struct {
	// Check is one of AuditChecks.
	Check string
	// Path keeps findings whose file starts with it or, when it holds
	// *, ? or [, matches it as a path.Match glob (a cycle is kept when
	// one member matches). Empty keeps all.
	Path string
	// Kinds keeps findings of these node kinds (dead, untested:
	// function, method) or cycle kinds (cycles: import, recursion).
	// Empty keeps all.
	Kinds []string
	// IncludeExported makes a library's exported functions and methods
	// roots of dead (a Go package not main; in Python and
	// JavaScript/TypeScript a name not starting with '_').
	IncludeExported bool
	// Depth bounds untested's walk from the tests, in hops; 0 is
	// DefaultUntestedDepth.
	Depth int
	// SelfRecursion lists a function calling itself as a recursion cycle
	// of one.
	SelfRecursion bool
}

// AuditFinding is one dead or untested function or method.
type AuditFinding struct {
	NodeView
	Certainty string `json:"certainty"`
	// Reasons say why an uncertain finding may be reached after all;
	// Via names the nodes behind them (the user of a func value, the
	// outside interface).
	Reasons []string `json:"reasons,omitempty"`
	Via     []string `json:"via,omitempty"`
}

// AuditSummary counts what a dead or untested answer looked at.
type AuditSummary struct {
	// Functions is the number of functions and methods judged (those
	// with a file, not interface methods, not left out of the build).
	Functions int `json:"functions"`
	// Roots is the number of them the walk started from.
	Roots int `json:"roots"`
	// Reached is the number of them the walk reached.
	Reached int `json:"reached"`
	// Uncertain is the number of findings (before the path and kind
	// filters) whose certainty is uncertain.
	Uncertain int `json:"uncertain"`
}

// AuditFunctions answers dead (untested false) or untested (true): the
// functions and methods of g not reached from the roots, sorted by path,
// line and uid. It fails only with ctx's error.
//
// Roots for dead are main and init functions, the handlers of entry
// points (handled_by), the tests (TestRoots) and, with IncludeExported,
// a library's exported API; untested starts from the tests only and
// stops after opts.Depth hops. The walk follows calls and references
// edges, from an interface method to the methods implementing it and
// from a method to its overrides, and treats a method whose type
// satisfies an interface declared outside the graph as reached once its
// type is in use (built, taken as a parameter, its fields read, or one of
// its methods reached).
func AuditFunctions(ctx context.Context, g *projections.Graph, opts AuditOptions, untested bool) ([]AuditFinding, AuditSummary, *Completeness, error) {
	var sum AuditSummary
	a := newAuditGraph(g)
	var roots []string
	depth := -1
	if untested {
		roots = a.testRoots()
		depth = opts.Depth
		if depth <= 0 {
			depth = DefaultUntestedDepth
		}
	} else {
		roots = a.deadRoots(opts.IncludeExported)
	}
	reached, live, err := a.reach(ctx, roots, depth)
	if err != nil {
		return nil, sum, nil, err
	}
	// viaReflection are the functions reached only when reflection, which
	// a reached function uses, calls the exported methods of the types in
	// use by name.
	var viaReflection map[string]int
	if !untested && a.reflective(reached) {
		var seeds []string
		for _, class := range slices.Sorted(maps.Keys(live)) {
			for _, m := range a.g.Targets(class, graph.EdgeContains) {
				if _, ok := reached[m]; !ok && a.nodes[m].Kind == graph.KindMethod && exportedName(memberName(m)) {
					seeds = append(seeds, m)
				}
			}
		}
		if viaReflection, _, err = a.reach(ctx, append(seeds, roots...), -1); err != nil {
			return nil, sum, nil, err
		}
	}
	kinds := TypeSet(opts.Kinds)
	comp := NewCompleteness(g, true)
	var out []AuditFinding
	for _, uid := range a.funcs {
		sum.Functions++
		if a.isRoot[uid] {
			sum.Roots++
		}
		if _, ok := reached[uid]; ok {
			sum.Reached++
			continue
		}
		n := a.nodes[uid]
		if untested && IsTestPath(n.Path) {
			continue
		}
		f := AuditFinding{NodeView: NodeView{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, EndLine: n.EndLine}, Certainty: Certain}
		if users := g.Sources(uid, graph.EdgeReferences); len(users) > 0 {
			f.Reasons = append(f.Reasons, ReasonAddressTaken)
			f.Via = append(f.Via, users...)
		}
		if _, ok := viaReflection[uid]; ok {
			f.Reasons = append(f.Reasons, ReasonReflection)
		}
		if n.Kind == graph.KindMethod && exportedName(memberName(uid)) {
			if ext := a.externalInterfaces(uid); len(ext) > 0 {
				f.Reasons = append(f.Reasons, ReasonExternalInterface)
				f.Via = append(f.Via, ext...)
			}
		}
		if a.nameMatched(n) {
			f.Reasons = append(f.Reasons, ReasonNameMatched)
		}
		if len(f.Reasons) > 0 {
			f.Certainty = Uncertain
			sum.Uncertain++
		}
		if len(kinds) > 0 && !kinds[n.Kind] || !PathMatches(opts.Path, n.Path) {
			continue
		}
		comp.AddUID(uid)
		out = append(out, f)
	}
	slices.SortFunc(out, func(x, y AuditFinding) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		if x.Line != y.Line {
			return x.Line - y.Line
		}
		return strings.Compare(x.UID, y.UID)
	})
	return out, sum, comp, nil
}

// auditGraph is the part of a graph the audits walk: its functions and
// methods, with their roles.
type auditGraph struct {
	g *projections.Graph
	// funcs are the judged functions and methods in uid order; nodes
	// their headers.
	funcs []string
	nodes map[string]graph.Node
	// isRoot marks the roots of the last walk.
	isRoot map[string]bool
	// pkg caches a Go file's package name by path.
	pkg map[string]string
}

func newAuditGraph(g *projections.Graph) *auditGraph {
	a := &auditGraph{g: g, nodes: map[string]graph.Node{}, isRoot: map[string]bool{}, pkg: map[string]string{}}
	g.Nodes(func(n graph.Node) bool {
		if (n.Kind != graph.KindFunction && n.Kind != graph.KindMethod) || n.Path == "" {
			return true
		}
		if n.Metadata["interface"] == true || buildExcludedMeta(n.Metadata) {
			return true
		}
		a.funcs = append(a.funcs, n.UID)
		a.nodes[n.UID] = graph.Node{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, EndLine: n.EndLine, Extractor: n.Extractor}
		return true
	})
	return a
}

// goPackage is the package clause of the Go file p, or "".
func (a *auditGraph) goPackage(p string) string {
	if name, ok := a.pkg[p]; ok {
		return name
	}
	name := ""
	if n, ok := a.g.Node("code:file:" + p); ok {
		name, _ = n.Metadata["package"].(string)
	}
	a.pkg[p] = name
	return name
}

// name is a function's own name: the last segment of its uid.
func funcName(uid string) string { return memberName(uid) }

// isTestRoot reports whether the function n is run by a test runner: Go's
// Test*, Benchmark*, Fuzz*, TestMain and Example* with an output comment
// (go test compiles the others and runs nothing) in _test.go files;
// pytest's test_* functions and the methods of Test* classes in test
// files (and every function of a conftest.py, fixtures included); every
// function of a JavaScript/TypeScript test file (*.test.*, *.spec.*).
func (a *auditGraph) isTestRoot(n graph.Node) bool {
	if !IsTestPath(n.Path) {
		return false
	}
	name := funcName(n.UID)
	switch ext := path.Ext(n.Path); ext {
	case ".go":
		if n.Kind != graph.KindFunction {
			return false
		}
		for _, prefix := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || !isLowerStart(rest)) {
				return prefix != "Example" || a.exampleRuns(n.UID)
			}
		}
		return false
	case ".py":
		if path.Base(n.Path) == "conftest.py" || strings.HasPrefix(name, "test") {
			return true
		}
		if class := ownerClass(a.g, n.UID); n.Kind == graph.KindMethod && class != "" {
			return strings.HasPrefix(memberName(class), "Test")
		}
		return false
	}
	return true
}

// exampleRuns reports whether go test runs the Example function uid: its
// body ends with an output comment (graph.MetaExampleOutput).
func (a *auditGraph) exampleRuns(uid string) bool {
	n, ok := a.g.Node(uid)
	return ok && n.Metadata[graph.MetaExampleOutput] == true
}

// isLowerStart reports whether s starts with a lower-case letter (Go's
// rule: TestX and Test_x are tests, Testx is not).
func isLowerStart(s string) bool {
	return s != "" && s[0] >= 'a' && s[0] <= 'z'
}

// testRoots are the functions test runners call, and the test files
// themselves (a JavaScript test's describe/it callbacks are attributed to
// its file).
func (a *auditGraph) testRoots() []string {
	var roots []string
	files := map[string]bool{}
	for _, uid := range a.funcs {
		n := a.nodes[uid]
		if a.isTestRoot(n) {
			roots = append(roots, uid)
			if ext := path.Ext(n.Path); ext != ".go" && ext != ".py" {
				files[n.Path] = true
			}
		}
	}
	a.g.Nodes(func(n graph.Node) bool {
		if n.Kind == graph.KindFile && IsTestPath(n.Path) && !strings.HasSuffix(n.Path, ".go") && !strings.HasSuffix(n.Path, ".py") {
			files[n.Path] = true
		}
		return true
	})
	for _, p := range slices.Sorted(maps.Keys(files)) {
		roots = append(roots, "code:file:"+p)
	}
	for _, r := range roots {
		a.isRoot[r] = true
	}
	return roots
}

// deadRoots are the roots of dead: main and init, entry point handlers,
// tests, every file (its package-level initialisers or top-level code run
// when it is loaded) and, with exported, a library's exported API.
func (a *auditGraph) deadRoots(exported bool) []string {
	roots := a.testRoots()
	for _, uid := range a.funcs {
		n := a.nodes[uid]
		name := funcName(uid)
		isGo := strings.HasSuffix(n.Path, ".go")
		switch {
		case isGo && n.Kind == graph.KindFunction && name == "init":
		case isGo && n.Kind == graph.KindFunction && name == "main" && a.goPackage(n.Path) == "main":
		case exported && a.exportedAPI(n):
		case runtimeCalled(n, name):
		default:
			continue
		}
		roots = append(roots, uid)
	}
	a.g.Nodes(func(n graph.Node) bool {
		switch n.Kind {
		case graph.KindEntrypoint:
			roots = append(roots, a.g.Targets(n.UID, graph.EdgeHandledBy)...)
		case graph.KindFile:
			roots = append(roots, n.UID)
		}
		return true
	})
	for _, r := range roots {
		a.isRoot[r] = true
	}
	return roots
}

// nameMatched reports whether calls into n are matched by name rather
// than resolved (Completeness's rule: a Go node, or one of a file a SCIP
// index made precise while its language has no inferred file, is not).
func (a *auditGraph) nameMatched(n graph.Node) bool {
	c := NewCompleteness(a.g, true)
	c.Add(n, true)
	return c.nameMatched > 0
}

// runtimeCalled reports whether the language runtime calls the method n
// (named name) without a call in the source: a Python special method or
// module function (__init__, __call__, __get__, __eq__, a module's
// __getattr__, …: construction, operators, protocols) or a
// JavaScript/TypeScript class constructor.
func runtimeCalled(n graph.Node, name string) bool {
	switch familyOf(n.Path) {
	case familyPython:
		// Module-level ones too: __getattr__ and __dir__ of a module.
		return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
	case familyJS:
		return n.Kind == graph.KindMethod && name == "constructor"
	}
	return false
}

// exportedAPI reports whether n is part of a library's exported API: in Go
// an exported function, or an exported method of an exported type, of a
// package other than main; elsewhere a name not starting with '_' whose
// class (for a method) does not either. Test files export nothing.
func (a *auditGraph) exportedAPI(n graph.Node) bool {
	if IsTestPath(n.Path) {
		return false
	}
	name := funcName(n.UID)
	class := ""
	if n.Kind == graph.KindMethod {
		if c := ownerClass(a.g, n.UID); c != "" {
			class = memberName(c)
		}
	}
	if strings.HasSuffix(n.Path, ".go") {
		if a.goPackage(n.Path) == "main" || !exportedName(name) {
			return false
		}
		return class == "" || exportedName(class)
	}
	return !strings.HasPrefix(name, "_") && !strings.HasPrefix(class, "_")
}

// externalInterfaces are the interfaces outside the graph (stubs) that
// the type of method satisfies.
func (a *auditGraph) externalInterfaces(method string) []string {
	if class := ownerClass(a.g, method); class != "" {
		return a.externalIfaceOf(class)
	}
	return nil
}

// useEdges are the edges by which a reached function puts a type in use.
var useEdges = []string{graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeAccessesField, graph.EdgeReferences}

// reflectiveCallees are the outside functions that call methods by name
// through reflection (a template calls the methods of its data).
var reflectiveCallees = []string{"code:external:text/template.", "code:external:html/template."}

// reflective reports whether a reached function calls methods through
// reflection: it counts reflect calls (graph.MetaReflectCalls) or calls a
// template's Execute.
func (a *auditGraph) reflective(reached map[string]int) bool {
	for _, uid := range slices.Sorted(maps.Keys(reached)) {
		if n, ok := a.g.Node(uid); ok && metaCount(n.Metadata[graph.MetaReflectCalls]) > 0 {
			return true
		}
		for _, t := range a.g.Targets(uid, graph.EdgeCalls) {
			for _, p := range reflectiveCallees {
				if strings.HasPrefix(t, p) && strings.Contains(t[len(p):], "Execute") {
					return true
				}
			}
		}
	}
	return false
}

// reach walks from roots and returns the hop count of every node reached,
// stopping after depth hops (depth < 0: no bound), and the types put in
// use on the way.
func (a *auditGraph) reach(ctx context.Context, roots []string, depth int) (map[string]int, map[string]bool, error) {
	g := a.g
	dist := map[string]int{}
	// live marks the types in use; pending holds, per type not yet in use,
	// its exported methods waiting for it (they satisfy an outside
	// interface).
	live := map[string]bool{}
	var frontier []string
	visit := func(uid string, d int) {
		if _, ok := dist[uid]; !ok {
			dist[uid] = d
			frontier = append(frontier, uid)
		}
	}
	for _, r := range roots {
		visit(r, 0)
	}
	useType := func(class string, d int) {
		if live[class] {
			return
		}
		live[class] = true
		if len(a.externalIfaceOf(class)) == 0 {
			return
		}
		for _, m := range g.Targets(class, graph.EdgeContains) {
			if h, ok := g.NodeHeader(m); ok && h.Kind == graph.KindMethod && exportedName(memberName(m)) {
				visit(m, d)
			}
		}
	}
	for level := 0; len(frontier) > 0; level++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if depth >= 0 && level >= depth {
			break
		}
		cur := frontier
		frontier = nil
		for _, uid := range cur {
			next := level + 1
			for _, t := range []string{graph.EdgeCalls, graph.EdgeReferences} {
				for _, dst := range g.Targets(uid, t) {
					visit(dst, next)
				}
			}
			h, ok := g.NodeHeader(uid)
			if !ok {
				continue
			}
			if h.Kind == graph.KindMethod {
				for _, impl := range implementationsOf(g, uid) {
					visit(impl, next)
				}
				for _, sub := range overridesOf(g, uid) {
					visit(sub, next)
				}
				if class := ownerClass(g, uid); class != "" {
					useType(class, next)
				}
			}
			for _, t := range useEdges {
				for _, dst := range g.Targets(uid, t) {
					if strings.HasPrefix(dst, "code:class:") {
						useType(dst, next)
					}
				}
			}
		}
	}
	return dist, live, nil
}

// externalIfaceOf are the outside interfaces class satisfies.
func (a *auditGraph) externalIfaceOf(class string) []string {
	var out []string
	for _, iface := range a.g.Targets(class, graph.EdgeImplements) {
		if strings.HasPrefix(iface, "code:external:") {
			out = append(out, iface)
		}
	}
	return out
}
