package extract_test

// The gotypes fixtures pin the exact edges of the type-checked Go
// extractor (issue 12, item 7). Each folder of testdata/gotypes is one case:
// a small Go module (or several) that builds, and a want.txt written by
// hand from the extractor's contract. The test copies the folder, without
// want.txt, to a temporary folder, runs extract.Run over it and compares
// every graph.FileExtracted payload with want.txt. The folder
// testdata/gotypes/incremental has no want.txt: it belongs to
// TestRun_GoTypesIncremental_MovedFunction.
//
// # want.txt
//
// One statement a line. A token that starts with '#' starts a comment that
// runs to the end of the line (a '#' inside a token, as in doc:heading:
// uids, does not). Blank lines and leading whitespace are ignored, so the
// indented lines of a failure report paste as they are.
//
//	types: calls implements      edge types checked exactly: required, once, may be empty
//	root: sub                    index this sub-folder of the fixture, not its root
//	goroot: net/http             index $(go env GOROOT)/src/net/http in place (skipped without go)
//	skip_goos: plan9 js          skip the case when runtime.GOOS is one of these
//	long:                        run only with COS_LONG_TESTS=1 or when -run names the case
//	SRC -> DST TYPE [k=v ...]    an edge (full uids), with metadata it must carry
//	node UID [k=v | !k ...]      a node that must exist, with these values (!k: key absent)
//	!node UID                    a node that must not exist
//	none TYPE to|from PREFIX     no edge of TYPE whose target|source starts with PREFIX
//
// Exactness: for every type named on the types: line, the (source, target,
// type) triples of all payloads together must be exactly the edge lines of
// that type: no edge missing, no edge more. Edge lines of other types (say
// contains) are only checked to be present.
//
// Values compare in their JSON form, as the graph stores them: strings as
// they are, booleans true or false, numbers in shortest decimal form, lists
// as their elements sorted and joined by "," (fields=Max,Min). Keys a line
// does not name are not checked. On node lines kind, label, path, line and
// end_line name the node's own fields; any other key is metadata.
//
// Every case also checks three invariants: no payload has parse errors;
// every .go file node says extraction=types unless it is build_excluded or
// in a folder go ignores such as testdata (a fixture that fell back to
// syntax would pass or fail by accident); every endpoint of a checked edge
// is a node of some payload.
//
// A failure lists the missing and the unexpected edges as want.txt lines;
// an unexpected one ends with a comment naming the file and line it came
// from. Paste them after checking them against the contract: wants are
// written from the contract, never copied from the extractor's output.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

const (
	// gotypesDir holds one folder per case.
	gotypesDir = "testdata/gotypes"
	// wantFile is the name of a case's expectations, left out of the copy
	// that is indexed.
	wantFile = "want.txt"
	// incrementalFixture is the folder of the incremental test, not a case
	// of the table.
	incrementalFixture = "incremental"
	// maxReportLines bounds each section of a failure report.
	maxReportLines = 60
)

// knownEdgeTypes are the edge types a want line may name.
var knownEdgeTypes = map[string]bool{
	graph.EdgeContains: true, graph.EdgeCalls: true, graph.EdgeImports: true,
	graph.EdgeLinksTo: true, graph.EdgeCitesHeading: true, graph.EdgeInheritsFrom: true,
	graph.EdgeRequires: true, graph.EdgeDefines: true, graph.EdgeImplements: true,
	graph.EdgeReferences: true, graph.EdgeConstructs: true, graph.EdgeHasParamType: true,
	graph.EdgeAccessesField: true, graph.EdgeHandledBy: true,
}

// TestRun_GoTypesFixtures runs extract.Run over each case of
// testdata/gotypes and checks its edges and nodes against the case's
// want.txt.
func TestRun_GoTypesFixtures(t *testing.T) {
	dirs, err := os.ReadDir(gotypesDir)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == incrementalFixture {
			continue
		}
		cases++
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(gotypesDir, name)
			spec := loadWant(t, filepath.Join(dir, wantFile))
			if slices.Contains(spec.skipGOOS, runtime.GOOS) {
				t.Skipf("%s: skip_goos %s", spec.path, runtime.GOOS)
			}
			if spec.long && os.Getenv("COS_LONG_TESTS") != "1" && !runNames(name) {
				t.Skipf("long case: set COS_LONG_TESTS=1 or select it with -run 'GoTypesFixtures/%s'", name)
			}
			var root string
			if spec.goroot != "" {
				root = filepath.Join(goroot(t), "src", filepath.FromSlash(spec.goroot))
				if _, err := os.Stat(root); err != nil {
					t.Skipf("GOROOT folder: %v", err)
				}
			} else {
				root = filepath.Join(copyFixture(t, dir), filepath.FromSlash(spec.root))
			}
			x := runIndex(t, root, t.TempDir(), nil)
			if report := check(spec, x.payloads); report != "" {
				t.Error(report)
			}
		})
	}
	if cases == 0 {
		t.Fatalf("no case folder under %s", gotypesDir)
	}
}

// TestRun_GoTypesIncremental_MovedFunction moves F from p/a.go to p/b.go
// and re-runs with the previous hashes: q/q.go, unchanged, is emitted again
// with its call now to p/b.go's F, and a third run over the unchanged tree
// emits nothing and type-checks no package.
func TestRun_GoTypesIncremental_MovedFunction(t *testing.T) {
	root := copyFixture(t, filepath.Join(gotypesDir, incrementalFixture))
	cache := t.TempDir()

	first := runIndex(t, root, cache, nil)
	mustCheck(t, "first run", first.payloads, `
types: calls
code:function:q/q.go::Use -> code:function:p/a.go::F calls
code:function:q/q.go::Use -> code:function:p/a.go::G calls
code:function:q/q.go::Use -> code:function:p/b.go::H calls
`)
	if first.stats.GoPackagesChecked == 0 {
		t.Error("first run: Stats.GoPackagesChecked = 0, want > 0")
	}
	previous := first.hashes(nil)

	writeFixtureFile(t, root, "p/a.go", "// Package p lost F to b.go.\npackage p\n\n// G stays in a.go.\nfunc G() int { return 2 }\n")
	writeFixtureFile(t, root, "p/b.go", "package p\n\n// H stays in b.go.\nfunc H() int { return 3 }\n\n// F moved here from a.go.\nfunc F() int { return 1 }\n")
	second := runIndex(t, root, cache, previous)
	if _, ok := second.payloads["q/q.go"]; !ok {
		t.Fatalf("second run: q/q.go not emitted again after F moved to p/b.go; emitted %v", second.paths())
	}
	for _, p := range []string{"p/a.go", "p/b.go"} {
		if _, ok := second.payloads[p]; !ok {
			t.Errorf("second run: edited %s not emitted; emitted %v", p, second.paths())
		}
	}
	// Every calls edge the second run emitted: q's, all three current.
	mustCheck(t, "second run", second.payloads, `
types: calls
code:function:q/q.go::Use -> code:function:p/b.go::F calls
code:function:q/q.go::Use -> code:function:p/a.go::G calls
code:function:q/q.go::Use -> code:function:p/b.go::H calls
!node code:function:p/a.go::F
`)
	previous = second.hashes(previous)

	third := runIndex(t, root, cache, previous)
	if len(third.payloads) != 0 || len(third.removed) != 0 {
		t.Errorf("third run over an unchanged tree emitted %v and removed %v, want nothing", third.paths(), third.removed)
	}
	if n := third.stats.GoPackagesChecked; n != 0 {
		t.Errorf("third run over an unchanged tree: Stats.GoPackagesChecked = %d, want 0", n)
	}
}

// TestGoTypesWant_Check feeds the harness a hand-made extraction: the
// report names each missing, unexpected, mismatched and forbidden item as
// a line to paste, and a matching extraction reports nothing.
func TestGoTypesWant_Check(t *testing.T) {
	spec, err := parseWant("want.txt", []byte(`
types: calls implements   # checked exactly
code:function:a.go::F -> code:function:b.go::G calls
code:function:a.go::F -> code:function:b.go::H calls   # not emitted below
code:class:a.go::T -> code:class:b.go::I implements method_set=value
code:file:a.go -> code:function:a.go::F contains   # presence only
node code:function:b.go::G kind=function !build_excluded
node code:class:a.go::T type_kind=struct
!node code:function:b.go::Gone
none calls to code:external:*.
`))
	if err != nil {
		t.Fatal(err)
	}
	file := func(p string) graph.Node {
		return graph.Node{UID: "code:file:" + p, Kind: graph.KindFile, Extractor: "go", Metadata: map[string]any{graph.MetaExtraction: graph.ExtractionTypes}}
	}
	payloads := func(ok bool) map[string]graph.FileExtracted {
		a := graph.FileExtracted{Path: "a.go", Nodes: []graph.Node{
			file("a.go"),
			{UID: "code:function:a.go::F", Kind: graph.KindFunction},
			{UID: "code:class:a.go::T", Kind: graph.KindClass, Metadata: map[string]any{graph.MetaTypeKind: "struct"}},
		}, Edges: []graph.Edge{
			{Source: "code:file:a.go", Target: "code:function:a.go::F", Type: graph.EdgeContains},
			{Source: "code:function:a.go::F", Target: "code:function:b.go::G", Type: graph.EdgeCalls, Line: 3},
			{Source: "code:function:a.go::F", Target: "code:function:b.go::H", Type: graph.EdgeCalls, Line: 4},
			{Source: "code:class:a.go::T", Target: "code:class:b.go::I", Type: graph.EdgeImplements, Metadata: map[string]any{graph.MetaMethodSet: graph.MethodSetValue}},
			{Source: "code:function:a.go::F", Target: "code:function:b.go::G", Type: graph.EdgeReferences}, // type not checked
		}}
		b := graph.FileExtracted{Path: "b.go", Nodes: []graph.Node{
			file("b.go"),
			{UID: "code:function:b.go::G", Kind: graph.KindFunction},
			{UID: "code:function:b.go::H", Kind: graph.KindFunction},
			{UID: "code:class:b.go::I", Kind: graph.KindClass},
			{UID: "code:external:*.M", Kind: graph.KindExternal},
		}}
		if !ok {
			a.Edges = slices.Delete(a.Edges, 2, 3) // F -> H calls goes missing
			a.Edges[2].Metadata[graph.MetaMethodSet] = graph.MethodSetPointer
			a.Edges = append(a.Edges,
				graph.Edge{Source: "code:function:a.go::F", Target: "code:external:*.M", Type: graph.EdgeCalls, Line: 7},
				graph.Edge{Source: "code:function:a.go::F", Target: "code:function:c.go::Nowhere", Type: graph.EdgeCalls, Line: 8})
			a.Nodes[0].Metadata = map[string]any{graph.MetaExtraction: graph.ExtractionSyntax, graph.MetaFallback: graph.FallbackTypeError}
			b.Nodes[1].Metadata = map[string]any{graph.MetaBuildExcluded: true}
			b.Nodes = append(b.Nodes, graph.Node{UID: "code:function:b.go::Gone", Kind: graph.KindFunction})
			b.ParseErrors = []string{"b.go:1: boom"}
		}
		return map[string]graph.FileExtracted{"a.go": a, "b.go": b}
	}

	if report := check(spec, payloads(true)); report != "" {
		t.Errorf("matching extraction reported:\n%s", report)
	}
	report := check(spec, payloads(false))
	for _, want := range []string{
		"\ncode:function:a.go::F -> code:function:b.go::H calls  # want.txt:4\n",
		"\ncode:function:a.go::F -> code:external:*.M calls  # a.go:7\n",
		"\ncode:function:a.go::F -> code:function:c.go::Nowhere calls  # a.go:8\n",
		`code:class:a.go::T -> code:class:b.go::I implements: method_set is "pointer", want "value"`,
		`node code:function:b.go::G: build_excluded is "true", want absent`,
		"node code:function:b.go::Gone exists",
		"none calls to code:external:*. (want.txt:10): code:function:a.go::F -> code:external:*.M calls",
		"code:file:a.go extraction=syntax fallback=type_error",
		"b.go: b.go:1: boom",
		"code:function:c.go::Nowhere is no node",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "b.go::G calls") {
		t.Errorf("report names the matched edge F -> G:\n%s", report)
	}

	_, err = parseWant("bad.txt", []byte("types: call\nF -> G\nnode\ncode:function:a.go::F -> code:function:b.go::G calls k\nnone calls at x\n"))
	for _, want := range []string{"bad.txt:1:", "bad.txt:2:", "bad.txt:3:", "bad.txt:4:", "bad.txt:5:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parse error %v does not name %s", err, want)
		}
	}
	if _, err := parseWant("none.txt", []byte("# no types line\n")); err == nil {
		t.Error("a want file without types: parsed")
	}
}

// edgeKey is the identity of an edge as a want line names it; the
// extractor id is left out.
type edgeKey struct{ Source, Target, Type string }

func (k edgeKey) String() string { return k.Source + " -> " + k.Target + " " + k.Type }

func (k edgeKey) less(o edgeKey) bool {
	if k.Source != o.Source {
		return k.Source < o.Source
	}
	if k.Type != o.Type {
		return k.Type < o.Type
	}
	return k.Target < o.Target
}

// pair is one key=value (or !key) of a want line.
type pair struct {
	key, value string
	absent     bool
}

func (p pair) String() string {
	if p.absent {
		return "!" + p.key
	}
	return p.key + "=" + p.value
}

type wantEdge struct {
	key   edgeKey
	meta  []pair
	line  int
	exact bool // its type is on the types: line
}

func (w wantEdge) String() string {
	s := w.key.String()
	for _, p := range w.meta {
		s += " " + p.String()
	}
	return s
}

type wantNode struct {
	uid    string
	fields []pair
	absent bool // !node
	line   int
}

type wantNone struct {
	typ, dir, prefix string
	line             int
}

// wantSpec is a parsed want.txt.
type wantSpec struct {
	path     string
	types    []string
	exact    map[string]bool
	root     string
	goroot   string
	skipGOOS []string
	long     bool
	edges    []wantEdge
	nodes    []wantNode
	nones    []wantNone
}

func loadWant(t testing.TB, p string) wantSpec {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := parseWant(filepath.ToSlash(p), data)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// parseWant parses a want file; the error names every bad line.
func parseWant(name string, data []byte) (wantSpec, error) {
	s := wantSpec{path: name, exact: map[string]bool{}}
	var errs []error
	bad := func(n int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...)))
	}
	uid := func(n int, u string) bool {
		if err := graph.ValidateUID(u); err != nil {
			bad(n, "%v", err)
			return false
		}
		return true
	}
	sawTypes := false
	edgeLine := map[edgeKey]int{}
	nodeLine := map[string]int{}
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		f := wantFields(raw)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "types:":
			if sawTypes {
				bad(n, "a second types: line")
				continue
			}
			sawTypes = true
			for _, typ := range f[1:] {
				switch {
				case !knownEdgeTypes[typ]:
					bad(n, "unknown edge type %q", typ)
				case s.exact[typ]:
					bad(n, "edge type %s twice", typ)
				default:
					s.exact[typ] = true
					s.types = append(s.types, typ)
				}
			}
		case "root:", "goroot:":
			if len(f) != 2 || !filepath.IsLocal(f[1]) || path.Clean(f[1]) != f[1] {
				bad(n, "want %s <clean relative slash-separated folder>", f[0])
				continue
			}
			if f[0] == "root:" {
				s.root = f[1]
			} else {
				s.goroot = f[1]
			}
		case "skip_goos:":
			s.skipGOOS = append(s.skipGOOS, f[1:]...)
		case "long:":
			if len(f) != 1 {
				bad(n, "long: takes nothing")
			}
			s.long = true
		case "node", "!node":
			if len(f) < 2 || (f[0] == "!node" && len(f) != 2) {
				bad(n, "want node UID [key=value | !key ...] or !node UID")
				continue
			}
			if !uid(n, f[1]) {
				continue
			}
			if prev, dup := nodeLine[f[1]]; dup {
				bad(n, "node %s already on line %d", f[1], prev)
				continue
			}
			nodeLine[f[1]] = n
			fields, err := parsePairs(f[2:], true)
			if err != nil {
				bad(n, "%v", err)
				continue
			}
			s.nodes = append(s.nodes, wantNode{uid: f[1], fields: fields, absent: f[0] == "!node", line: n})
		case "none":
			if len(f) != 4 || !knownEdgeTypes[f[1]] || (f[2] != "to" && f[2] != "from") {
				bad(n, "want none TYPE to|from PREFIX")
				continue
			}
			s.nones = append(s.nones, wantNone{typ: f[1], dir: f[2], prefix: f[3], line: n})
		default:
			if len(f) < 4 || f[1] != "->" {
				bad(n, "want SRC -> DST TYPE [key=value ...], got %q", strings.Join(f, " "))
				continue
			}
			k := edgeKey{Source: f[0], Target: f[2], Type: f[3]}
			if !uid(n, k.Source) || !uid(n, k.Target) {
				continue
			}
			if !knownEdgeTypes[k.Type] {
				bad(n, "unknown edge type %q", k.Type)
				continue
			}
			if prev, dup := edgeLine[k]; dup {
				bad(n, "edge already on line %d", prev)
				continue
			}
			edgeLine[k] = n
			meta, err := parsePairs(f[4:], false)
			if err != nil {
				bad(n, "%v", err)
				continue
			}
			s.edges = append(s.edges, wantEdge{key: k, meta: meta, line: n})
		}
	}
	if !sawTypes {
		errs = append(errs, fmt.Errorf("%s: no types: line", name))
	}
	if s.root != "" && s.goroot != "" {
		errs = append(errs, fmt.Errorf("%s: root: and goroot: both set", name))
	}
	for i := range s.edges {
		s.edges[i].exact = s.exact[s.edges[i].key.Type]
	}
	return s, errors.Join(errs...)
}

// wantFields splits a line into tokens and drops the comment.
func wantFields(line string) []string {
	f := strings.Fields(line)
	for i, tok := range f {
		if strings.HasPrefix(tok, "#") {
			return f[:i]
		}
	}
	return f
}

func parsePairs(toks []string, allowAbsent bool) ([]pair, error) {
	var out []pair
	seen := map[string]bool{}
	for _, tok := range toks {
		var p pair
		if k, ok := strings.CutPrefix(tok, "!"); ok && allowAbsent {
			p = pair{key: k, absent: true}
		} else if k, v, ok := strings.Cut(tok, "="); ok {
			p = pair{key: k, value: v}
		} else {
			return nil, fmt.Errorf("%q is not key=value", tok)
		}
		if p.key == "" || seen[p.key] {
			return nil, fmt.Errorf("%q: empty or repeated key", tok)
		}
		seen[p.key] = true
		out = append(out, p)
	}
	return out, nil
}

// gotEdge is one emitted instance of an edge; the same key may come from
// several payloads.
type gotEdge struct {
	meta map[string]string
	path string
	line int
}

func (g gotEdge) origin() string {
	if g.line > 0 {
		return fmt.Sprintf("%s:%d", g.path, g.line)
	}
	return g.path
}

// check compares payloads with spec and returns the failure report, ""
// when everything matches.
func check(spec wantSpec, payloads map[string]graph.FileExtracted) string {
	edges := map[edgeKey][]gotEdge{}
	nodes := map[string][]map[string]string{}
	var parseErrs, notTyped []string
	for _, p := range sortedKeys(payloads) {
		pl := payloads[p]
		for _, e := range pl.ParseErrors {
			parseErrs = append(parseErrs, p+": "+e)
		}
		for _, n := range pl.Nodes {
			v := nodeValues(n)
			nodes[n.UID] = append(nodes[n.UID], v)
			if strings.HasPrefix(n.UID, "code:file:") && strings.HasSuffix(n.UID, ".go") &&
				v[graph.MetaBuildExcluded] != "true" && v[graph.MetaExtraction] != graph.ExtractionTypes &&
				(v[graph.MetaFallback] != graph.FallbackNotInPackage || !goIgnoredDir(n.UID)) {
				notTyped = append(notTyped, fmt.Sprintf("%s extraction=%s fallback=%s  # %s",
					n.UID, v[graph.MetaExtraction], v[graph.MetaFallback], v[graph.MetaFallbackDetail]))
			}
		}
		for _, e := range pl.Edges {
			k := edgeKey{Source: e.Source, Target: e.Target, Type: e.Type}
			edges[k] = append(edges[k], gotEdge{meta: flatten(e.Metadata), path: p, line: e.Line})
		}
	}

	var r report
	r.section("parse errors in payloads of code that builds", parseErrs)
	r.section("Go files not extracted with types (and not build_excluded)", notTyped)

	wanted := map[edgeKey]bool{}
	var missing, mismatched, dangling []string
	for _, w := range spec.edges {
		wanted[w.key] = true
		got, ok := edges[w.key]
		if !ok {
			missing = append(missing, fmt.Sprintf("%v  # %s:%d", w, filepath.Base(spec.path), w.line))
			continue
		}
		for _, g := range got {
			for _, p := range w.meta {
				if d := diffValue(g.meta, p); d != "" {
					mismatched = append(mismatched, fmt.Sprintf("%v: %s  # %s, want.txt:%d", w.key, d, g.origin(), w.line))
				}
			}
		}
		if !w.exact {
			dangling = append(dangling, danglingEnds(w.key, nodes)...)
		}
	}
	var unexpected []string
	keys := make([]edgeKey, 0, len(edges))
	for k := range edges {
		if spec.exact[k.Type] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	for _, k := range keys {
		dangling = append(dangling, danglingEnds(k, nodes)...)
		if wanted[k] {
			continue
		}
		g := edges[k][0]
		line := k.String()
		for _, mk := range sortedKeys(g.meta) {
			line += " " + mk + "=" + g.meta[mk]
		}
		unexpected = append(unexpected, line+"  # "+g.origin())
	}
	sort.Strings(missing)
	r.section(fmt.Sprintf("missing: in %s, not emitted", spec.path), missing)
	r.section(fmt.Sprintf("unexpected: emitted, not in %s (types: %s)", spec.path, strings.Join(spec.types, " ")), unexpected)
	r.section("edge metadata differs", mismatched)

	var nodeProblems []string
	for _, w := range spec.nodes {
		got, ok := nodes[w.uid]
		switch {
		case w.absent && ok:
			nodeProblems = append(nodeProblems, fmt.Sprintf("node %s exists, want none  # want.txt:%d", w.uid, w.line))
		case w.absent:
		case !ok:
			nodeProblems = append(nodeProblems, fmt.Sprintf("node %s missing  # want.txt:%d", w.uid, w.line))
		default:
			for _, v := range got {
				for _, p := range w.fields {
					if d := diffValue(v, p); d != "" {
						nodeProblems = append(nodeProblems, fmt.Sprintf("node %s: %s  # want.txt:%d", w.uid, d, w.line))
					}
				}
			}
		}
	}
	r.section("nodes", nodeProblems)

	var forbidden []string
	for _, w := range spec.nones {
		for _, k := range sortedEdgeKeys(edges) {
			end := k.Target
			if w.dir == "from" {
				end = k.Source
			}
			if k.Type == w.typ && strings.HasPrefix(end, w.prefix) {
				forbidden = append(forbidden, fmt.Sprintf("none %s %s %s (want.txt:%d): %v  # %s", w.typ, w.dir, w.prefix, w.line, k, edges[k][0].origin()))
			}
		}
	}
	r.section("forbidden edges", forbidden)
	r.section("edges whose endpoint is no node of any payload", dedupe(dangling))
	return r.String()
}

// goIgnoredDir reports whether a file uid lies in a folder the go command
// ignores (testdata, or a name starting with "_" or "."): no package holds
// such a file, so its syntax extraction is expected.
func goIgnoredDir(fileUID string) bool {
	dirs := strings.Split(strings.TrimPrefix(fileUID, "code:file:"), "/")
	for _, d := range dirs[:len(dirs)-1] {
		if d == "testdata" || strings.HasPrefix(d, "_") || strings.HasPrefix(d, ".") {
			return true
		}
	}
	return false
}

// danglingEnds reports the endpoints of k that no payload emits as a node.
func danglingEnds(k edgeKey, nodes map[string][]map[string]string) []string {
	var out []string
	for _, u := range []string{k.Source, k.Target} {
		if _, ok := nodes[u]; !ok {
			out = append(out, fmt.Sprintf("%v: %s is no node", k, u))
		}
	}
	return out
}

// diffValue describes how values break p, "" when they do not.
func diffValue(values map[string]string, p pair) string {
	v, ok := values[p.key]
	switch {
	case p.absent && ok:
		return fmt.Sprintf("%s is %q, want absent", p.key, v)
	case p.absent:
		return ""
	case !ok:
		return fmt.Sprintf("%s absent, want %q", p.key, p.value)
	case v != p.value:
		return fmt.Sprintf("%s is %q, want %q", p.key, v, p.value)
	}
	return ""
}

// nodeValues is a node's metadata and fields as want lines name them.
func nodeValues(n graph.Node) map[string]string {
	v := flatten(n.Metadata)
	v["kind"] = n.Kind
	v["label"] = n.Label
	v["path"] = n.Path
	v["line"] = strconv.Itoa(n.Line)
	v["end_line"] = strconv.Itoa(n.EndLine)
	return v
}

// flatten renders metadata as the graph stores it, through JSON.
func flatten(meta map[string]any) map[string]string {
	out := map[string]string{}
	if len(meta) == 0 {
		return out
	}
	data, err := json.Marshal(meta)
	var decoded map[string]any
	if err == nil {
		err = json.Unmarshal(data, &decoded)
	}
	if err != nil {
		out["!metadata"] = err.Error()
		return out
	}
	for k, v := range decoded {
		out[k] = renderValue(v)
	}
	return out
}

func renderValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = renderValue(e)
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	default:
		data, _ := json.Marshal(v)
		return string(data)
	}
}

// report collects the sections of a failure.
type report struct{ b strings.Builder }

func (r *report) section(title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(&r.b, "\n%s (%d):\n", title, len(lines))
	for i, l := range lines {
		if i == maxReportLines {
			fmt.Fprintf(&r.b, "… and %d more\n", len(lines)-i)
			break
		}
		r.b.WriteString(l + "\n")
	}
}

func (r *report) String() string { return r.b.String() }

// extraction is what one Run handed to emit.
type extraction struct {
	payloads map[string]graph.FileExtracted
	removed  []string
	stats    extract.Stats
}

// hashes returns previous updated with this run: the previous map of the
// next run.
func (x extraction) hashes(previous map[string]string) map[string]string {
	m := map[string]string{}
	for p, h := range previous {
		m[p] = h
	}
	for _, p := range x.removed {
		delete(m, p)
	}
	for p, pl := range x.payloads {
		m[p] = pl.ContentHash
	}
	return m
}

func (x extraction) paths() []string { return sortedKeys(x.payloads) }

// runIndex runs extract.Run over root and collects what emit received.
func runIndex(t testing.TB, root, cacheDir string, previous map[string]string) extraction {
	t.Helper()
	x := extraction{payloads: map[string]graph.FileExtracted{}}
	var mu sync.Mutex // guards x, in case emit is called from several goroutines
	st, err := extract.Run(context.Background(), root, extract.Options{CacheDir: cacheDir}, previous,
		func(batch []graph.FileExtracted, removed []string) error {
			mu.Lock()
			defer mu.Unlock()
			for _, p := range batch {
				if _, dup := x.payloads[p.Path]; dup {
					t.Errorf("%s emitted twice in one run", p.Path)
				}
				x.payloads[p.Path] = p
			}
			x.removed = append(x.removed, removed...)
			return nil
		})
	if err != nil {
		t.Fatalf("extract.Run(%s): %v", root, err)
	}
	x.stats = st
	return x
}

// mustCheck checks payloads against an inline want text.
func mustCheck(t testing.TB, name string, payloads map[string]graph.FileExtracted, want string) {
	t.Helper()
	spec, err := parseWant(name, []byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if r := check(spec, payloads); r != "" {
		t.Errorf("%s:%s", name, r)
	}
}

// copyFixture copies a case folder, without its want.txt, to a fresh
// temporary folder (outside this module, so the fixture's own go.mod files
// are the only ones above its packages) and returns it.
func copyFixture(t testing.TB, dir string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dst, wantFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return dst
}

func writeFixtureFile(t testing.TB, root, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runNames reports whether the -run pattern names the case explicitly.
func runNames(name string) bool {
	f := flag.Lookup("test.run")
	return f != nil && strings.Contains(f.Value.String(), name)
}

var (
	gorootOnce sync.Once
	gorootDir  string
	gorootErr  error
)

// goroot returns $(go env GOROOT), skipping the test when go cannot say.
func goroot(t testing.TB) string {
	t.Helper()
	gorootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		gorootDir, gorootErr = strings.TrimSpace(string(out)), err
		if err == nil && gorootDir == "" {
			gorootErr = errors.New("empty")
		}
	})
	if gorootErr != nil {
		t.Skipf("go env GOROOT: %v", gorootErr)
	}
	return gorootDir
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedEdgeKeys(m map[edgeKey][]gotEdge) []edgeKey {
	out := make([]edgeKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

func dedupe(lines []string) []string {
	sort.Strings(lines)
	return slices.Compact(lines)
}
