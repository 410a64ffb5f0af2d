package projections

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// A stub several files emit (a call no extractor could resolve, from Go,
// JavaScript and Python) reads the same whatever order the files were
// applied in: a fresh index applies every file in path order, an
// incremental one only the file it extracted again.
func TestGraph_StubOfSeveralFilesIsOrderFree(t *testing.T) {
	file := func(path, extractor, hash string) eventlog.Event {
		p := graph.FileExtracted{Path: path, Extractor: extractor, ContentHash: hash,
			Nodes: []graph.Node{{UID: "code:external:*.call", Kind: graph.KindExternal, Label: "*.call"}}}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return eventlog.Event{Type: graph.TypeFileExtracted, Stream: graph.Stream, Data: b}
	}
	a, b, c := file("a.go", "go", "h1"), file("b.js", "jsts", "h2"), file("c.py", "python", "h3")
	aEdited := file("a.go", "go", "h4")
	shown := func(evs ...eventlog.Event) string {
		g := NewGraph()
		for i, ev := range evs {
			ev.Seq = uint64(i + 1)
			if err := g.Apply(ev); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range g.Dump().Nodes {
			if n.UID == "code:external:*.call" {
				return fmt.Sprint(n.Extractor, " ", len(n.Owners))
			}
		}
		return "missing"
	}
	fresh := shown(a, b, c)
	for name, got := range map[string]string{
		"reverse order":     shown(c, b, a),
		"a.go edited last":  shown(a, b, c, aEdited),
		"b.js applied last": shown(a, c, b),
	} {
		if got != fresh {
			t.Errorf("%s: the stub shows %q, a fresh order %q", name, got, fresh)
		}
	}
	if fresh != "python 3" {
		t.Errorf("fresh order: %q, want the greatest path's version (python) with 3 owners", fresh)
	}
}
