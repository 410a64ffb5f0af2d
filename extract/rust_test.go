package extract

import (
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// rustEdges lists the edges of the given types of every payload as
// "type source -> target", uid prefixes cut and the fixture's crate
// folders kept.
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

func TestRust_Dump(t *testing.T) {
	res := index(t, copyTree(t, "testdata/rust"), Options{}, nil)
	for _, e := range rustEdges(res.Payloads, graph.EdgeCalls, graph.EdgeImports, graph.EdgeImplements, graph.EdgeInheritsFrom, graph.EdgeRequires, graph.EdgeDefines) {
		t.Log(e)
	}
	for _, pl := range res.Payloads {
		for _, n := range pl.Nodes {
			t.Log(n.UID, n.Kind, n.Metadata)
		}
		for _, pe := range pl.ParseErrors {
			t.Log("PARSE", pe)
		}
	}
}
