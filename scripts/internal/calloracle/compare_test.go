package calloracle

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func readOracle(t testing.TB, name string) *Oracle {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	or, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return or
}

// javaGraph is what a Java extractor could make of testdata/java: no
// constructor nodes, one node for both overloads of Circle.scale (the
// first one's lines), no node for Main.helper.
func javaGraph() *Graph {
	g := NewGraph()
	add := func(path, kind, label string, line, end int) {
		prefix := "code:function:"
		if kind == DeclClass {
			prefix = "code:class:"
		}
		g.AddNode(Node{UID: prefix + path + "::" + label, Kind: kind, Label: label, Path: path, Line: line, EndLine: end})
	}
	add("a/Shape.java", DeclClass, "Shape", 3, 9)
	add("a/Shape.java", DeclMethod, "Shape.area", 4, 4)
	add("a/Shape.java", DeclMethod, "Shape.describe", 6, 8)
	add("a/Circle.java", DeclClass, "Circle", 3, 30)
	add("a/Circle.java", DeclMethod, "Circle.area", 14, 17)
	add("a/Circle.java", DeclMethod, "Circle.square", 19, 21)
	add("a/Circle.java", DeclMethod, "Circle.scale", 23, 25)
	add("a/Main.java", DeclClass, "Main", 6, 28)
	add("a/Main.java", DeclMethod, "Main.main", 9, 19)
	add("a/Main.java", DeclMethod, "Main.run", 21, 25)
	return g
}

const (
	circle       = "code:class:a/Circle.java::Circle"
	circleArea   = "code:function:a/Circle.java::Circle.area"
	circleSquare = "code:function:a/Circle.java::Circle.square"
	circleScale  = "code:function:a/Circle.java::Circle.scale"
	mainMain     = "code:function:a/Main.java::Main.main"
	mainRun      = "code:function:a/Main.java::Main.run"
	mainHelper   = "code:function:a/Main.java::Main.helper"
	shapeArea    = "code:function:a/Shape.java::Shape.area"
	shapeDesc    = "code:function:a/Shape.java::Shape.describe"
)

func row(t *testing.T, c Comparison, split, name string) Score {
	t.Helper()
	for _, s := range c.Tables[split] {
		if s.Row == name {
			return s
		}
	}
	t.Fatalf("no row %q in the %s table: %+v", name, split, c.Tables[split])
	return Score{}
}

func TestMapper_Callee(t *testing.T) {
	m := NewMapper(javaGraph())
	tests := []struct {
		name string
		d    Decl
		uid  string
		how  string
	}{
		{"method by place", Decl{File: "a/Circle.java", Line: 14, EndLine: 17, Class: "Circle", Name: "area", Kind: DeclMethod}, circleArea, ByPlace},
		{"second overload by name", Decl{File: "a/Circle.java", Line: 27, EndLine: 29, Class: "Circle", Name: "scale", Kind: DeclMethod}, circleScale, ByName},
		{"constructor to its class", Decl{File: "a/Circle.java", Line: 6, EndLine: 8, Class: "Circle", Name: "Circle", Kind: DeclConstructor}, circle, ByPlace},
		{"no node", Decl{File: "a/Main.java", Line: 27, EndLine: 27, Class: "Main", Name: "helper", Kind: DeclMethod}, mainHelper, NoNode},
		{"C prototype place", Decl{File: "util.c", Line: 1, Name: "twice", Kind: DeclFunction, Decls: []Place{{File: "a/Circle.java", Line: 19, EndLine: 19}}}, "code:function:util.c::twice", NoNode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid, how := m.Callee(tt.d)
			if uid != tt.uid || how != tt.how {
				t.Errorf("Callee = %s (%s), want %s (%s)", uid, how, tt.uid, tt.how)
			}
		})
	}
}

func TestCompare_JavaFixture(t *testing.T) {
	or := readOracle(t, "java.jsonl")
	g := javaGraph()
	at := func(file string, line int) Site { return Site{File: file, Line: line} }
	// True positives.
	g.AddEdge(circleArea, circleSquare, "calls", at("a/Circle.java", 16))
	g.AddEdge(mainMain, mainRun, "calls", at("a/Main.java", 16))
	g.AddEdge(mainRun, circleArea, "calls", at("a/Main.java", 23))
	g.AddEdge(mainMain, circle, "constructs", at("a/Main.java", 11))
	g.AddEdge(shapeDesc, shapeArea, "calls", at("a/Shape.java", 7))
	// A false positive on a line javac resolved (shapes.add(c)).
	g.AddEdge(mainMain, circleScale, "calls", at("a/Main.java", 12))
	// Unjudged: javac resolved no call on line 13.
	g.AddEdge(mainMain, mainHelper, "calls", at("a/Main.java", 13))
	// From a file the oracle did not analyse; a self edge; not a call.
	g.AddEdge("code:function:b/Other.java::Other.x", circleArea, "calls", at("b/Other.java", 3))
	g.AddEdge(mainRun, mainRun, "calls", at("a/Main.java", 22))
	g.AddEdge(mainRun, circleScale, "references", at("a/Main.java", 22))

	c := Compare(or, g, 10)
	all := c.All()
	if all.Truth != 13 || all.TP != 5 || all.Cos != 6 || all.CosTP != 5 {
		t.Errorf("all = truth %d, TP %d, cos %d, cos TP %d; want 13, 5, 6, 5", all.Truth, all.TP, all.Cos, all.CosTP)
	}
	if c.SiteTotal != 14 || c.SelfSites != 1 || c.Unjudged != 1 || c.Outside != 1 {
		t.Errorf("sites %d, self %d, unjudged %d, outside %d; want 14, 1, 1, 1", c.SiteTotal, c.SelfSites, c.Unjudged, c.Outside)
	}
	if c.Mapped[ByPlace] != 9 || c.Mapped[ByName] != 1 || c.Mapped[NoNode] != 1 {
		t.Errorf("mapped = %v, want place 9, name 1, no cos node 1", c.Mapped)
	}
	for _, w := range []struct {
		split, row            string
		truth, tp, cos, cosTP int
	}{
		{SplitCategory, "static", 2, 1, 1, 1},
		{SplitCategory, "this", 4, 1, 1, 1},
		{SplitCategory, "constructor", 3, 1, 1, 1},
		{SplitCategory, "local", 2, 0, 1, 0}, // the false positive: shapes.add(c) is a call on a local
		{SplitCategory, "chained", 1, 1, 1, 1},
		{SplitCategory, "field", 1, 1, 1, 1},
		{SplitContext, "lambda", 1, 0, 0, 0},
		{SplitCalleeKind, "default method", 1, 0, 0, 0},
	} {
		s := row(t, c, w.split, w.row)
		if s.Truth != w.truth || s.TP != w.tp || s.Cos != w.cos || s.CosTP != w.cosTP {
			t.Errorf("%s %s = truth %d, TP %d, cos %d, cos TP %d; want %d, %d, %d, %d", w.split, w.row, s.Truth, s.TP, s.Cos, s.CosTP, w.truth, w.tp, w.cos, w.cosTP)
		}
	}
	local := row(t, c, SplitCategory, "local")
	if len(local.Missed) != 2 || len(local.FalsePos) != 1 || local.FalsePos[0].Callee != circleScale {
		t.Errorf("local: missed %v, false positives %v", local.Missed, local.FalsePos)
	}
	// The missed edge to the overload cos has a references edge for is
	// tagged so.
	found := false
	for _, n := range local.Missed {
		if n.Caller == mainRun && n.Callee == circleScale {
			found = len(n.Tags) == 1 && n.Tags[0] == "cos has references"
		}
	}
	if !found {
		t.Errorf("local: Main.run → Circle.scale missed without its tag: %v", local.Missed)
	}
}

// With no extractor for the language, every truth edge is missed: recall
// 0, precision undefined.
func TestCompare_NoExtractor(t *testing.T) {
	or := readOracle(t, "c.jsonl")
	c := Compare(or, NewGraph(), 10)
	all := c.All()
	if all.Truth != 5 || all.TP != 0 || all.Cos != 0 || all.Recall != 0 || all.Precision != -1 {
		t.Errorf("all = %+v, want truth 5, recall 0, precision -1", all)
	}
	if c.Mapped[NoNode] != 4 {
		t.Errorf("mapped = %v, want 4 declarations with no cos node (twice, twice_inc, and each file's static inc)", c.Mapped)
	}
	if got := row(t, c, SplitContext, "macro expansion"); got.Truth != 1 {
		t.Errorf("macro expansion truth = %d, want 1 (TWICE(1))", got.Truth)
	}
	if or.Stats["external"] != 0 || len(or.Files) != 2 {
		t.Errorf("files %v, stats %v", or.Files, or.Stats)
	}
}

// The C fixture through the real extractor: whatever cos finds, the truth
// is the same five edges and the scores are consistent.
func TestCompare_RunCos(t *testing.T) {
	g, err := RunCos(context.Background(), filepath.Join("testdata", "c"))
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(readOracle(t, "c.jsonl"), g, 10)
	all := c.All()
	if all.Truth != 5 || all.TP > all.Truth || all.CosTP > all.Cos {
		t.Errorf("all = %+v, want truth 5 and TP ≤ truth", all)
	}
}

func TestRead_Malformed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(p, []byte("{\"kind\":\"file\",\"file\":\"a\"}\n{\"kind\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := Read(f); err == nil {
		t.Error("Read of a truncated line: no error")
	}
}
