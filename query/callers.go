package query

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// This file is what references, impact and context
// cos_graph_context share about callers and dependents: how sure an answer
// is (meta.completeness), following an implementation to the callers of the
// interface methods it implements, and recognising test files.

// Values of meta.completeness.
const (
	// CompleteExact: no reason is known why a caller or dependent would be
	// missing from the graph.
	CompleteExact = "exact"
	// CompleteLowerBound: some may be missing; meta.completeness_reasons
	// says why.
	CompleteLowerBound = "lower_bound"
)

// Keys of meta.completeness_reasons; each is present only when non-zero.
// The "asked" nodes of an answer are those whose incoming edges it lists:
// the root for cos_graph_references and cos_graph_context, every node the
// walk expanded for cos_graph_impact, plus the interface methods followed
// through implements.
const (
	// reasonFuncValueCalls is the graph's number of call sites through func
	// values (the sum of dynamic_calls), when the answer follows calls and
	// an asked node is used as a value (an incoming references edge): any
	// of those call sites may call it.
	reasonFuncValueCalls = "func_value_calls"
	// reasonReflectCalls is the graph's number of reflective call sites
	// (the sum of reflect_calls), when the answer follows calls and an
	// asked node is an exported Go method, which reflection can call by
	// name.
	reasonReflectCalls = "reflect_calls"
	// reasonSyntaxFallbackFiles is the number of Go files read without
	// types because their package failed to load or type-check (their
	// calls are a name-based guess), when an asked node lives in a Go
	// file.
	reasonSyntaxFallbackFiles = "syntax_fallback_files"
	// reasonGoUnavailable is the number of those files read by syntax
	// because the indexer found no go command on its PATH.
	reasonGoUnavailable = "go_unavailable"
	// reasonNameMatchedNodes is the number of asked nodes of another
	// language than Go (a file, function, method or class of a Python,
	// TypeScript, JavaScript, Java, C, C++, Rust, PHP or Ruby file, or a
	// code:external: stub their unresolved calls point at) whose callers
	// and references are matched by name, without types: their own file,
	// or another file of their language, is not precise (cos index
	// --precise or --scip), so calls through dynamic dispatch may not be
	// seen.
	reasonNameMatchedNodes = "name_matched_nodes"
	// reasonInferredFiles is the number of files of an asked node's
	// language (Python; or JavaScript and TypeScript) whose calls were
	// inferred from the syntax rather than taken from a SCIP index: any of
	// them may call the node unseen.
	reasonInferredFiles = "inferred_files"
	// reasonUnresolvedReceivers is the number of calls, in files of an
	// asked node's language, on a receiver of unknown type to a member of
	// the node's name (calls edges into the code:external:*.<name> stub):
	// no type checker knew what x is in x.name(), so any of them may call
	// the node.
	reasonUnresolvedReceivers = "unresolved_receivers"
	// reasonInferredSites is the number of call and reference sites in
	// precise files reaching an asked node by an edge the extractor
	// inferred, because the SCIP index had nothing there or could not say
	// which declaration the site is in (graph.MetaInferredSites): the
	// index did not cover them, so others like them may be missing.
	reasonInferredSites = "inferred_sites"
)

// A language family: the files whose calls may reach one another.
const (
	familyNone = iota
	familyPython
	familyJS
)

// familyOf returns the language family of a path, by its extension.
func familyOf(p string) int {
	switch strings.ToLower(path.Ext(p)) {
	case ".py", ".pyi":
		return familyPython
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return familyJS
	}
	return familyNone
}

// Completeness gathers the reasons of one answer; add every asked node.
type Completeness struct {
	g *projections.Graph
	// calls is set when the answer follows calls edges.
	calls bool

	referenced, reflectable, inGo bool
	nameMatched                   int
	// inferredSites sums graph.MetaInferredSites of the asked nodes.
	inferredSites int
	// families marks the language families of the asked Python,
	// TypeScript and JavaScript nodes; members their names (the last
	// segment of the label), by family, for unresolved receivers.
	families [3]bool
	members  map[string]int
	// precise caches whether a file node says extraction "precise".
	precise map[string]bool
}

// Extractor ids (graph.Node.Extractor) whose incoming edges are found by
// type or by path, never by matching a name: the Go extractor (type-checked;
// its syntax fallback is counted by reasonSyntaxFallbackFiles), and the
// folder, plain file, document, config and manifest nodes, reached by
// contains, links_to and depends_on edges resolved from paths and package
// names. Every other extractor, including one added later, matches callers
// and references by name: its nodes are a lower bound unless a SCIP index
// made their file precise. The values are the ids of package extract/lang.
var exactExtractors = map[string]bool{
	"go": true, "folder": true, "file": true, "markdown": true, "config": true, "manifest": true,
}

// Extractor ids handled apart: Python and JavaScript/TypeScript files are
// counted by family (reasonInferredFiles); nodes an agent wrote are read by
// their path.
const (
	extractorPython = "python"
	extractorJSTS   = "jsts"
	extractorAgent  = projections.AgentOwner
)

// Add records an asked node; referenced says it has an incoming
// references edge (a class's, from a type annotation, does not count: only
// a function or method is called through a func value).
//
// Whether its callers can be exact is keyed on the extractor that wrote
// it: an allow-list (exactExtractors), so that a node of any other
// language — its file node, its declarations, the code:external: stubs its
// unresolved calls point at — counts in reasonNameMatchedNodes unless its
// file is precise. A node an agent wrote (or one without an extractor) is
// judged by its path: a Go file's as Go, a declaration elsewhere as name
// matched, anything else as written.
func (c *Completeness) Add(n graph.Node, referenced bool) {
	code := n.Kind == graph.KindFunction || n.Kind == graph.KindMethod || n.Kind == graph.KindClass
	byPath := n.Extractor == "" || n.Extractor == extractorAgent
	goNode := n.Extractor == "go" || byPath && strings.HasSuffix(n.Path, ".go")
	goFile := goNode && strings.HasSuffix(n.Path, ".go")
	c.referenced = c.referenced || referenced && n.Kind != graph.KindClass
	c.inGo = c.inGo || goFile
	if goFile && n.Kind == graph.KindMethod && exportedName(memberName(n.UID)) {
		c.reflectable = true
	}
	switch {
	case goNode, exactExtractors[n.Extractor]:
		return
	case byPath && (n.Path == "" || !code):
		return
	}
	fam := familyOf(n.Path)
	switch {
	case n.Extractor == extractorPython:
		fam = familyPython
	case n.Extractor == extractorJSTS:
		fam = familyJS
	case !byPath:
		// Another language: matched by name unless a SCIP index made its
		// file precise.
		fam = familyNone
	}
	if fam == familyNone {
		// A language cos does not parse (its nodes come from a SCIP index,
		// unless an agent wrote them), or one it parses without types.
		if n.Path == "" || !c.filePrecise(n.Path) {
			c.nameMatched++
		}
		return
	}
	c.families[fam] = true
	if code {
		if c.members == nil {
			c.members = map[string]int{}
		}
		c.members[n.Label[strings.LastIndexByte(n.Label, '.')+1:]] = fam
	}
	if n.Path == "" || !c.filePrecise(n.Path) || c.inferred(fam) > 0 {
		c.nameMatched++
	} else if full, ok := c.g.Node(n.UID); ok {
		c.inferredSites += metaCount(full.Metadata[graph.MetaInferredSites])
	}
}

// metaCount reads a count from decoded metadata: a positive whole number,
// else 0.
func metaCount(v any) int {
	switch x := v.(type) {
	case float64:
		if x >= 1 && x <= 1<<40 {
			return int(x)
		}
	case int:
		return max(x, 0)
	}
	return 0
}

// inferred returns the number of files of a family that are not precise.
func (c *Completeness) inferred(fam int) int {
	u := c.g.Unresolved()
	switch fam {
	case familyPython:
		return u.InferredPython
	case familyJS:
		return u.InferredJS
	}
	return 0
}

// filePrecise reports whether the file node of path says its calls come
// from a SCIP index (one metadata decode per file).
func (c *Completeness) filePrecise(p string) bool {
	if v, ok := c.precise[p]; ok {
		return v
	}
	if c.precise == nil {
		c.precise = map[string]bool{}
	}
	f, ok := c.g.Node(graph.SourceFileUID(p))
	v := ok && f.Metadata[graph.MetaExtraction] == graph.ExtractionPrecise
	c.precise[p] = v
	return v
}

// unresolvedReceivers counts the calls edges into code:external:*.<name>
// stubs, for the asked members, from files of the member's family.
func (c *Completeness) unresolvedReceivers() int {
	n := 0
	for name, fam := range c.members {
		c.g.EachIn(graph.ExternalUID("*."+name), func(src, typ string) bool {
			if typ != graph.EdgeCalls {
				return true
			}
			if h, ok := c.g.NodeHeader(src); ok && familyOf(h.Path) == fam {
				n++
			}
			return true
		})
	}
	return n
}

// AddUID is Add for a uid, looking up its header and references.
func (c *Completeness) AddUID(uid string) {
	if n, ok := c.g.NodeHeader(uid); ok {
		c.Add(n, c.g.HasIn(uid, graph.EdgeReferences))
	}
}

// Meta returns meta.completeness and meta.completeness_reasons (nil when
// exact).
func (c *Completeness) Meta() (string, map[string]int) {
	u := c.g.Unresolved()
	reasons := map[string]int{}
	if c.calls && c.referenced && u.DynamicCalls > 0 {
		reasons[reasonFuncValueCalls] = u.DynamicCalls
	}
	if c.calls && c.reflectable && u.ReflectCalls > 0 {
		reasons[reasonReflectCalls] = u.ReflectCalls
	}
	if c.inGo && u.LowerBoundFiles > 0 {
		reasons[reasonSyntaxFallbackFiles] = u.LowerBoundFiles
		if u.GoUnavailableFiles > 0 {
			reasons[reasonGoUnavailable] = u.GoUnavailableFiles
		}
	}
	if c.nameMatched > 0 {
		reasons[reasonNameMatchedNodes] = c.nameMatched
	}
	if n := c.inferred(familyPython)*b2i(c.families[familyPython]) + c.inferred(familyJS)*b2i(c.families[familyJS]); n > 0 {
		reasons[reasonInferredFiles] = n
	}
	if n := c.unresolvedReceivers(); n > 0 {
		reasons[reasonUnresolvedReceivers] = n
	}
	if c.inferredSites > 0 {
		reasons[reasonInferredSites] = c.inferredSites
	}
	if len(reasons) == 0 {
		return CompleteExact, nil
	}
	return CompleteLowerBound, reasons
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BuildExclusion tells which nodes live in Go files the current build
// leaves out (build constraints such as //go:build, or a file name such as
// x_windows.go): the extractor sets graph.MetaBuildExcluded on such a file's
// node and on each of its declarations. A Go file in a folder the go
// command ignores (GoIgnoredPath: testdata, _x, .x) is build-excluded too.
// Their edges are real code, but code this build never compiles: a caller
// there cannot call the node here, though another build configuration may
// compile it. Such callers are marked build_excluded, left out of
// references and impact unless asked for (Scope), and do not make an
// answer a lower bound.
//
// It reads the file node once per path (one metadata decode per file, not
// per node); a node whose file has no node is asked itself.
type BuildExclusion struct {
	g      *projections.Graph
	byPath map[string]bool
}

// NewBuildExclusion returns the exclusion of g's build-excluded files.
func NewBuildExclusion(g *projections.Graph) *BuildExclusion {
	return &BuildExclusion{g: g, byPath: map[string]bool{}}
}

// Of reports whether n (a header: its metadata is not needed) is in a
// build-excluded file.
func (x *BuildExclusion) Of(n graph.Node) bool {
	if n.Path == "" || !strings.HasSuffix(n.Path, ".go") {
		return false
	}
	if GoIgnoredPath(n.Path) {
		return true
	}
	if v, ok := x.byPath[n.Path]; ok {
		return v
	}
	if f, ok := x.g.Node("code:file:" + n.Path); ok {
		v := buildExcludedMeta(f.Metadata)
		x.byPath[n.Path] = v
		return v
	}
	full, ok := x.g.Node(n.UID)
	return ok && buildExcludedMeta(full.Metadata)
}

// OfUID is Of for a uid; a uid that is not a node is not excluded.
func (x *BuildExclusion) OfUID(uid string) bool {
	n, ok := x.g.NodeHeader(uid)
	return ok && x.Of(n)
}

// buildExcludedMeta reports whether metadata says build_excluded: true.
func buildExcludedMeta(m map[string]any) bool {
	b, _ := m[graph.MetaBuildExcluded].(bool)
	return b
}

// NoneFoundNote is data.note of an answer that found nothing: what was
// looked for, and whether that can be trusted (completeness is the
// answer's meta.completeness).
func NoneFoundNote(what string, types []string, completeness string) string {
	if completeness == CompleteExact {
		return fmt.Sprintf("no %s found through %s; completeness is exact: nothing indexed reaches this node through these edge types",
			what, strings.Join(types, ", "))
	}
	return fmt.Sprintf("no %s found through %s, but completeness is lower_bound (see meta.completeness_reasons): "+
		"callers through func values or reflection, in files read without types, matched by name or on receivers of unknown type may exist; "+
		"check before treating the node as unused", what, strings.Join(types, ", "))
}

// memberName is the last dot-separated part of the name after "::" in a
// code uid (code:function:p.go::Server.ServeHTTP → ServeHTTP), or "".
func memberName(uid string) string {
	i := strings.LastIndex(uid, "::")
	if i < 0 {
		return ""
	}
	name := uid[i+2:]
	return name[strings.LastIndexByte(name, '.')+1:]
}

// exportedName reports whether a Go identifier is exported.
func exportedName(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// ownerClass returns the class that contains method (its receiver type or
// interface), or "".
func ownerClass(g *projections.Graph, method string) string {
	for _, uid := range g.Sources(method, graph.EdgeContains) {
		if n, ok := g.NodeHeader(uid); ok && n.Kind == graph.KindClass {
			return uid
		}
	}
	return ""
}

// methodOf returns the method of class named name: the uid the scheme gives
// it (code:class:p::T → code:function:p::T.name) when that is a node, else
// a method contained by the class with that name (a Go method declared in
// another file than its type), else "".
func methodOf(g *projections.Graph, class, name string) string {
	if rest, ok := strings.CutPrefix(class, "code:class:"); ok {
		uid := "code:function:" + rest + "." + name
		if n, ok := g.NodeHeader(uid); ok && n.Kind == graph.KindMethod {
			return uid
		}
	}
	for _, uid := range g.Targets(class, graph.EdgeContains) {
		if n, ok := g.NodeHeader(uid); ok && n.Kind == graph.KindMethod && memberName(uid) == name {
			return uid
		}
	}
	return ""
}

// DispatchVia is a method through which a call may reach another: an
// interface method it implements (Via "implements") or a method of a base
// class it overrides (Via "inherits_from"; Python, JavaScript, TypeScript).
type DispatchVia struct{ UID, Via string }

// maxAncestors bounds the walk up a class hierarchy (cycles are cut by a
// visited set; this bounds pathological depth).
const maxAncestors = 64

// DispatchesOf returns the methods a call may reach method through: the
// interface methods its class implements and, walking the
// inherits_from edges of its class up the hierarchy, the same-named
// methods of every ancestor class and of the interfaces they implement — a
// call on a Base-typed receiver may run the override.
func DispatchesOf(g *projections.Graph, method string) []DispatchVia {
	name := memberName(method)
	class := ownerClass(g, method)
	if name == "" || class == "" {
		return nil
	}
	var out []DispatchVia
	seen := map[string]bool{method: true}
	add := func(owner, via string) {
		m := methodOf(g, owner, name)
		if m == "" || seen[m] {
			return
		}
		seen[m] = true
		if n, ok := g.NodeHeader(owner); ok && n.Metadata[graph.MetaTypeKind] == "interface" {
			via = graph.EdgeImplements
		}
		out = append(out, DispatchVia{m, via})
	}
	visited := map[string]bool{}
	queue := []string{class}
	for len(queue) > 0 && len(visited) < maxAncestors {
		c := queue[0]
		queue = queue[1:]
		if visited[c] {
			continue
		}
		visited[c] = true
		for _, iface := range g.Targets(c, graph.EdgeImplements) {
			add(iface, graph.EdgeImplements)
			queue = append(queue, iface)
		}
		for _, base := range g.Targets(c, graph.EdgeInheritsFrom) {
			add(base, graph.EdgeInheritsFrom)
			queue = append(queue, base)
		}
	}
	return out
}

// implementationsOf returns the methods that implement the interface
// method ifaceMethod: for its interface I and every type T with
// T --implements--> I, the method of T with the same name.
func implementationsOf(g *projections.Graph, ifaceMethod string) []string {
	name := memberName(ifaceMethod)
	iface := ownerClass(g, ifaceMethod)
	if name == "" || iface == "" {
		return nil
	}
	var out []string
	for _, impl := range g.Sources(iface, graph.EdgeImplements) {
		if m := methodOf(g, impl, name); m != "" && m != ifaceMethod {
			out = append(out, m)
		}
	}
	return out
}

// overridesOf returns the methods that override method: for its class C
// and every class that inherits from C, directly or not, the method with
// the same name (a Python, JavaScript, TypeScript, Java or C++ override).
func overridesOf(g *projections.Graph, method string) []string {
	name := memberName(method)
	class := ownerClass(g, method)
	if name == "" || class == "" {
		return nil
	}
	var out []string
	visited := map[string]bool{class: true}
	queue := []string{class}
	for len(queue) > 0 && len(visited) < maxAncestors {
		c := queue[0]
		queue = queue[1:]
		for _, sub := range g.Sources(c, graph.EdgeInheritsFrom) {
			if visited[sub] {
				continue
			}
			visited[sub] = true
			queue = append(queue, sub)
			if m := methodOf(g, sub, name); m != "" && m != method {
				out = append(out, m)
			}
		}
	}
	return out
}

// interfaceMethodsIn returns the methods of class when it is an interface
// (metadata type_kind "interface", or something implements it), else nil.
func interfaceMethodsIn(g *projections.Graph, class string) []string {
	n, ok := g.Node(class)
	if !ok || n.Kind != graph.KindClass {
		return nil
	}
	if n.Metadata[graph.MetaTypeKind] != "interface" && !g.HasIn(class, graph.EdgeImplements) {
		return nil
	}
	var out []string
	for _, uid := range g.Targets(class, graph.EdgeContains) {
		if h, ok := g.NodeHeader(uid); ok && h.Kind == graph.KindMethod {
			out = append(out, uid)
		}
	}
	return out
}

// IsTestPath reports whether a repo-relative path is a test file: Go's
// *_test.go, Python's test_*.py, *_test.py and conftest.py, *.test.* and
// *.spec.* (JavaScript, TypeScript), or any file under a tests/ or
// __tests__/ folder. cos_graph_rename_plan uses it too.
func IsTestPath(p string) bool {
	if p == "" {
		return false
	}
	if strings.HasPrefix(p, "tests/") || strings.HasPrefix(p, "__tests__/") ||
		strings.Contains(p, "/tests/") || strings.Contains(p, "/__tests__/") {
		return true
	}
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case ext == ".go":
		return strings.HasSuffix(stem, "_test")
	case ext == ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest"
	}
	return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec")
}

// NewCompleteness returns the completeness of an answer about g that
// follows calls edges when calls is set; Add every asked node to it.
func NewCompleteness(g *projections.Graph, calls bool) *Completeness {
	return &Completeness{g: g, calls: calls}
}

// FallbackSampleSize is the number of files meta.fallback_files names.
const FallbackSampleSize = 5

// FallbackSample is meta.fallback_files of an answer whose completeness
// reasons are reasons: the first FallbackSampleSize files (sorted paths)
// that syntax_fallback_files counts; nil when reasons do not count them.
func FallbackSample(g *projections.Graph, reasons map[string]int) []string {
	if reasons[reasonSyntaxFallbackFiles] == 0 {
		return nil
	}
	files := g.LowerBoundFiles()
	out := make([]string, 0, min(len(files), FallbackSampleSize))
	for _, f := range files[:min(len(files), FallbackSampleSize)] {
		out = append(out, f.Path)
	}
	return out
}

// FallbackSample is FallbackSample of c's graph.
func (c *Completeness) FallbackSample(reasons map[string]int) []string {
	return FallbackSample(c.g, reasons)
}
