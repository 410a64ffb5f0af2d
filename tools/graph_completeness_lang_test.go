package tools

import (
	"context"
	"testing"
)

// langFixture is a small repository in every language cos extracts: each
// file calls something through a receiver of unknown type (a
// code:external:*.<name> stub) and declares a function another file
// calls or includes.
var langFixture = map[string]string{
	"go.mod":         "module example.com/fx\n\ngo 1.22\n",
	"main.go":        "package main\n\nfunc helper() int { return 1 }\n\nfunc main() { _ = helper() }\n",
	"c/util.h":       "int twice(int x);\n",
	"c/util.c":       "#include \"util.h\"\nint twice(int x) { return x * 2; }\n",
	"c/main.c":       "#include \"util.h\"\nint main(void) { struct s *p = 0; p->go(); return twice(1); }\n",
	"cpp/shape.hpp":  "class Shape { public: int area(); };\n",
	"cpp/main.cpp":   "#include \"shape.hpp\"\nint run(Thing t) { Shape s; t.spin(); return s.area(); }\n",
	"rs/src/lib.rs":  "pub fn norm(x: i32) -> i32 { x }\n",
	"rs/src/main.rs": "mod lib;\nfn main() { let v = make(); v.wobble(); lib::norm(1); }\n",
	"rb/lib/shop.rb": "class Shop\n  def open(x)\n    x.polish\n  end\nend\n",
	"rb/lib/run.rb":  "require_relative 'shop'\nShop.new.open(1)\n",
	"java/A.java":    "package p;\nclass A { void f(Object o) { o.toString(); B.g(); } }\n",
	"java/B.java":    "package p;\nclass B { static void g() {} }\n",
	"php/a.php":      "<?php\nfunction pa($x) { $x->frob(); pb(); }\n",
	"php/b.php":      "<?php\nfunction pb() {}\n",
	"py/a.py":        "from b import hb\n\ndef ha(x):\n    x.quux()\n    hb()\n",
	"py/b.py":        "def hb():\n    pass\n",
	"docs/guide.md":  "# Guide\n\nSee [the readme](../README.md).\n",
	"README.md":      "# Fixture\n",
}

// TestGraphCompleteness_ByLanguage indexes a repository in every language
// cos extracts and asks each tool about file nodes and unknown-receiver
// stubs: only Go's and the path-resolved kinds (documents, folders) may be
// exact; every node whose incoming edges were matched by name says
// lower_bound with name_matched_nodes.
func TestGraphCompleteness_ByLanguage(t *testing.T) {
	root := idxWriteRepo(t, langFixture)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, `{}`)
	if err := s.tailer.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		uid   string
		exact bool
	}{
		{"code:file:main.go", true},
		{"code:function:main.go::helper", true},
		{"doc:file:README.md", true},
		{"folder:docs", true},
		{"code:file:c/util.h", false},
		{"code:file:c/util.c", false},
		{"code:function:c/util.c::twice", false},
		{"code:file:cpp/shape.hpp", false},
		{"code:file:rs/src/lib.rs", false},
		{"code:function:rs/src/lib.rs::norm", false},
		{"code:file:rb/lib/shop.rb", false},
		{"code:class:rb/lib/shop.rb::Shop", false},
		{"code:file:java/B.java", false},
		{"code:file:php/b.php", false},
		{"code:file:py/b.py", false},
		{"code:function:py/b.py::hb", false},
		{"code:external:*.go", false},
		{"code:external:*.spin", false},
		{"code:external:*.wobble", false},
		{"code:external:*.polish", false},
		{"code:external:*.frob", false},
		{"code:external:*.quux", false},
	}
	for _, tc := range tests {
		if _, ok := s.graph.NodeHeader(tc.uid); !ok {
			t.Errorf("%s: not in the graph", tc.uid)
			continue
		}
		for _, call := range []struct{ tool, args string }{
			{"cos_graph_references", `{"uid": "` + tc.uid + `"}`},
			{"cos_graph_impact", `{"uid": "` + tc.uid + `", "depth": 1}`},
			{"cos_graph_context", `{"uid_or_name": "` + tc.uid + `"}`},
		} {
			c, r := completenessOfCall(t, s, call.tool, call.args)
			switch {
			case tc.exact && c != "exact":
				t.Errorf("%s %s: %s %v, want exact", call.tool, tc.uid, c, r)
			case !tc.exact && (c != "lower_bound" || r["name_matched_nodes"] == nil):
				t.Errorf("%s %s: %s %v, want lower_bound with name_matched_nodes", call.tool, tc.uid, c, r)
			}
		}
	}
}
