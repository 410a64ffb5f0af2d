package extract

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// rustEdges lists the edges of the given types of every payload as
// "type source -> target", with the code:function:, code:class: and
// code:file: prefixes cut for reading.
func rustEdges(payloads map[string]graph.FileExtracted, types ...string) []string {
	short := func(uid string) string {
		for _, p := range []string{"code:function:", "code:class:", "code:file:"} {
			uid = strings.TrimPrefix(uid, p)
		}
		return uid
	}
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	var out []string
	for _, pl := range payloads {
		for _, e := range pl.Edges {
			if want[e.Type] {
				out = append(out, e.Type+" "+short(e.Source)+" -> "+short(e.Target))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRust_Edges indexes a two-crate workspace (testdata/rust: app uses
// the library crate shapes-core by its name shapes_core) and asserts
// every calls, imports, implements, inherits_from, requires and defines
// edge: calls through self, Self::, T::f, typed parameters and locals,
// let x = T::new(), struct fields, an alias, return types, dyn Trait,
// generic bounds (inline and where), supertraits and trait default
// methods; use and mod edges across modules and crates; impl Trait for T.
// Not edges: calls inside macros (println!), calls of local closures,
// enum and tuple constructors (Some, Ok).
func TestRust_Edges(t *testing.T) {
	res := index(t, copyTree(t, "testdata/rust"), Options{}, nil)
	if res.Stats.FilesFailed > 0 {
		t.Fatalf("failed: %v", res.Stats.Failed)
	}
	got := rustEdges(res.Payloads, graph.EdgeCalls, graph.EdgeImports, graph.EdgeImplements, graph.EdgeInheritsFrom, graph.EdgeRequires, graph.EdgeDefines)
	want := []string{
		"calls app/src/cli.rs::Runner.build -> shapes/src/geo.rs::Point.new",
		"calls app/src/cli.rs::Runner.go -> app/src/cli.rs::Runner.helper",
		"calls app/src/cli.rs::Runner.go -> shapes/src/geo.rs::Point.norm",
		"calls app/src/cli.rs::run -> app/src/cli.rs::Runner.build",
		"calls app/src/cli.rs::run -> app/src/cli.rs::Runner.go",
		"calls app/src/cli.rs::run -> code:external:Runner::default",
		"calls app/src/cli.rs::runs -> app/src/cli.rs::run",
		"calls app/src/main.rs::main -> app/src/cli.rs::run",
		"calls app/src/main.rs::main -> code:external:std::process::exit",
		"calls app/src/main.rs::main -> shapes/src/geo.rs::Point.new",
		"calls app/src/main.rs::main -> shapes/src/geo.rs::Point.norm",
		"calls app/src/main.rs::main -> shapes/src/lib.rs::Shape.area",
		"calls app/src/main.rs::main -> shapes/src/lib.rs::version",
		"calls shapes/src/draw/canvas.rs::paint -> code:external:*.unwrap_or_default",
		"calls shapes/src/draw/canvas.rs::paint -> shapes/src/draw/mod.rs::helper",
		"calls shapes/src/draw/canvas.rs::paint -> shapes/src/geo.rs::Point.new",
		"calls shapes/src/draw/canvas.rs::paint -> shapes/src/geo.rs::Point.norm",
		"calls shapes/src/draw/mod.rs::make -> code:external:*.missing",
		"calls shapes/src/draw/mod.rs::make -> code:external:*.whatever",
		"calls shapes/src/draw/mod.rs::make -> code:external:Box::new",
		"calls shapes/src/draw/mod.rs::make -> code:external:Default::default",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/draw/canvas.rs::paint",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/geo.rs::Circle.area",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/geo.rs::Point.new",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/geo.rs::Point.norm",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/geo.rs::origin",
		"calls shapes/src/draw/mod.rs::make -> shapes/src/lib.rs::Shape.describe",
		"calls shapes/src/draw/mod.rs::render -> shapes/src/lib.rs::Shape.area",
		"calls shapes/src/draw/mod.rs::render_gen -> shapes/src/lib.rs::Shape.describe",
		"calls shapes/src/draw/mod.rs::render_where -> shapes/src/lib.rs::Shape.area",
		"calls shapes/src/geo.rs::Circle.area -> shapes/src/geo.rs::Point.norm",
		"calls shapes/src/geo.rs::Circle.name -> code:external:String::from",
		"calls shapes/src/geo.rs::Point.norm -> shapes/src/geo.rs::Point.dot",
		"calls shapes/src/geo.rs::origin -> shapes/src/geo.rs::Point.new",
		"calls shapes/src/lib.rs::Shape.describe -> shapes/src/lib.rs::Named.name",
		"calls shapes/src/lib.rs::Shape.describe -> shapes/src/lib.rs::Shape.area",
		"defines app/Cargo.toml -> crates:package:app",
		"defines shapes/Cargo.toml -> crates:package:shapes-core",
		"implements shapes/src/geo.rs::Circle -> shapes/src/lib.rs::Named",
		"implements shapes/src/geo.rs::Circle -> shapes/src/lib.rs::Shape",
		"implements shapes/src/geo.rs::Circle.area -> shapes/src/lib.rs::Shape.area",
		"implements shapes/src/geo.rs::Circle.name -> shapes/src/lib.rs::Named.name",
		"imports app/src/cli.rs -> shapes/src/geo.rs",
		"imports app/src/main.rs -> app/src/cli.rs",
		"imports app/src/main.rs -> shapes/src/geo.rs",
		"imports app/src/main.rs -> shapes/src/lib.rs",
		"imports shapes/src/draw/canvas.rs -> shapes/src/geo.rs",
		"imports shapes/src/draw/mod.rs -> shapes/src/draw/canvas.rs",
		"imports shapes/src/draw/mod.rs -> shapes/src/geo.rs",
		"imports shapes/src/draw/mod.rs -> shapes/src/lib.rs",
		"imports shapes/src/geo.rs -> shapes/src/lib.rs",
		"imports shapes/src/lib.rs -> shapes/src/draw/mod.rs",
		"imports shapes/src/lib.rs -> shapes/src/geo.rs",
		"inherits_from shapes/src/lib.rs::Shape -> shapes/src/lib.rs::Named",
		"requires Cargo.toml -> app/Cargo.toml",
		"requires Cargo.toml -> shapes/Cargo.toml",
		"requires app/Cargo.toml -> crates:package:shapes-core",
		"requires shapes/Cargo.toml -> crates:package:serde",
	}
	gotSet := map[string]bool{}
	for _, g := range got {
		gotSet[g] = true
	}
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
		if !gotSet[w] {
			t.Errorf("missing edge %s", w)
		}
	}
	for _, g := range got {
		if !wantSet[g] {
			t.Errorf("unexpected edge %s", g)
		}
	}
	for _, pl := range res.Payloads {
		if len(pl.ParseErrors) > 0 {
			t.Errorf("%s: parse errors %v", pl.Path, pl.ParseErrors)
		}
	}
}

// TestRust_Nodes checks the kinds, type kinds and containment of the
// fixture's declarations.
func TestRust_Nodes(t *testing.T) {
	res := index(t, copyTree(t, "testdata/rust"), Options{}, nil)
	nodes := map[string]graph.Node{}
	contains := map[string]bool{}
	for _, pl := range res.Payloads {
		for _, n := range pl.Nodes {
			nodes[n.UID] = n
		}
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeContains {
				contains[e.Source+" -> "+e.Target] = true
			}
		}
	}
	for uid, want := range map[string]string{
		"code:class:shapes/src/geo.rs::Point":             "class struct",
		"code:class:shapes/src/geo.rs::Kind":              "class enum",
		"code:class:shapes/src/geo.rs::Bits":              "class union",
		"code:class:shapes/src/geo.rs::Origin":            "class alias",
		"code:class:shapes/src/lib.rs::Shape":             "class trait",
		"code:function:shapes/src/geo.rs::Point.new":      "method ",
		"code:function:shapes/src/lib.rs::Shape.area":     "method interface",
		"code:function:shapes/src/lib.rs::Shape.describe": "method interface",
		"code:function:shapes/src/geo.rs::origin":         "function ",
		"code:function:app/src/cli.rs::runs":              "function ",
		"crates:package:shapes-core":                      "dependency ",
	} {
		n, ok := nodes[uid]
		if !ok {
			t.Errorf("no node %s", uid)
			continue
		}
		extra := ""
		if k, ok := n.Metadata["type_kind"].(string); ok {
			extra = k
		}
		if n.Metadata["interface"] == true {
			extra = "interface"
		}
		if got := n.Kind + " " + extra; got != want {
			t.Errorf("%s: got %q, want %q", uid, got, want)
		}
	}
	for _, e := range []string{
		"code:class:shapes/src/geo.rs::Point -> code:function:shapes/src/geo.rs::Point.norm",
		"code:class:shapes/src/geo.rs::Circle -> code:function:shapes/src/geo.rs::Circle.area",
		"code:class:shapes/src/lib.rs::Shape -> code:function:shapes/src/lib.rs::Shape.area",
		"code:file:shapes/src/geo.rs -> code:function:shapes/src/geo.rs::origin",
		"code:file:app/src/cli.rs -> code:function:app/src/cli.rs::runs",
	} {
		if !contains[e] {
			t.Errorf("missing contains edge %s", e)
		}
	}
}

// TestRust_Incremental renames a method of the library crate: the
// binary crate's files calling it, unchanged themselves, are extracted
// again and their edges follow (the stub of an unknown receiver
// method), and renaming it back restores them.
func TestRust_Incremental(t *testing.T) {
	root := copyTree(t, "testdata/rust")
	opts := Options{CacheDir: t.TempDir()}
	first := index(t, root, opts, nil)
	const edge = "calls app/src/main.rs::main -> shapes/src/geo.rs::Point.norm"
	has := func(payloads map[string]graph.FileExtracted, e string) bool {
		for _, g := range rustEdges(payloads, graph.EdgeCalls) {
			if g == e {
				return true
			}
		}
		return false
	}
	if !has(first.Payloads, edge) {
		t.Fatalf("first index lacks %s", edge)
	}
	prev := hashes(first.Payloads)
	geo := filepath.Join(root, "shapes/src/geo.rs")
	data, err := os.ReadFile(geo)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.ReplaceAll(string(data), "fn norm(", "fn length(")
	writeFile(t, root, "shapes/src/geo.rs", []byte(renamed))
	second := index(t, root, opts, prev)
	main, ok := second.Payloads["app/src/main.rs"]
	if !ok {
		t.Fatalf("app/src/main.rs not re-extracted after its callee was renamed; emitted %v", keys(second.Payloads))
	}
	if has(second.Payloads, edge) {
		t.Errorf("%s survives the rename", edge)
	}
	if !has(second.Payloads, "calls app/src/main.rs::main -> code:external:*.norm") {
		t.Errorf("main's call is not a stub after the rename: %v", rustEdges(map[string]graph.FileExtracted{"m": main}, graph.EdgeCalls))
	}
	for p, h := range hashes(second.Payloads) {
		prev[p] = h
	}
	writeFile(t, root, "shapes/src/geo.rs", data)
	third := index(t, root, opts, prev)
	if !has(third.Payloads, edge) {
		t.Errorf("renaming back does not restore %s", edge)
	}
}
