package cfamily

import (
	"testing"

	"github.com/cos-dev/cos/extract/lang"
)

// TestCalls_RepeatedUnresolvedCallOnce: a body calling a name it cannot
// resolve several times holds that name's references once, from its first
// call (the resolver keeps an edge once, keyed without the line), and the
// macro references of every name share one receiver.
func TestCalls_RepeatedUnresolvedCallOnce(t *testing.T) {
	src := "int f(int n)\n{\n\tkfree(n);\n\tg(n);\n\tkfree(n + 1);\n\tkfree(n + 2);\n\treturn g(n);\n}\n" +
		"int h(int n)\n{\n\treturn kfree(n);\n}\n"
	r := &lang.Result{Path: "a.c", Extractor: lang.ExtractorC}
	Extract(r, []byte(src), &lang.Env{}, C)
	type key struct{ from, name string }
	count := map[key]int{}
	line := map[key]int{}
	for _, ref := range r.Refs {
		if ref.Type != lang.RefCall {
			continue
		}
		k := key{ref.From, ref.Name}
		count[k]++
		if _, ok := line[k]; !ok {
			line[k] = ref.Line
		}
		if ref.Recv != nil && ref.Recv != macroRecv {
			t.Errorf("macro reference %q has its own receiver", ref.Name)
		}
	}
	f, h := "code:function:a.c::f", "code:function:a.c::h"
	for _, c := range []struct {
		k    key
		line int
	}{
		{key{f, "kfree"}, 3}, {key{f, "#kfree.0"}, 3}, {key{f, "#kfree.3"}, 3},
		{key{f, "g"}, 4}, {key{f, "#g.2"}, 4},
		{key{h, "kfree"}, 11}, {key{h, "#kfree.1"}, 11},
	} {
		if count[c.k] != 1 || line[c.k] != c.line {
			t.Errorf("%v: %d references, first at line %d; want 1 at line %d", c.k, count[c.k], line[c.k], c.line)
		}
	}
}
