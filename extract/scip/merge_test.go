package scip_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
)

// writeTree writes files (path → content) under a fresh folder and returns
// its real path.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// extractTree runs the real extractors over root and returns every payload.
func extractTree(t testing.TB, root string) []graph.FileExtracted {
	t.Helper()
	var out []graph.FileExtracted
	_, err := extract.Run(context.Background(), root, extract.Options{}, nil, func(b []graph.FileExtracted, _ []string) error {
		out = append(out, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// occ builds an occurrence: r is the range, enc the enclosing range.
func occ(sym string, roles scippb.SymbolRole, r []int32, enc ...int32) *scippb.Occurrence {
	return &scippb.Occurrence{Symbol: sym, SymbolRoles: int32(roles), Range: r, EnclosingRange: enc}
}

const def = scippb.SymbolRole_Definition

// index builds a SCIP index written by tool for root.
func index(tool, version, root string, docs ...*scippb.Document) *scippb.Index {
	return &scippb.Index{
		Metadata:  &scippb.Metadata{ToolInfo: &scippb.ToolInfo{Name: tool, Version: version}, ProjectRoot: "file://" + filepath.ToSlash(root)},
		Documents: docs,
	}
}

// calls lists a payload set's calls and references edges as
// "type source -> target @line", sorted, leaving out stubs unless keepStubs.
func callEdges(ps []graph.FileExtracted, keepStubs bool) []string {
	var out []string
	for _, p := range ps {
		for _, e := range p.Edges {
			if e.Type != graph.EdgeCalls && e.Type != graph.EdgeReferences {
				continue
			}
			if !keepStubs && strings.HasPrefix(e.Target, "code:external:") {
				continue
			}
			out = append(out, e.Type+" "+e.Source+" -> "+e.Target+" @"+strconv.Itoa(e.Line))
		}
	}
	sort.Strings(out)
	return out
}

func payloadOf(t testing.TB, ps []graph.FileExtracted, path string) graph.FileExtracted {
	t.Helper()
	for _, p := range ps {
		if p.Path == path {
			return p
		}
	}
	t.Fatalf("no payload for %s", path)
	return graph.FileExtracted{}
}

func nodeOf(t testing.TB, p graph.FileExtracted, uid string) graph.Node {
	t.Helper()
	for _, n := range p.Nodes {
		if n.UID == uid {
			return n
		}
	}
	t.Fatalf("no node %s in %s", uid, p.Path)
	return graph.Node{}
}

var pyFiles = map[string]string{
	"pkg/__init__.py": "",
	"pkg/b.py": `def helper(v):
    return v

class Base:
    def __init__(self):
        pass
`,
	"pkg/a.py": `from pkg.b import helper, Base

def top(x):
    return helper(x)

class C(Base):
    def __init__(self):
        super().__init__()
        self.run()

    def run(self, other):
        f = top
        other.close()
        return f(1)

C().run(None)
`,
}

// pyIndex is what scip-python would write for pyFiles (symbols trimmed to
// what the mapping reads).
func pyIndex(root string) *scippb.Index {
	const pkg = "scip-python python fx 0 "
	a, b := pkg+"`pkg.a`/", pkg+"`pkg.b`/"
	return index("scip-python", "0.6.6", root,
		&scippb.Document{RelativePath: "pkg/b.py", Language: "python", Occurrences: []*scippb.Occurrence{
			occ(b+"__init__:", def, []int32{0, 0, 0}),
			occ(b+"helper().", def, []int32{0, 4, 10}, 0, 0, 1, 12),
			occ(b+"helper().(v)", def, []int32{0, 11, 12}),
			occ(b+"Base#", def, []int32{3, 6, 10}, 3, 0, 5, 12),
			occ(b+"Base#__init__().", def, []int32{4, 8, 16}, 4, 4, 5, 12),
		}},
		&scippb.Document{RelativePath: "pkg/a.py", Language: "python", Occurrences: []*scippb.Occurrence{
			occ(a+"__init__:", def, []int32{0, 0, 0}),
			occ(b+"__init__:", scippb.SymbolRole_ReadAccess, []int32{0, 5, 10}),
			occ(b+"helper().", scippb.SymbolRole_ReadAccess, []int32{0, 18, 24}), // an import: no edge
			occ(b+"Base#", scippb.SymbolRole_ReadAccess, []int32{0, 26, 30}),
			occ(a+"top().", def, []int32{2, 4, 7}, 2, 0, 3, 20),
			occ(a+"top().(x)", def, []int32{2, 8, 9}),
			occ(b+"helper().", scippb.SymbolRole_ReadAccess, []int32{3, 11, 17}),
			occ(a+"top().(x)", scippb.SymbolRole_ReadAccess, []int32{3, 18, 19}),
			occ(a+"C#", def, []int32{5, 6, 7}, 5, 0, 13, 19),
			occ(b+"Base#", scippb.SymbolRole_ReadAccess, []int32{5, 8, 12}),
			occ(a+"C#__init__().", def, []int32{6, 8, 16}, 6, 4, 8, 18),
			occ("scip-python python python-stdlib 3.11 builtins/super#", scippb.SymbolRole_ReadAccess, []int32{7, 8, 13}),
			occ(b+"Base#__init__().", scippb.SymbolRole_ReadAccess, []int32{7, 16, 24}),
			occ(a+"C#run().", scippb.SymbolRole_ReadAccess, []int32{8, 13, 16}),
			occ(a+"C#run().", def, []int32{10, 8, 11}, 10, 4, 13, 19),
			occ("local 0", def, []int32{11, 8, 9}),
			occ(a+"top().", scippb.SymbolRole_ReadAccess, []int32{11, 12, 15}),
			occ(a+"C#run().(other)", scippb.SymbolRole_ReadAccess, []int32{12, 8, 13}),
			// other.close(): other is untyped, close has no symbol.
			occ("local 0", scippb.SymbolRole_ReadAccess, []int32{13, 15, 16}),
			occ(a+"C#", scippb.SymbolRole_ReadAccess, []int32{15, 0, 1}),
			occ(a+"C#run().", scippb.SymbolRole_ReadAccess, []int32{15, 4, 7}),
		}})
}

func TestMerge_Python(t *testing.T) {
	root := writeTree(t, pyFiles)
	ps := extractTree(t, root)
	res := scip.Merge(root, ps, scip.Place(pyIndex(root), root))

	if want := []string{"pkg/a.py", "pkg/b.py"}; !slices.Equal(res.Precise, want) {
		t.Fatalf("Precise = %v, want %v (skipped %v)", res.Precise, want, res.Skipped)
	}
	const (
		a    = "code:file:pkg/a.py"
		top  = "code:function:pkg/a.py::top"
		c    = "code:class:pkg/a.py::C"
		cin  = "code:function:pkg/a.py::C.__init__"
		run  = "code:function:pkg/a.py::C.run"
		help = "code:function:pkg/b.py::helper"
		base = "code:class:pkg/b.py::Base"
		bin  = "code:function:pkg/b.py::Base.__init__"
	)
	want := []string{
		"calls " + a + " -> " + c + " @16",
		"calls " + a + " -> " + run + " @16",
		"calls " + cin + " -> " + bin + " @8",
		"calls " + cin + " -> " + run + " @9",
		"calls " + run + " -> code:external:*.close @13",
		"calls " + top + " -> " + help + " @4",
		"references " + c + " -> " + base + " @6",
		"references " + run + " -> " + top + " @12",
	}
	sort.Strings(want)
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if res.Calls != 5 || res.References != 2 || res.Unresolved != 1 {
		t.Errorf("Calls, References, Unresolved = %d, %d, %d; want 5, 2, 1", res.Calls, res.References, res.Unresolved)
	}

	pa := payloadOf(t, ps, "pkg/a.py")
	fn := nodeOf(t, pa, a)
	if fn.Metadata[graph.MetaExtraction] != graph.ExtractionPrecise || fn.Metadata[graph.MetaIndexer] != "scip-python 0.6.6" {
		t.Errorf("file node metadata = %v", fn.Metadata)
	}
	if got := nodeOf(t, pa, top).Metadata[graph.MetaSCIPSymbol]; got != "scip-python python fx 0 `pkg.a`/top()." {
		t.Errorf("scip_symbol of top = %v", got)
	}
	// f(1) calls a local variable: a call through a func value.
	if got := nodeOf(t, pa, run).Metadata[graph.MetaDynamicCalls]; got != 1 {
		t.Errorf("dynamic_calls of C.run = %v, want 1", got)
	}
	// The inheritance edge is the extractor's, and stays.
	found := false
	for _, e := range pa.Edges {
		found = found || e.Type == graph.EdgeInheritsFrom && e.Source == c && e.Target == base
	}
	if !found {
		t.Error("inherits_from C -> Base was dropped")
	}
	// No stub is left that no edge points at.
	targeted := map[string]bool{}
	for _, e := range pa.Edges {
		targeted[e.Target] = true
	}
	for _, n := range pa.Nodes {
		if n.Kind == graph.KindExternal && n.Metadata["stub"] == true && !targeted[n.UID] {
			t.Errorf("orphan stub %s", n.UID)
		}
	}
}

// A call the extractor resolved at a site where the index has no
// occurrence of the callee's name stays: it is what is known, marked
// inferred, and counted on the callee (inferred_sites).
func TestMerge_UncoveredSiteKeepsInferredEdge(t *testing.T) {
	root := writeTree(t, map[string]string{"m.py": `class A:
    def go(self):
        pass

def use(a: A):
    a.go()
`})
	ps := extractTree(t, root)
	const m = "scip-python python fx 0 m/"
	idx := index("scip-python", "0.6.6", root, &scippb.Document{RelativePath: "m.py", Occurrences: []*scippb.Occurrence{
		occ(m+"A#", def, []int32{0, 6, 7}, 0, 0, 2, 12),
		occ(m+"A#go().", def, []int32{1, 8, 10}, 1, 4, 2, 12),
		occ(m+"use().", def, []int32{4, 4, 7}, 4, 0, 5, 10),
		occ(m+"use().(a)", def, []int32{4, 8, 9}),
		occ(m+"A#", 0, []int32{4, 11, 12}),
		occ(m+"use().(a)", 0, []int32{5, 4, 5}),
		// No occurrence for go on line 6.
	}})
	before := callEdges(ps, true)
	if !slices.Contains(before, "calls code:function:m.py::use -> code:function:m.py::A.go @6") {
		t.Fatalf("the extractor does not resolve a.go() from the annotation (edges %v)", before)
	}
	res := scip.Merge(root, ps, scip.Place(idx, root))
	want := []string{
		"calls code:function:m.py::use -> code:function:m.py::A.go @6",
		"references code:function:m.py::use -> code:class:m.py::A @5",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	p := payloadOf(t, ps, "m.py")
	for _, e := range p.Edges {
		inferred := e.Metadata[graph.MetaInferred] == true
		if want := e.Target == "code:function:m.py::A.go"; e.Type == graph.EdgeCalls && inferred != want {
			t.Errorf("%s -> %s inferred = %v, want %v", e.Source, e.Target, inferred, want)
		}
	}
	if got := nodeOf(t, p, "code:function:m.py::A.go").Metadata[graph.MetaInferredSites]; got != 1 {
		t.Errorf("inferred_sites of A.go = %v, want 1", got)
	}
	if got := nodeOf(t, p, "code:class:m.py::A").Metadata[graph.MetaInferredSites]; got != nil {
		t.Errorf("inferred_sites of A = %v, want none (the index has its site)", got)
	}
	if res.InferredSites != 1 || res.Unresolved != 0 {
		t.Errorf("InferredSites, Unresolved = %d, %d; want 1, 0", res.InferredSites, res.Unresolved)
	}
}

// legacyJS is a prototype method: scip-typescript names speak with a
// local symbol, at its definition and at a.speak().
const legacyJS = `function Animal(name) { this.name = name; }
Animal.prototype.speak = function () { return this.name; };
function talk() { var a = new Animal("x"); return a.speak(); }
module.exports = { Animal: Animal, talk: talk };
`

// legacyIndex is what scip-typescript 0.4.0 writes for legacyJS.
func legacyIndex(root string) *scippb.Index {
	const l = "scip-typescript npm . . `legacy.js`/"
	return index("scip-typescript", "0.4.0", root, &scippb.Document{RelativePath: "legacy.js", Occurrences: []*scippb.Occurrence{
		occ(l, def, []int32{0, 0, 0}, 0, 0, 4, 0),
		occ(l+"Animal().", def, []int32{0, 9, 15}, 0, 0, 43),
		occ(l+"Animal().(name)", def, []int32{0, 16, 20}),
		occ("local 1", 0, []int32{0, 29, 33}),
		occ(l+"Animal().(name)", 0, []int32{0, 36, 40}),
		occ(l+"Animal().", 0, []int32{1, 0, 6}),
		occ("scip-typescript npm typescript 5.9.3 lib/`lib.es5.d.ts`/Function#prototype.", 0, []int32{1, 7, 16}),
		occ("local 4", 0, []int32{1, 17, 22}),
		occ("local 1", 0, []int32{1, 51, 55}),
		occ(l+"talk().", def, []int32{2, 9, 13}, 2, 0, 62),
		occ("local 7", def, []int32{2, 22, 23}),
		occ(l+"Animal().", 0, []int32{2, 30, 36}),
		occ("local 7", 0, []int32{2, 50, 51}),
		occ("local 4", 0, []int32{2, 52, 57}),
		occ("local 9", 0, []int32{3, 0, 6}),
		occ("local 9", 0, []int32{3, 7, 14}),
		occ(l+"Animal0:", def, []int32{3, 19, 25}),
		occ(l+"Animal().", 0, []int32{3, 27, 33}),
		occ(l+"talk0:", def, []int32{3, 35, 39}),
		occ(l+"talk().", 0, []int32{3, 41, 45}),
	}})
}

// A call whose site the index names with a local symbol only (a
// prototype method) keeps its inferred edge.
func TestMerge_LocalSymbolKeepsInferredEdge(t *testing.T) {
	root := writeTree(t, map[string]string{"legacy.js": legacyJS})
	ps := extractTree(t, root)
	const speak = "code:function:legacy.js::Animal.speak"
	if before := callEdges(ps, false); !slices.Contains(before, "calls code:function:legacy.js::talk -> "+speak+" @3") {
		t.Fatalf("the extractor does not resolve a.speak() (edges %v)", before)
	}
	res := scip.Merge(root, ps, scip.Place(legacyIndex(root), root))
	got := callEdges(ps, false)
	for _, w := range []string{
		"calls code:function:legacy.js::talk -> " + speak + " @3",
		"calls code:function:legacy.js::talk -> code:function:legacy.js::Animal @3",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, strings.Join(got, "\n"))
		}
	}
	p := payloadOf(t, ps, "legacy.js")
	if n := nodeOf(t, p, speak).Metadata[graph.MetaInferredSites]; n != 1 {
		t.Errorf("inferred_sites of Animal.speak = %v, want 1", n)
	}
	if n := nodeOf(t, p, "code:function:legacy.js::Animal").Metadata[graph.MetaInferredSites]; n != nil {
		t.Errorf("inferred_sites of Animal = %v, want none", n)
	}
	// a.speak() calls speak, not a func value.
	if n := nodeOf(t, p, "code:function:legacy.js::talk").Metadata[graph.MetaDynamicCalls]; n != nil {
		t.Errorf("dynamic_calls of talk = %v, want none", n)
	}
	if res.InferredSites != 1 {
		t.Errorf("InferredSites = %d, want 1", res.InferredSites)
	}
}

// oneLineJS has three functions on one line.
const oneLineJS = "function a(){return b()}function b(){return 1}function c(){return a()}module.exports={c:c};\n"

// oneLineIndex is what scip-typescript 0.4.0 writes for oneLineJS; with
// ranges false, without the enclosing ranges.
func oneLineIndex(root string, ranges bool) *scippb.Index {
	const m = "scip-typescript npm . . `m.js`/"
	er := func(r ...int32) []int32 {
		if ranges {
			return r
		}
		return nil
	}
	return index("scip-typescript", "0.4.0", root, &scippb.Document{RelativePath: "m.js", Occurrences: []*scippb.Occurrence{
		occ(m, def, []int32{0, 0, 0}, er(0, 0, 1, 0)...),
		occ(m+"a().", def, []int32{0, 9, 10}, er(0, 0, 24)...),
		occ(m+"b().", 0, []int32{0, 20, 21}),
		occ(m+"b().", def, []int32{0, 33, 34}, er(0, 24, 46)...),
		occ(m+"c().", def, []int32{0, 55, 56}, er(0, 46, 70)...),
		occ(m+"a().", 0, []int32{0, 66, 67}),
		occ("local 1", 0, []int32{0, 70, 76}),
		occ("local 1", 0, []int32{0, 77, 84}),
		occ(m+"c0:", def, []int32{0, 86, 87}),
		occ(m+"c().", 0, []int32{0, 88, 89}),
	}})
}

// Several declarations on one line: the enclosing ranges say which one a
// call is in; without them, the line keeps its inferred edges.
func TestMerge_SharedLine(t *testing.T) {
	const (
		a    = "code:function:m.js::a"
		b    = "code:function:m.js::b"
		c    = "code:function:m.js::c"
		file = "code:file:m.js"
	)
	t.Run("enclosing ranges", func(t *testing.T) {
		root := writeTree(t, map[string]string{"m.js": oneLineJS})
		ps := extractTree(t, root)
		res := scip.Merge(root, ps, scip.Place(oneLineIndex(root, true), root))
		want := []string{"calls " + a + " -> " + b + " @1", "calls " + c + " -> " + a + " @1", "references " + file + " -> " + c + " @1"}
		if got := callEdges(ps, false); !slices.Equal(got, want) {
			t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
		if res.InferredSites != 0 {
			t.Errorf("InferredSites = %d, want 0", res.InferredSites)
		}
	})
	t.Run("no enclosing ranges", func(t *testing.T) {
		root := writeTree(t, map[string]string{"m.js": oneLineJS})
		ps := extractTree(t, root)
		before := callEdges(ps, false)
		res := scip.Merge(root, ps, scip.Place(oneLineIndex(root, false), root))
		if got := callEdges(ps, false); !slices.Equal(got, before) {
			t.Errorf("edges:\n got %s\nwant the inferred %s", strings.Join(got, "\n     "), strings.Join(before, "\n     "))
		}
		p := payloadOf(t, ps, "m.js")
		for _, uid := range []string{a, b, c} {
			if n := nodeOf(t, p, uid).Metadata[graph.MetaInferredSites]; n != 1 {
				t.Errorf("inferred_sites of %s = %v, want 1", uid, n)
			}
		}
		if res.InferredSites != 3 {
			t.Errorf("InferredSites = %d, want 3", res.InferredSites)
		}
	})
}

var tsFiles = map[string]string{
	"src/y.ts": "export function y(v: any) { return v; }\n",
	"src/x.ts": `import { y } from './y';
export function f(a: number): number;
export function f(a: string): string;
export function f(a: any): any {
  return y(a);
}
export class K {
  constructor() {}
  m<T>(v: T): T { return v; }
}
export const g = () => new K().m<number>(1);
`,
}

func tsIndex(root string) *scippb.Index {
	const pkg = "scip-typescript npm fx 1.0.0 src/"
	x, y := pkg+"`x.ts`/", pkg+"`y.ts`/"
	return index("scip-typescript", "0.4.0", root,
		&scippb.Document{RelativePath: "src/y.ts", Language: "typescript", Occurrences: []*scippb.Occurrence{
			occ(y, def, []int32{0, 0, 0}),
			occ(y+"y().", def, []int32{0, 16, 17}, 0, 0, 40),
		}},
		&scippb.Document{RelativePath: "src/x.ts", Language: "typescript", Occurrences: []*scippb.Occurrence{
			occ(y+"y().", 0, []int32{0, 9, 10}), // an import specifier
			occ(x+"f().", def, []int32{1, 16, 17}, 1, 0, 37),
			occ(x+"f().", def, []int32{2, 16, 17}, 2, 0, 37),
			occ(x+"f().", def, []int32{3, 16, 17}, 3, 0, 5, 1),
			occ(y+"y().", 0, []int32{4, 9, 10}),
			occ(x+"K#", def, []int32{6, 13, 14}, 6, 0, 9, 1),
			occ(x+"K#`<constructor>`().", def, []int32{7, 2, 13}, 7, 2, 18),
			occ(x+"K#m().", def, []int32{8, 2, 3}, 8, 2, 29),
			occ(x+"g.", def, []int32{10, 13, 14}, 10, 17, 44),
			occ(x+"K#`<constructor>`().", 0, []int32{10, 27, 28}),
			occ(x+"K#m().", 0, []int32{10, 31, 32}),
		}})
}

func TestMerge_TypeScript(t *testing.T) {
	root := writeTree(t, tsFiles)
	ps := extractTree(t, root)
	res := scip.Merge(root, ps, scip.Place(tsIndex(root), root))
	if len(res.Precise) != 2 {
		t.Fatalf("Precise = %v (skipped %v)", res.Precise, res.Skipped)
	}
	want := []string{
		// y(a) in the implementation of the overloaded f, outside the
		// lines of f's node (its first signature).
		"calls code:function:src/x.ts::f -> code:function:src/y.ts::y @5",
		// new K() is a call of the class; m<number>(1) a call.
		"calls code:function:src/x.ts::g -> code:class:src/x.ts::K @11",
		"calls code:function:src/x.ts::g -> code:function:src/x.ts::K.m @11",
	}
	if got := callEdges(ps, false); !slices.Equal(got, want) {
		t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestMerge_StaleDocumentKeepsInferredEdges(t *testing.T) {
	root := writeTree(t, pyFiles)
	ps := extractTree(t, root)
	before := callEdges(ps, true)
	idx := pyIndex(root)
	// The index was made before two lines were added at the top of a.py.
	for _, o := range idx.Documents[1].Occurrences {
		o.Range[0] += 2
		if len(o.EnclosingRange) > 0 {
			o.EnclosingRange[0] += 2
		}
	}
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if want := []string{"pkg/b.py"}; !slices.Equal(res.Precise, want) {
		t.Errorf("Precise = %v, want %v", res.Precise, want)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "pkg/a.py" || res.Skipped[0].Reason != scip.ReasonStale {
		t.Errorf("Skipped = %v, want pkg/a.py stale", res.Skipped)
	}
	var aBefore, aAfter []string
	for _, e := range before {
		if strings.Contains(e, "code:file:pkg/a.py ->") || strings.Contains(e, "pkg/a.py::") && strings.Index(e, "pkg/a.py::") < strings.Index(e, "->") {
			aBefore = append(aBefore, e)
		}
	}
	for _, e := range callEdges(ps, true) {
		if strings.Contains(e, "code:file:pkg/a.py ->") || strings.Contains(e, "pkg/a.py::") && strings.Index(e, "pkg/a.py::") < strings.Index(e, "->") {
			aAfter = append(aAfter, e)
		}
	}
	if !slices.Equal(aBefore, aAfter) {
		t.Errorf("a.py's edges changed:\n got %v\nwant %v", aAfter, aBefore)
	}
	if m := nodeOf(t, payloadOf(t, ps, "pkg/a.py"), "code:file:pkg/a.py").Metadata; m[graph.MetaExtraction] != nil {
		t.Errorf("stale a.py's file node says extraction %v", m[graph.MetaExtraction])
	}
}

func TestMerge_ChangedFileKeepsInferredEdges(t *testing.T) {
	root := writeTree(t, pyFiles)
	ps := extractTree(t, root)
	if err := os.WriteFile(filepath.Join(root, "pkg/b.py"), []byte(pyFiles["pkg/b.py"]+"\n# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := scip.Merge(root, ps, scip.Place(pyIndex(root), root))
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "pkg/b.py" || res.Skipped[0].Reason != scip.ReasonChanged {
		t.Errorf("Skipped = %v, want pkg/b.py changed", res.Skipped)
	}
	// a.py is precise, but b.py's definitions are unknown: a.py's edges
	// into b.py are not in the index's mapping.
	if !slices.Equal(res.Precise, []string{"pkg/a.py"}) {
		t.Errorf("Precise = %v", res.Precise)
	}
}

// A file of a language cos does not parse gets its nodes from the index.
func TestMerge_SynthesizesNodesForOtherLanguages(t *testing.T) {
	root := writeTree(t, map[string]string{"Foo.dart": `class Foo {
  void bar() { baz(); }
  void baz() {}
}
`})
	ps := extractTree(t, root)
	if p := payloadOf(t, ps, "Foo.dart"); p.Extractor != extract.ExtractorFile {
		t.Fatalf("Foo.dart extractor = %s", p.Extractor)
	}
	const s = "semanticdb maven . . "
	idx := index("scip-java", "0.10", root, &scippb.Document{RelativePath: "Foo.dart", Language: "dart", Occurrences: []*scippb.Occurrence{
		occ(s+"Foo#", def, []int32{0, 6, 9}, 0, 0, 3, 1),
		occ(s+"Foo#bar().", def, []int32{1, 7, 10}, 1, 2, 23),
		occ(s+"Foo#baz().", 0, []int32{1, 15, 18}),
		occ(s+"Foo#baz().", def, []int32{2, 7, 10}, 2, 2, 15),
	}})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if !slices.Equal(res.Precise, []string{"Foo.dart"}) {
		t.Fatalf("Precise = %v, skipped %v", res.Precise, res.Skipped)
	}
	p := payloadOf(t, ps, "Foo.dart")
	cls := nodeOf(t, p, "code:class:Foo.dart::Foo")
	bar := nodeOf(t, p, "code:function:Foo.dart::Foo.bar")
	if cls.Kind != graph.KindClass || cls.Line != 1 || cls.EndLine != 4 || bar.Kind != graph.KindMethod || bar.Line != 2 || bar.EndLine != 2 {
		t.Errorf("nodes: %+v %+v", cls, bar)
	}
	want := []string{"calls code:function:Foo.dart::Foo.bar -> code:function:Foo.dart::Foo.baz @2"}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	var contains []string
	for _, e := range p.Edges {
		if e.Type == graph.EdgeContains && e.Extractor == extract.ExtractorFile {
			contains = append(contains, e.Source+" -> "+e.Target)
		}
	}
	sort.Strings(contains)
	wantC := []string{"code:class:Foo.dart::Foo -> code:function:Foo.dart::Foo.bar", "code:class:Foo.dart::Foo -> code:function:Foo.dart::Foo.baz", "code:file:Foo.dart -> code:class:Foo.dart::Foo"}
	if !slices.Equal(contains, wantC) {
		t.Errorf("contains = %v, want %v", contains, wantC)
	}
	if lang := nodeOf(t, p, "code:file:Foo.dart").Metadata[graph.MetaLanguage]; lang != "dart" {
		t.Errorf("language = %v", lang)
	}
}

// Go files are type-checked already: an index covering them changes nothing.
func TestMerge_LeavesGoAlone(t *testing.T) {
	root := writeTree(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": "package m\n\nfunc A() { B() }\n\nfunc B() {}\n"})
	ps := extractTree(t, root)
	before := callEdges(ps, true)
	idx := index("scip-go", "0.1", root, &scippb.Document{RelativePath: "a.go", Occurrences: []*scippb.Occurrence{
		occ("scip-go gomod m v0 `m`/A().", def, []int32{2, 5, 6}),
	}})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if len(res.Precise) != 0 || !slices.Equal(before, callEdges(ps, true)) {
		t.Errorf("a Go file was merged: %v", res.Precise)
	}
}

func TestPlace_Rebase(t *testing.T) {
	root := writeTree(t, map[string]string{"sub/a.py": "", "b.py": ""})
	docs := func(paths ...string) []*scippb.Document {
		var out []*scippb.Document
		for _, p := range paths {
			out = append(out, &scippb.Document{RelativePath: p})
		}
		return out
	}
	tests := []struct {
		name        string
		projectRoot string
		docs        []string
		want        []string
		outside     int
	}{
		{"same root", "file://" + root, []string{"b.py", "sub/a.py"}, []string{"b.py", "sub/a.py"}, 0},
		{"root is a sub-folder of the project", "file://" + filepath.Dir(root), []string{filepath.Base(root) + "/b.py", "other/c.py"}, []string{"b.py"}, 1},
		{"project is a sub-folder of root", "file://" + filepath.Join(root, "sub"), []string{"a.py"}, []string{"sub/a.py"}, 0},
		{"another machine", "file:///nowhere/at/all", []string{"b.py"}, []string{"b.py"}, 0},
		{"climbing out", "file://" + root, []string{"../x.py", "b.py"}, []string{"b.py"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := scip.Place(&scippb.Index{Metadata: &scippb.Metadata{ProjectRoot: tt.projectRoot}, Documents: docs(tt.docs...)}, root)
			if got := x.Paths(); !slices.Equal(got, tt.want) || x.Outside != tt.outside {
				t.Errorf("Paths = %v (outside %d), want %v (outside %d)", got, x.Outside, tt.want, tt.outside)
			}
		})
	}
}

func TestLoad_NotAnIndex(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{"garbage": []byte("\xff\xff\xff\xff not protobuf"), "empty": nil} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := scip.Load(p); !errors.Is(err, scip.ErrNotIndex) {
			t.Errorf("%s: err = %v, want ErrNotIndex", name, err)
		}
	}
	if _, err := scip.Load(filepath.Join(dir, "missing")); err == nil || errors.Is(err, scip.ErrNotIndex) {
		t.Errorf("missing file: err = %v, want a read error", err)
	}
	good := filepath.Join(dir, "good.scip")
	b, err := proto.Marshal(pyIndex("/x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, b, 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := scip.Open(good, dir)
	if err != nil || x.Indexer != "scip-python 0.6.6" || len(x.Paths()) != 2 {
		t.Errorf("Open = %+v, %v", x, err)
	}
}

func TestDigest(t *testing.T) {
	root := writeTree(t, pyFiles)
	ps := extractTree(t, root)
	p := payloadOf(t, ps, "pkg/a.py")
	d := scip.Digest(p)
	if len(d) != 16 {
		t.Fatalf("Digest = %q", d)
	}
	for i := range p.Nodes {
		if p.Nodes[i].Kind == graph.KindFile {
			p.Nodes[i].Metadata = map[string]any{graph.MetaPreciseDigest: d, "language": "python"}
		}
	}
	if got := scip.Digest(p); got != d {
		t.Errorf("Digest changed with precise_digest set: %s, want %s", got, d)
	}
	p.Edges = p.Edges[1:]
	if scip.Digest(p) == d {
		t.Error("Digest unchanged with an edge fewer")
	}
}

// FuzzMerge feeds arbitrary bytes, decoded as a SCIP index, to Place and
// Merge over real payloads: nothing may panic.
func FuzzMerge(f *testing.F) {
	root := writeTree(f, pyFiles)
	base := extractTree(f, root)
	for _, idx := range []*scippb.Index{pyIndex(root), tsIndex(root)} {
		b, err := proto.Marshal(idx)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var idx scippb.Index
		if proto.Unmarshal(data, &idx) != nil {
			return
		}
		ps := make([]graph.FileExtracted, len(base))
		for i, p := range base {
			p.Nodes = slices.Clone(p.Nodes)
			p.Edges = slices.Clone(p.Edges)
			ps[i] = p
		}
		scip.Merge(root, ps, scip.Place(&idx, root))
	})
}

// Calling a Python module-level alias calls what it names.
func TestMerge_PythonAlias(t *testing.T) {
	root := writeTree(t, map[string]string{
		"pkg/__init__.py": "",
		"pkg/b.py":        "def real():\n    pass\n",
		"pkg/a.py":        "from pkg import b\nalias = b.real\n\ndef use():\n    alias()\n",
	})
	ps := extractTree(t, root)
	const pkg = "scip-python python fx 0 "
	idx := index("scip-python", "0.6.6", root,
		&scippb.Document{RelativePath: "pkg/b.py", Occurrences: []*scippb.Occurrence{occ(pkg+"`pkg.b`/real().", def, []int32{0, 4, 8})}},
		&scippb.Document{RelativePath: "pkg/a.py", Occurrences: []*scippb.Occurrence{
			occ(pkg+"`pkg.b`/__init__:", 0, []int32{0, 16, 17}),
			occ(pkg+"`pkg.a`/alias.", def, []int32{1, 0, 5}),
			occ(pkg+"`pkg.b`/__init__:", 0, []int32{1, 8, 9}),
			occ(pkg+"`pkg.b`/real().", 0, []int32{1, 10, 14}),
			occ(pkg+"`pkg.a`/use().", def, []int32{3, 4, 7}, 3, 0, 4, 11),
			occ(pkg+"`pkg.a`/alias.", 0, []int32{4, 4, 9}),
		}})
	scip.Merge(root, ps, scip.Place(idx, root))
	want := []string{
		"calls code:function:pkg/a.py::use -> code:function:pkg/b.py::real @5",
		"references code:file:pkg/a.py -> code:function:pkg/b.py::real @2",
	}
	if got := callEdges(ps, false); !slices.Equal(got, want) {
		t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// A merged declaration (interface K and function K) has an occurrence of
// each symbol where K(1) is called: only the function is called.
func TestMerge_MergedDeclaration(t *testing.T) {
	src := "export interface K { v: number }\nexport function K(v: number): K { return { v }; }\nexport const k: K = K(1);\n"
	root := writeTree(t, map[string]string{"src/m.ts": src})
	ps := extractTree(t, root)
	lines := strings.Split(src, "\n")
	at := func(line int, from string, nth int) []int32 {
		col := -1
		for range nth {
			col += 1 + strings.Index(lines[line][col+1:], from)
		}
		return []int32{int32(line), int32(col), int32(col + 1)}
	}
	const m = "scip-typescript npm fx 1.0.0 src/`m.ts`/"
	idx := index("scip-typescript", "0.4.0", root, &scippb.Document{RelativePath: "src/m.ts", Occurrences: []*scippb.Occurrence{
		occ(m+"K#", def, at(0, "K", 1), 0, 0, 32),
		occ(m+"K().", def, at(1, "K", 1), 1, 0, 49),
		occ(m+"K#", 0, at(1, "K", 2)),
		occ(m+"k.", def, at(2, "k", 1)),
		occ(m+"K#", 0, at(2, "K", 1)),
		occ(m+"K#", 0, at(2, "K", 2)),
		occ(m+"K().", 0, at(2, "K", 2)),
	}})
	scip.Merge(root, ps, scip.Place(idx, root))
	want := []string{
		"calls code:file:src/m.ts -> code:function:src/m.ts::K @3",
		"references code:file:src/m.ts -> code:class:src/m.ts::K @3",
		"references code:function:src/m.ts::K -> code:class:src/m.ts::K @2",
	}
	if got := callEdges(ps, false); !slices.Equal(got, want) {
		t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}
