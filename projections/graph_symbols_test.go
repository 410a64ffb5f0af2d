package projections

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

const symSrc = `package p

func A() int {
	return 1
}

func B() int {
	return A() + 1
}
`

// symApply extracts src as path with the real extractors and applies it
// as the next event; strip drops the symbol hashes (an event written
// before them).
func symApply(t *testing.T, g *Graph, seq *uint64, path, src string, strip bool) graph.FileExtracted {
	t.Helper()
	p := extract.File(path, []byte(src))
	if len(p.ParseErrors) > 0 {
		t.Fatalf("parse errors: %v", p.ParseErrors)
	}
	if strip {
		p.SymbolHashes = nil
	}
	symApplyPayload(t, g, seq, p)
	return p
}

func symApplyPayload(t *testing.T, g *Graph, seq *uint64, p graph.FileExtracted) {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	*seq++
	if err := g.Apply(eventlog.Event{Seq: *seq, Type: graph.TypeFileExtracted, Stream: graph.Stream, Data: data}); err != nil {
		t.Fatal(err)
	}
}

func changedNames(t *testing.T, g *Graph, path string) []string {
	t.Helper()
	p, uids := g.LastChangedSymbols()
	if len(uids) > 0 && p != path {
		t.Fatalf("changes of %q reported for %q", path, p)
	}
	var out []string
	for _, u := range uids {
		out = append(out, u[strings.LastIndex(u, "::")+2:])
	}
	return out
}

func TestGraph_LastChangedSymbols(t *testing.T) {
	g, seq := NewGraph(), uint64(0)
	p := symApply(t, g, &seq, "p/p.go", symSrc, false)
	if len(p.SymbolHashes) != 2 {
		t.Fatalf("symbol hashes of the payload: %v, want A and B", p.SymbolHashes)
	}
	if got := changedNames(t, g, "p/p.go"); got != nil {
		t.Fatalf("a first extraction changed %v", got)
	}
	steps := []struct {
		what, src string
		want      []string
	}{
		{"the same content", symSrc, nil},
		{"A's body edited", strings.Replace(symSrc, "return 1", "return 2", 1), []string{"A"}},
		{"lines inserted above both", strings.Replace(strings.Replace(symSrc, "return 1", "return 2", 1), "package p\n", "package p\n\n// moved\n\n", 1), nil},
		{"B removed, C added", "package p\n\n// moved\n\nfunc A() int {\n\treturn 2\n}\n\nfunc C() {}\n", []string{"B", "C"}},
	}
	for _, s := range steps {
		symApply(t, g, &seq, "p/p.go", s.src, false)
		if got := changedNames(t, g, "p/p.go"); !slices.Equal(got, s.want) {
			t.Errorf("%s: changed %v, want %v", s.what, got, s.want)
		}
	}
	// Another event resets it.
	ev := eventlog.Event{Seq: seq + 1, Type: graph.TypeNodesUpserted, Stream: graph.Stream, Data: json.RawMessage(`{"nodes":[]}`)}
	seq++
	if err := g.Apply(ev); err != nil {
		t.Fatal(err)
	}
	if _, uids := g.LastChangedSymbols(); uids != nil {
		t.Fatalf("changes after an upsert: %v", uids)
	}
	data, _ := json.Marshal(graph.FileRemoved{Path: "p/p.go"})
	seq++
	if err := g.Apply(eventlog.Event{Seq: seq, Type: graph.TypeFileRemoved, Stream: graph.Stream, Data: data}); err != nil {
		t.Fatal(err)
	}
	if got := changedNames(t, g, "p/p.go"); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("file removed: changed %v, want A and C", got)
	}
}

func TestGraph_LastChangedSymbols_NoHashes(t *testing.T) {
	g, seq := NewGraph(), uint64(0)
	symApply(t, g, &seq, "p/p.go", symSrc, true)
	symApply(t, g, &seq, "p/p.go", strings.Replace(symSrc, "return 1", "return 2", 1), true)
	// Without hashes a body edit that keeps the lines is not seen...
	if got := changedNames(t, g, "p/p.go"); got != nil {
		t.Fatalf("no hashes, same spans: changed %v", got)
	}
	// ...and a move is: the line span is what is compared.
	symApply(t, g, &seq, "p/p.go", strings.Replace(symSrc, "package p\n", "package p\n\n\n", 1), true)
	if got := changedNames(t, g, "p/p.go"); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("no hashes, moved: changed %v, want A and B", got)
	}
	if bytes.Contains(mustSnap(t, g), []byte(symbolHashesTag)) {
		t.Fatal("a graph without symbol hashes encodes the symbol-hashes section")
	}
}

func mustSnap(t *testing.T, g *Graph) []byte {
	t.Helper()
	b, err := g.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGraph_SymbolHashesSnapshot(t *testing.T) {
	g, seq := NewGraph(), uint64(0)
	symApply(t, g, &seq, "p/p.go", symSrc, false)
	plain, pseq := NewGraph(), uint64(0)
	symApply(t, plain, &pseq, "p/p.go", symSrc, true)
	if g.StateHash() == plain.StateHash() {
		t.Fatal("symbol hashes do not change the state hash")
	}
	snap := mustSnap(t, g)
	r := NewGraph()
	if err := r.UnmarshalSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if r.StateHash() != g.StateHash() || !bytes.Equal(mustSnap(t, r), snap) {
		t.Fatal("the restored graph differs")
	}
	a := "code:function:p/p.go::A"
	h1, ok1 := g.SymbolHash(a)
	h2, ok2 := r.SymbolHash(a)
	if !ok1 || h1 != h2 || len(h1) != 16 {
		t.Fatalf("symbol hash of A: %q %v / restored %q %v", h1, ok1, h2, ok2)
	}
	// The restored graph tells a body edit from the same content.
	symApply(t, r, &seq, "p/p.go", strings.Replace(symSrc, "A() + 1", "A() + 2", 1), false)
	if got := changedNames(t, r, "p/p.go"); !slices.Equal(got, []string{"B"}) {
		t.Fatalf("after restore, B edited: changed %v", got)
	}
}

func TestGraph_LastChangedSymbols_Parts(t *testing.T) {
	g, seq := NewGraph(), uint64(0)
	full := extract.File("p/p.go", []byte(symSrc))
	split := func(p graph.FileExtracted) (graph.FileExtracted, graph.FileExtracted) {
		var n0, n1 []graph.Node
		for _, n := range p.Nodes {
			if strings.HasSuffix(n.UID, "::B") {
				n1 = append(n1, n)
			} else {
				n0 = append(n0, n)
			}
		}
		hashes := func(ns []graph.Node) map[string]string {
			m := map[string]string{}
			for _, n := range ns {
				if h, ok := p.SymbolHashes[n.UID]; ok {
					m[n.UID] = h
				}
			}
			return m
		}
		p0, p1 := p, p
		p0.Nodes, p0.Edges, p0.SymbolHashes = n0, nil, hashes(n0)
		p1.Nodes, p1.Edges, p1.SymbolHashes, p1.Part = n1, nil, hashes(n1), 1
		return p0, p1
	}
	p0, p1 := split(full)
	symApplyPayload(t, g, &seq, p0)
	symApplyPayload(t, g, &seq, p1)
	if got := changedNames(t, g, "p/p.go"); got != nil {
		t.Fatalf("the second part of a first extraction changed %v", got)
	}
	// The same split again: part 0 releases B, part 1 adds it back
	// unchanged and says so.
	symApplyPayload(t, g, &seq, p0)
	if got := changedNames(t, g, "p/p.go"); !slices.Equal(got, []string{"B"}) {
		t.Fatalf("part 0 again: changed %v, want B (released)", got)
	}
	symApplyPayload(t, g, &seq, p1)
	if got := changedNames(t, g, "p/p.go"); got != nil {
		t.Fatalf("part 1 again: changed %v", got)
	}
	if _, back := g.LastRestoredSymbols(); len(back) != 1 || !strings.HasSuffix(back[0], "::B") {
		t.Fatalf("restored = %v, want B", back)
	}
	// B edited: part 1 reports it.
	e0, e1 := split(extract.File("p/p.go", []byte(strings.Replace(symSrc, "A() + 1", "A() + 3", 1))))
	symApplyPayload(t, g, &seq, e0)
	symApplyPayload(t, g, &seq, e1)
	if got := changedNames(t, g, "p/p.go"); !slices.Equal(got, []string{"B"}) {
		t.Fatalf("part 1 with B edited: changed %v", got)
	}
	if _, back := g.LastRestoredSymbols(); back != nil {
		t.Fatalf("restored = %v after an edit", back)
	}
}
