package extract

import (
	"testing"
)

// TestRun_RecursiveCallsAreSelfEdges: a function or method that calls
// itself gets a calls edge to itself, in every language, as
// x/tools/go/callgraph keeps one: "what calls f" lists f when f recurses.
// Only calls edges loop; a class never inherits from itself.
func TestRun_RecursiveCallsAreSelfEdges(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/rec\n\ngo 1.22\n",
		"fact.go": "package rec\n\ntype T struct{}\n\nfunc Fact(n int) int {\n\tif n < 2 {\n\t\treturn 1\n\t}\n\treturn n * Fact(n-1)\n}\n\nfunc (t *T) Walk(n int) {\n\tif n > 0 {\n\t\tt.Walk(n - 1)\n\t}\n}\n",
		"py/fact.py": "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n\n" +
			"class Tree:\n    def walk(self, n):\n        if n:\n            self.walk(n - 1)\n",
		"js/fact.js":   "function fact(n) { return n < 2 ? 1 : n * fact(n - 1); }\n",
		"c/fact.c":     "int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\n",
		"cpp/tree.cpp": "class Tree { public: void walk(int n) { if (n) walk(n - 1); } };\n",
		"java/Tree.java": "package p;\nclass Tree {\n  int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\n" +
			"  void walk(int n) { if (n > 0) this.walk(n - 1); }\n}\n",
		"rs/src/lib.rs": "pub fn fact(n: u64) -> u64 { if n < 2 { 1 } else { n * fact(n - 1) } }\n" +
			"pub struct Tree;\nimpl Tree { pub fn walk(&self, n: u32) { if n > 0 { self.walk(n - 1) } } }\n",
		"php/fact.php": "<?php\nfunction fact($n) { return $n < 2 ? 1 : $n * fact($n - 1); }\n" +
			"class Tree { function walk($n) { if ($n) { $this->walk($n - 1); } } }\n",
		"rb/tree.rb":     "class Tree\n  def walk(n)\n    walk(n - 1) if n > 0\n  end\nend\n",
		"py/selfbase.py": "class Base(Base):\n    pass\n",
	}
	for p, src := range files {
		writeFile(t, root, p, []byte(src))
	}
	got := callEdges(index(t, root, Options{}, nil).Payloads)
	checkCalls(t, got, []string{
		"fact.go::Fact -> fact.go::Fact",
		"fact.go::T.Walk -> fact.go::T.Walk",
		"py/fact.py::fact -> py/fact.py::fact",
		"py/fact.py::Tree.walk -> py/fact.py::Tree.walk",
		"js/fact.js::fact -> js/fact.js::fact",
		"c/fact.c::fact -> c/fact.c::fact",
		"cpp/tree.cpp::Tree.walk -> cpp/tree.cpp::Tree.walk",
		"java/Tree.java::Tree.fact -> java/Tree.java::Tree.fact",
		"java/Tree.java::Tree.walk -> java/Tree.java::Tree.walk",
		"rs/src/lib.rs::fact -> rs/src/lib.rs::fact",
		"rs/src/lib.rs::Tree.walk -> rs/src/lib.rs::Tree.walk",
		"php/fact.php::fact -> php/fact.php::fact",
		"php/fact.php::Tree.walk -> php/fact.php::Tree.walk",
		"rb/tree.rb::Tree.walk -> rb/tree.rb::Tree.walk",
	}, nil)
}
