package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"

	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
)

var preciseFixture = map[string]string{
	"pkg/__init__.py": "",
	"pkg/b.py": `def helper(v):
    return v

class Base:
    def close(self):
        pass
`,
	"pkg/a.py": `from pkg.b import helper, Base

def top(x):
    return helper(x)

class C(Base):
    def run(self, other):
        f = top
        other.close()
        return f(1)
`,
}

// preciseIndex is what scip-python would write for preciseFixture.
func preciseIndex(root string) *scippb.Index {
	const pkg = "scip-python python fx 0 "
	a, b := pkg+"`pkg.a`/", pkg+"`pkg.b`/"
	o := func(sym string, roles scippb.SymbolRole, r ...int32) *scippb.Occurrence {
		return &scippb.Occurrence{Symbol: sym, SymbolRoles: int32(roles), Range: r}
	}
	const def, read = scippb.SymbolRole_Definition, scippb.SymbolRole_ReadAccess
	return &scippb.Index{
		Metadata: &scippb.Metadata{ToolInfo: &scippb.ToolInfo{Name: "scip-python", Version: "0.6.6"}, ProjectRoot: "file://" + root},
		Documents: []*scippb.Document{
			{RelativePath: "pkg/__init__.py"},
			{RelativePath: "pkg/b.py", Occurrences: []*scippb.Occurrence{
				o(b+"helper().", def, 0, 4, 10), o(b+"Base#", def, 3, 6, 10), o(b+"Base#close().", def, 4, 8, 13),
			}},
			{RelativePath: "pkg/a.py", Occurrences: []*scippb.Occurrence{
				o(b+"helper().", read, 0, 18, 24), o(b+"Base#", read, 0, 26, 30),
				o(a+"top().", def, 2, 4, 7), o(b+"helper().", read, 3, 11, 17),
				o(a+"C#", def, 5, 6, 7), o(b+"Base#", read, 5, 8, 12),
				o(a+"C#run().", def, 6, 8, 11),
				o("local 0", def, 7, 8, 9), o(a+"top().", read, 7, 12, 15),
				o(a+"C#run().(other)", read, 8, 8, 13), // other.close(): other is untyped
				o("local 0", read, 9, 15, 16),
			}},
		},
	}
}

// writeIndex writes idx to path.
func writeIndex(t testing.TB, path string, idx *scippb.Index) {
	t.Helper()
	b, err := proto.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// completenessOfCall runs a tool and returns its completeness and reasons.
func completenessOfCall(t testing.TB, s *testServer, tool, args string) (string, map[string]any) {
	t.Helper()
	e := idxCall(t, s, tool, args)
	if !e.OK {
		t.Fatalf("%s %s: %s %s", tool, args, e.Error.Code, e.Error.Message)
	}
	m, _ := e.Data["meta"].(map[string]any)
	c, _ := m["completeness"].(string)
	r, _ := m["completeness_reasons"].(map[string]any)
	return c, r
}

func fileMeta(t testing.TB, s *testServer, path string) map[string]any {
	t.Helper()
	if err := s.tailer.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, ok := s.graph.Node("code:file:" + path)
	if !ok {
		t.Fatalf("no file node for %s", path)
	}
	return n.Metadata
}

func TestIndexPrecise_SCIPFileThenIncremental(t *testing.T) {
	root := idxWriteRepo(t, preciseFixture)
	root, _ = filepath.EvalSymlinks(root)
	writeIndex(t, filepath.Join(root, "scip", "index.scip"), preciseIndex(root))
	s := idxOpen(t, t.TempDir(), root)

	rep := idxReport(t, s, `{"scip": ["scip/index.scip"]}`)
	p := rep.Precise
	if p == nil || len(p.Indexers) != 1 || p.Indexers[0].Status != indexing.IndexerOK || p.Indexers[0].Indexer != "scip-python 0.6.6" ||
		p.Indexers[0].Documents != 3 || p.Indexers[0].FilesPrecise != 3 || p.FilesPrecise != 3 || p.FilesNotCovered != 0 {
		t.Fatalf("precise report: %+v", p)
	}
	if m := fileMeta(t, s, "pkg/a.py"); m[graph.MetaExtraction] != graph.ExtractionPrecise || m[graph.MetaIndexer] != "scip-python 0.6.6" || m[graph.MetaPreciseDigest] == nil {
		t.Fatalf("a.py file node: %v", m)
	}

	// Every Python file is precise, and nothing calls helper through a
	// receiver of unknown type: its one caller is all of them.
	const helper = "code:function:pkg/b.py::helper"
	if c, r := completenessOfCall(t, s, "cos_graph_references", `{"uid": "`+helper+`", "kinds": ["calls"]}`); c != "exact" {
		t.Errorf("helper: %s %v, want exact", c, r)
	}
	// other.close() has no type: Base.close may have a caller more.
	c, r := completenessOfCall(t, s, "cos_graph_impact", `{"uid": "code:function:pkg/b.py::Base.close", "depth": 1}`)
	if c != "lower_bound" || r["unresolved_receivers"] != 1.0 || len(r) != 1 {
		t.Errorf("Base.close: %s %v, want lower_bound unresolved_receivers 1", c, r)
	}
	// top is used as a value, and f(1) calls a value.
	c, r = completenessOfCall(t, s, "cos_graph_context", `{"uid_or_name": "code:function:pkg/a.py::top"}`)
	if c != "lower_bound" || r["func_value_calls"] != 1.0 {
		t.Errorf("top: %s %v, want lower_bound func_value_calls 1", c, r)
	}

	// The same index again: nothing to append.
	head := idxHead(t, s)
	rep = idxReport(t, s, `{"scip": ["scip/index.scip"]}`)
	if rep.Events != 0 || rep.FilesChanged != 0 || rep.Precise.FilesUnchanged != 3 || idxHead(t, s) != head {
		t.Fatalf("same index again appended: %+v %+v", rep, rep.Precise)
	}

	// An index without precise: an edit to b.py that changes its
	// declarations makes b.py inferred, and a.py, which uses them, is
	// extracted again and inferred too; the report says so.
	if err := os.WriteFile(filepath.Join(root, "pkg/b.py"), []byte(preciseFixture["pkg/b.py"]+"\ndef more():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = idxReport(t, s, `{}`)
	if rep.Precise == nil || rep.Precise.FilesDemoted != 2 || !slices.Equal(rep.Precise.Demoted, []string{"pkg/a.py", "pkg/b.py"}) {
		t.Fatalf("demoted: %+v", rep.Precise)
	}
	for _, f := range []string{"pkg/a.py", "pkg/b.py"} {
		if m := fileMeta(t, s, f); m[graph.MetaExtraction] != nil {
			t.Errorf("%s still says %v", f, m[graph.MetaExtraction])
		}
	}
	if c, r := completenessOfCall(t, s, "cos_graph_references", `{"uid": "`+helper+`", "kinds": ["calls"]}`); c != "lower_bound" || r["inferred_files"] != 2.0 || r["name_matched_nodes"] != 1.0 {
		t.Errorf("helper after the inferred index: %s %v", c, r)
	}
	// __init__.py changed nothing: it keeps its precise payload.
	if m := fileMeta(t, s, "pkg/__init__.py"); m[graph.MetaExtraction] != graph.ExtractionPrecise {
		t.Errorf("__init__.py: %v", m)
	}
}

func TestIndexPrecise_StaleIndexKeepsInferred(t *testing.T) {
	root := idxWriteRepo(t, preciseFixture)
	root, _ = filepath.EvalSymlinks(root)
	idx := preciseIndex(root)
	for _, o := range idx.Documents[2].Occurrences { // a.py, two lines up
		o.Range[0] += 2
	}
	writeIndex(t, filepath.Join(root, "index.scip"), idx)
	s := idxOpen(t, t.TempDir(), root)
	rep := idxReport(t, s, `{"scip": ["index.scip"]}`)
	if rep.Precise.FilesPrecise != 2 || rep.Precise.FilesNotCovered != 1 || rep.Precise.NotCovered[0] != (scip.Note{Path: "pkg/a.py", Reason: scip.ReasonStale}) {
		t.Fatalf("stale a.py: %+v", rep.Precise)
	}
	if m := fileMeta(t, s, "pkg/a.py"); m[graph.MetaExtraction] != nil {
		t.Errorf("stale a.py says %v", m[graph.MetaExtraction])
	}
}

func TestIndexPrecise_Arguments(t *testing.T) {
	root := idxWriteRepo(t, preciseFixture)
	outside := t.TempDir()
	writeIndex(t, filepath.Join(outside, "index.scip"), preciseIndex(root))
	if err := os.WriteFile(filepath.Join(root, "junk.scip"), []byte("\xff\xfe not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An index of another tree: none of its documents is a file here.
	other := preciseIndex("/nowhere/at/all")
	for _, d := range other.Documents {
		d.RelativePath = "lib/" + d.RelativePath
	}
	writeIndex(t, filepath.Join(root, "other.scip"), other)
	s := idxOpen(t, t.TempDir(), root)
	for _, tc := range []struct{ args, code, says string }{
		{`{"scip": ["junk.scip"]}`, "E_ARGUMENT", "not a SCIP index"},
		{`{"scip": ["missing.scip"]}`, "E_PATH", "does not exist"},
		{`{"scip": ["pkg"]}`, "E_PATH", "is not a file"},
		{`{"scip": ["` + filepath.Join(outside, "index.scip") + `"]}`, "E_PATH", "outside the approved folders"},
		{`{"scip": [""]}`, "E_ARGUMENT", "empty path"},
		{`{"scip": ["other.scip"]}`, "E_ARGUMENT", "0 of 3 documents are files of this tree"},
		{`{"precise": "yes"}`, "E_ARGUMENT", "precise"},
		{`{"scip_tools": "/usr/bin"}`, "E_ARGUMENT", "Unknown argument"},
		{`{"scip": ["` + strings.Repeat("x", 1_000_000) + `"]}`, "E_ARGUMENT", "strings of at most 4096 characters"},
	} {
		e := idxCall(t, s, "cos_graph_index", tc.args)
		if e.OK || e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.says) {
			t.Errorf("%.80s: ok %v, %s %.200q; want %s saying %q", tc.args, e.OK, e.Error.Code, e.Error.Message, tc.code, tc.says)
		}
		if b, _ := json.Marshal(e.Error); len(b) > 8192 {
			t.Errorf("%.80s: the error is %d bytes: the argument is echoed", tc.args, len(b))
		}
	}
	// Nothing was appended by the failed calls.
	if h := idxHead(t, s); h != 0 {
		t.Errorf("head %d after failed calls", h)
	}
}

// An indexers' folder that does not exist is said so, not reported as a
// missing indexer.
func TestIndexPrecise_MissingToolsFolder(t *testing.T) {
	root := idxWriteRepo(t, preciseFixture)
	missing := filepath.Join(t.TempDir(), "nonexistent")
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true, SCIPTools: missing})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := idxCall(t, s, "cos_graph_index", `{"precise": true}`)
	if e.OK || e.Error.Code != "E_ARGUMENT" || !strings.Contains(e.Error.Message, missing+" (--scip-tools, or COS_SCIP_TOOLS) does not exist") {
		t.Errorf("ok %v, %s %q; want E_ARGUMENT saying the folder does not exist", e.OK, e.Error.Code, e.Error.Message)
	}
}

// An index with only some documents in the tree says how many are.
func TestIndexPrecise_PartlyOtherTree(t *testing.T) {
	root := idxWriteRepo(t, preciseFixture)
	root, _ = filepath.EvalSymlinks(root)
	idx := preciseIndex(root)
	idx.Documents = append(idx.Documents, &scippb.Document{RelativePath: "gone/x.py"})
	writeIndex(t, filepath.Join(root, "index.scip"), idx)
	s := idxOpen(t, t.TempDir(), root)
	rep := idxReport(t, s, `{"scip": ["index.scip"]}`)
	if p := rep.Precise; p == nil || len(p.Indexers) != 1 || p.Indexers[0].Message != "3 of 4 documents are files of this tree" || p.FilesPrecise != 3 {
		t.Fatalf("precise report: %+v", rep.Precise)
	}
}

func TestIndexPrecise_MissingIndexerIsReported(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	root := idxWriteRepo(t, preciseFixture)
	s := idxOpen(t, t.TempDir(), root)
	rep := idxReport(t, s, `{"precise": true}`)
	p := rep.Precise
	if p == nil || len(p.Indexers) != 1 || p.Indexers[0].Name != "scip-python" || p.Indexers[0].Status != indexing.IndexerMissing ||
		!strings.Contains(p.Indexers[0].Message, "npm install -g @sourcegraph/scip-python") || p.FilesPrecise != 0 {
		t.Fatalf("missing indexer: %+v", p)
	}
	if rep.FilesChanged != len(preciseFixture) || rep.Events != len(preciseFixture) {
		t.Errorf("the index itself: %+v", rep)
	}
}

// The real scip-typescript, end to end: CI installs it and names its
// folder in COS_SCIP_TOOLS (.ci/run); elsewhere the test skips when it is
// not installed.
func TestIndexPrecise_RealTypeScript(t *testing.T) {
	dir := os.Getenv("COS_SCIP_TOOLS")
	if _, err := scip.Find(scip.TypeScript, dir); err != nil {
		t.Skipf("%v (set COS_SCIP_TOOLS to the folder of npm install --prefix DIR @sourcegraph/scip-typescript)", err)
	}
	root := idxWriteRepo(t, map[string]string{
		"src/shape.ts": `export interface Sized { size(): number }
export class Box implements Sized {
  size(): number { return 1; }
}
export function measure(s: Sized[]): number {
  return s.map((x) => x.size()).reduce((a, b) => a + b, 0);
}
export function boxes(n: number): Box[] {
  const out: Box[] = [];
  for (let i = 0; i < n; i++) out.push(new Box());
  return out;
}
`,
		"src/main.js": "import { boxes, measure } from './shape';\nexport function main() { return measure(boxes(3)); }\n",
	})
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true, SCIPTools: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rep := idxReport(t, s, `{"precise": true}`)
	p := rep.Precise
	if p == nil || len(p.Indexers) != 1 || p.Indexers[0].Status != indexing.IndexerOK || p.FilesPrecise != 2 || p.FilesNotCovered != 0 {
		t.Fatalf("precise report: %+v", p)
	}
	if !strings.HasPrefix(p.Indexers[0].Indexer, "scip-typescript ") {
		t.Errorf("indexer %q", p.Indexers[0].Indexer)
	}
	e := idxCall(t, s, "cos_graph_references", `{"uid": "code:function:src/shape.ts::boxes", "kinds": ["calls"]}`)
	if !e.OK || e.Data["count"] != 1.0 || !strings.Contains(fmt.Sprint(e.Data["references"]), "code:function:src/main.js::main") {
		t.Fatalf("callers of boxes: %+v", e)
	}
	if c, r := completenessOfCall(t, s, "cos_graph_references", `{"uid": "code:function:src/shape.ts::boxes", "kinds": ["calls"]}`); c != "exact" {
		t.Errorf("boxes: %s %v, want exact", c, r)
	}
	// new Box() is a call of the class, from the function that makes it.
	e = idxCall(t, s, "cos_graph_references", `{"uid": "code:class:src/shape.ts::Box", "kinds": ["calls"]}`)
	if !e.OK || !strings.Contains(fmt.Sprint(e.Data["references"]), "code:function:src/shape.ts::boxes") {
		t.Errorf("constructions of Box: %+v", e.Data)
	}
}

// occurrence builds a SCIP occurrence; enc is the enclosing range.
func occurrence(sym string, roles scippb.SymbolRole, r []int32, enc ...int32) *scippb.Occurrence {
	return &scippb.Occurrence{Symbol: sym, SymbolRoles: int32(roles), Range: r, EnclosingRange: enc}
}

// A prototype method scip-typescript names with a local symbol keeps the
// caller the extractor found, and its answer is a lower bound
// (inferred_sites), not exact.
func TestIndexPrecise_InferredSitesMakeALowerBound(t *testing.T) {
	root := idxWriteRepo(t, map[string]string{"legacy.js": `function Animal(name) { this.name = name; }
Animal.prototype.speak = function () { return this.name; };
function talk() { var a = new Animal("x"); return a.speak(); }
module.exports = { Animal: Animal, talk: talk };
`})
	root, _ = filepath.EvalSymlinks(root)
	const l = "scip-typescript npm . . `legacy.js`/"
	const def = scippb.SymbolRole_Definition
	writeIndex(t, filepath.Join(root, "index.scip"), &scippb.Index{
		Metadata: &scippb.Metadata{ToolInfo: &scippb.ToolInfo{Name: "scip-typescript", Version: "0.4.0"}, ProjectRoot: "file://" + root},
		Documents: []*scippb.Document{{RelativePath: "legacy.js", Occurrences: []*scippb.Occurrence{
			occurrence(l+"Animal().", def, []int32{0, 9, 15}, 0, 0, 43),
			occurrence(l+"Animal().", 0, []int32{1, 0, 6}),
			occurrence("local 4", 0, []int32{1, 17, 22}),
			occurrence(l+"talk().", def, []int32{2, 9, 13}, 2, 0, 62),
			occurrence("local 7", def, []int32{2, 22, 23}),
			occurrence(l+"Animal().", 0, []int32{2, 30, 36}),
			occurrence("local 7", 0, []int32{2, 50, 51}),
			occurrence("local 4", 0, []int32{2, 52, 57}),
			occurrence(l+"Animal().", 0, []int32{3, 27, 33}),
			occurrence(l+"talk().", 0, []int32{3, 41, 45}),
		}}},
	})
	s := idxOpen(t, t.TempDir(), root)
	rep := idxReport(t, s, `{"scip": ["index.scip"]}`)
	if rep.Precise == nil || rep.Precise.FilesPrecise != 1 || rep.Precise.InferredSites != 1 {
		t.Fatalf("precise report: %+v", rep.Precise)
	}
	const speak = "code:function:legacy.js::Animal.speak"
	e := idxCall(t, s, "cos_graph_references", `{"uid": "`+speak+`"}`)
	if !e.OK || e.Data["count"] != 1.0 || !strings.Contains(fmt.Sprint(e.Data["references"]), "code:function:legacy.js::talk") {
		t.Fatalf("callers of Animal.speak: %+v", e.Data)
	}
	for _, tool := range []string{"cos_graph_references", "cos_graph_impact"} {
		if c, r := completenessOfCall(t, s, tool, `{"uid": "`+speak+`"}`); c != "lower_bound" || r["inferred_sites"] != 1.0 || len(r) != 1 {
			t.Errorf("%s Animal.speak: %s %v, want lower_bound inferred_sites 1", tool, c, r)
		}
	}
	// talk's one caller is the index's, at a site it covered.
	if c, r := completenessOfCall(t, s, "cos_graph_references", `{"uid": "code:function:legacy.js::Animal"}`); c != "exact" {
		t.Errorf("Animal: %s %v, want exact", c, r)
	}
}

// In a precise tree, an overriding method lists the callers of the method
// it overrides: the merge keeps the extractor's inherits_from edges.
func TestIndexPrecise_OverrideListsBaseCallers(t *testing.T) {
	root := idxWriteRepo(t, map[string]string{"m.py": `class Base:
    def run(self):
        return self.step()

    def step(self):
        return 1


class Child(Base):
    def step(self):
        return 2


def go(b: Base):
    return b.step()
`})
	root, _ = filepath.EvalSymlinks(root)
	const m = "scip-python python cos 0 m/"
	const def, read = scippb.SymbolRole_Definition, scippb.SymbolRole_ReadAccess
	// What scip-python 0.6.6 writes for m.py.
	writeIndex(t, filepath.Join(root, "index.scip"), &scippb.Index{
		Metadata: &scippb.Metadata{ToolInfo: &scippb.ToolInfo{Name: "scip-python", Version: "0.6.6"}, ProjectRoot: "file://" + root},
		Documents: []*scippb.Document{{RelativePath: "m.py", Occurrences: []*scippb.Occurrence{
			occurrence(m+"Base#", def, []int32{0, 6, 10}, 0, 0, 5, 16),
			occurrence(m+"Base#run().", def, []int32{1, 8, 11}, 1, 4, 2, 26),
			occurrence(m+"Base#run().(self)", def, []int32{1, 12, 16}),
			occurrence(m+"Base#run().(self)", read, []int32{2, 15, 19}),
			occurrence(m+"Base#step().", read, []int32{2, 20, 24}),
			occurrence(m+"Base#step().", def, []int32{4, 8, 12}, 4, 4, 5, 16),
			occurrence(m+"Base#step().(self)", def, []int32{4, 13, 17}),
			occurrence(m+"Child#", def, []int32{8, 6, 11}, 8, 0, 10, 16),
			occurrence(m+"Base#", read, []int32{8, 12, 16}),
			occurrence(m+"Child#step().", def, []int32{9, 8, 12}, 9, 4, 10, 16),
			occurrence(m+"Child#step().(self)", def, []int32{9, 13, 17}),
			occurrence(m+"go().", def, []int32{13, 4, 6}, 13, 0, 14, 19),
			occurrence(m+"go().(b)", def, []int32{13, 7, 8}),
			occurrence(m+"Base#", read, []int32{13, 10, 14}),
			occurrence(m+"go().(b)", read, []int32{14, 11, 12}),
			occurrence(m+"Base#step().", read, []int32{14, 13, 17}),
		}}},
	})
	s := idxOpen(t, t.TempDir(), root)
	if rep := idxReport(t, s, `{"scip": ["index.scip"]}`); rep.Precise == nil || rep.Precise.FilesPrecise != 1 {
		t.Fatalf("precise report: %+v", rep.Precise)
	}
	if err := s.tailer.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	const child, base = "code:class:m.py::Child", "code:class:m.py::Base"
	if !slices.Contains(s.graph.Targets(child, graph.EdgeInheritsFrom), base) {
		t.Fatalf("inherits_from %s -> %s dropped by the merge", child, base)
	}
	const step = "code:function:m.py::Child.step"
	e := idxCall(t, s, "cos_graph_references", `{"uid": "`+step+`", "kinds": ["calls"]}`)
	got := fmt.Sprint(e.Data["references"])
	for _, caller := range []string{"code:function:m.py::go", "code:function:m.py::Base.run"} {
		if !e.OK || !strings.Contains(got, caller) {
			t.Errorf("callers of Child.step: %s missing from %s", caller, got)
		}
	}
	// Every file is precise and both calls are typed: nothing is hidden.
	if c, r := completenessOfCall(t, s, "cos_graph_references", `{"uid": "`+step+`", "kinds": ["calls"]}`); c != "exact" {
		t.Errorf("Child.step: %s %v, want exact", c, r)
	}
}
