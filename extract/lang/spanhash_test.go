package lang

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/cos-dev/cos/graph"
)

func TestHashSpans(t *testing.T) {
	data := []byte("package p\n\nfunc A() {\n\tx()\n}\n\nfunc B() {}")
	r := &Result{Path: "p.go"}
	r.Nodes = []graph.Node{
		{UID: "code:file:p.go", Kind: graph.KindFile, Path: "p.go"},
		{UID: "code:function:p.go::A", Kind: graph.KindFunction, Path: "p.go", Line: 3, EndLine: 5},
		{UID: "code:function:p.go::B", Kind: graph.KindFunction, Path: "p.go", Line: 7, EndLine: 7},
		{UID: "code:function:q.go::C", Kind: graph.KindFunction, Path: "q.go", Line: 1, EndLine: 1},
		{UID: "code:function:p.go::D", Kind: graph.KindFunction, Path: "p.go", Line: 9, EndLine: 8},
	}
	HashSpans(r, data)
	want := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:8])
	}
	got := SymbolHashes(r.Spans, r.Nodes)
	if len(got) != 2 || got["code:function:p.go::A"] != want("func A() {\n\tx()\n}\n") || got["code:function:p.go::B"] != want("func B() {}") {
		t.Fatalf("symbol hashes = %v", got)
	}
	// A node whose lines moved since the spans were taken gets none.
	moved := append([]graph.Node(nil), r.Nodes...)
	moved[1].Line = 4
	if h := SymbolHashes(r.Spans, moved); len(h) != 1 {
		t.Fatalf("a moved node kept its hash: %v", h)
	}
}
