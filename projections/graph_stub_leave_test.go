package projections

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// When the file whose version of a stub is shown stops emitting it (it was
// removed, or edited not to call the name) while other files still do, the
// stub shows the version of the greatest file left, as a graph built from
// those files alone does.
func TestGraph_StubOwnerLeavesShowsNextOwner(t *testing.T) {
	file := func(path, extractor, hash string, stub bool) eventlog.Event {
		p := graph.FileExtracted{Path: path, Extractor: extractor, ContentHash: hash}
		if stub {
			p.Nodes = []graph.Node{{UID: "code:external:*.call", Kind: graph.KindExternal, Label: "*.call", Metadata: map[string]any{"stub": true}}}
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return eventlog.Event{Type: graph.TypeFileExtracted, Stream: graph.Stream, Data: b}
	}
	removed := func(path string) eventlog.Event {
		b, err := json.Marshal(graph.FileRemoved{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		return eventlog.Event{Type: graph.TypeFileRemoved, Stream: graph.Stream, Data: b}
	}
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
	a, b := file("a.go", "go", "h1", true), file("b.js", "jsts", "h2", true)
	z := file("z.go", "go", "h3", true)
	fresh := shown(a, b)
	if fresh != "jsts 2" {
		t.Fatalf("a.go and b.js: %q, want the greatest path's version (jsts) with 2 owners", fresh)
	}
	for name, got := range map[string]string{
		"z.go removed":                   shown(a, b, z, removed("z.go")),
		"z.go edited not to call":        shown(a, b, z, file("z.go", "go", "h4", false)),
		"z.go removed, applied first":    shown(z, a, b, removed("z.go")),
		"a.go (not shown) removed again": shown(a, b, z, removed("z.go"), removed("a.go"), a),
	} {
		if got != fresh {
			t.Errorf("%s: the stub shows %q, a graph of a.go and b.js %q", name, got, fresh)
		}
	}
}
