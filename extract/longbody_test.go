package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestRun_LongBodyKeepsEveryCall: a function whose syntax tree is larger
// than one chunk of the tree walk (hundreds of statements) keeps the calls
// before the chunk boundary. The walk handed visitors pointers into a
// buffer the next chunk overwrote, so a call seen early and resolved later
// became whatever node the next chunk put there: express's router lost 8
// of 21 calls.
func TestRun_LongBodyKeepsEveryCall(t *testing.T) {
	var stmts strings.Builder
	for i := range 200 {
		fmt.Fprintf(&stmts, "  var v%d = a%d + b%d * c%d;\n", i, i, i, i)
	}
	root := t.TempDir()
	writeFile(t, root, "a.js", []byte("var proto = {};\nproto.handle = function handle(req) {\n  var x = helper(req);\n"+stmts.String()+
		"  function next(err) {\n    var y = other(req);\n  }\n};\nfunction helper(u) { return u; }\nfunction other(u) { return u; }\n"))
	writeFile(t, root, "b.py", []byte("def handle(req):\n    x = helper(req)\n"+strings.ReplaceAll(stmts.String(), "  var ", "    ")+
		"    return other(req)\n\n\ndef helper(u):\n    return u\n\n\ndef other(u):\n    return u\n"))
	res := index(t, root, Options{}, nil)
	for _, tc := range []struct{ path, source, target string }{
		{"a.js", "code:function:a.js::proto.handle", "code:function:a.js::helper"},
		{"a.js", "code:function:a.js::proto.handle", "code:function:a.js::other"},
		{"b.py", "code:function:b.py::handle", "code:function:b.py::helper"},
		{"b.py", "code:function:b.py::handle", "code:function:b.py::other"},
	} {
		if !hasEdge(res.Payloads[tc.path], tc.source, tc.target) {
			t.Errorf("%s: no edge %s -> %s", tc.path, tc.source, tc.target)
		}
	}
}
