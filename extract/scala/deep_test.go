package scala

import (
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/lang"
)

// TestExtract_DeepChainsAreBounded extracts a file of a 2,000-step member
// chain and 100 nested classes: the chain's receiver is unknown past
// maxSteps and classes past maxTypeNesting are left out (each chain step
// copies the chain, each nested class name holds the enclosing ones, so
// unbounded both cost n²). Longer chains are not tried: tree-sitter-scala
// itself parses a chain in time quadratic in its length (20,000 steps
// took 30 s).
func TestExtract_DeepChainsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("object A {\n  def f() = a" + strings.Repeat(".b", 2000) + ".c()\n")
	b.WriteString("}\n")
	for range 100 {
		b.WriteString("class C { ")
	}
	b.WriteString(strings.Repeat("}", 100) + "\n")
	start := time.Now()
	r := &lang.Result{Path: "deep.scala", Extractor: lang.ExtractorScala}
	Extractor{}.Extract(r, []byte(b.String()), &lang.Env{})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("extraction took %v", d)
	}
	classes := 0
	for n := range r.Decl.Names {
		if strings.HasPrefix(n, "C") {
			classes++
		}
	}
	if classes != maxTypeNesting {
		t.Errorf("%d nested classes declared, want %d (maxTypeNesting)", classes, maxTypeNesting)
	}
	calls := 0
	for _, ref := range r.Refs {
		if ref.Type == lang.RefCall && ref.Name == "c" {
			calls++
			if ref.Recv != nil {
				t.Errorf("a.b…b.c(): receiver %v, want unknown past maxSteps", ref.Recv)
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d calls of c, want 1", calls)
	}
}
