package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// runFixture indexes testdata/<dir> with the real indexer and cos, and
// returns the truth; it skips when Node.js or the indexer is missing
// (never installing it).
func runFixture(t *testing.T, dir string, lg lang) (*oracle, *cosGraph) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the SCIP indexers run on Node.js")
	}
	cache, err := cacheDir()
	if err != nil {
		t.Skip(err)
	}
	ts := toolSet{Dir: os.Getenv("COS_SCIP_TOOLS"), Cache: cache, NoInstall: true, Log: os.Stderr}
	bin := scipPythonBin
	if lg == langTS {
		bin = scipTypescriptBin
	}
	if _, err := ts.find(t.Context(), bin); errors.Is(err, errNoTool) {
		t.Skipf("%v; run scripts/langaccuracy.sh once to install it, or set COS_SCIP_TOOLS", err)
	} else if err != nil {
		t.Skip(err)
	}
	ws := workspace{Tmp: t.TempDir()}
	ws.Root = filepath.Join(ws.Tmp, "target")
	if err := copyTree(filepath.Join("testdata", dir), ws.Root); err != nil {
		t.Fatal(err)
	}
	idx, _, err := runIndexer(t.Context(), ts, target{Name: "fixture", Lang: lg}, ws)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := loadIndex(idx, ws.Root, ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	g, err := runCos(t.Context(), ws.Root)
	if err != nil {
		t.Fatal(err)
	}
	return buildTruth(docs, g.Nodes, lg), g
}

// wantCalls checks that the truth has each call in the given category.
func wantCalls(t *testing.T, or *oracle, want map[pair]category) {
	t.Helper()
	for k, c := range want {
		e, ok := or.Calls[k]
		if !ok {
			t.Errorf("truth lacks %s → %s", k.Caller, k.Callee)
			continue
		}
		if _, ok := e.Cats[c]; !ok {
			t.Errorf("%s → %s: categories %v, want %s", k.Caller, k.Callee, e.Cats, c)
		}
	}
}

func TestIndexer_ScipPython(t *testing.T) {
	or, _ := runFixture(t, "py", langPython)
	const shapes, main = "code:function:pkg/shapes.py::", "code:function:pkg/main.py::"
	wantCalls(t, or, map[pair]category{
		{main + "run", "code:class:pkg/shapes.py::Square"}:          catConstructor,
		{main + "run", shapes + "scale"}:                            catModuleAttr,
		{main + "run", "code:function:pkg/util.py::identity"}:       catModuleAttr,
		{main + "run", shapes + "Square.describe"}:                  catInstance,
		{main + "run", shapes + "Square.area"}:                      catInstance,
		{main + "helper", main + "run"}:                             catFunction, // from the nested inner()
		{"code:file:pkg/main.py", main + "helper"}:                  catFunction,
		{shapes + "Base.describe", shapes + "Base.area"}:            catSelf,
		{shapes + "Base.make", shapes + "Base.build"}:               catSelf,
		{shapes + "Square.describe", shapes + "Base.describe"}:      catSuper,
		{shapes + "Square.area", shapes + "scale"}:                  catFunction,
		{shapes + "Base.build", "code:class:pkg/shapes.py::Square"}: catConstructor,
	})
	if _, ok := or.Calls[pair{main + "run", "code:function:pkg/util.py::twice"}]; !ok {
		t.Errorf("truth lacks run → twice")
	}
	if or.Stats.UnmappedCallSites == 0 {
		t.Errorf("inner() should count as a call site of a symbol with no cos node")
	}
}

func TestIndexer_ScipTypescript(t *testing.T) {
	or, _ := runFixture(t, "ts", langTS)
	const shapes, main = "code:function:shapes.ts::", "code:function:main.ts::"
	wantCalls(t, or, map[pair]category{
		{main + "run", "code:class:shapes.ts::Square"}:         catConstructor, // new Square(2): the constructor symbol
		{main + "run", shapes + "scale"}:                       catModuleAttr,  // shapes.scale via import * as shapes
		{main + "run", "code:function:util.ts::identity"}:      catFunction,    // identity<number>(...)
		{main + "run", shapes + "Square.describe"}:             catInstance,
		{main + "helper", main + "run"}:                        catFunction,
		{shapes + "Square.describe", shapes + "Base.describe"}: catSuper,
		{shapes + "Square.area", shapes + "scale"}:             catFunction,
		{shapes + "double", shapes + "scale"}:                  catFunction,
		{"code:file:main.ts", main + "helper"}:                 catFunction,
	})
	// twice(double, n) passes double: a reference, not a call.
	if _, ok := or.Calls[pair{main + "run", shapes + "double"}]; ok {
		t.Errorf("run → double is a reference, not a call")
	}
	if _, ok := or.Refs[pair{main + "run", shapes + "double"}]; !ok {
		t.Errorf("truth lacks the reference run → double")
	}
}
