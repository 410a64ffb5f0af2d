package projections

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// eventGen makes random but valid-looking graph event payloads over a small
// universe, so files overlap (shared folders, stubs, contains edges) and
// agents and deletes collide with extractors.
type eventGen struct {
	r *rand.Rand
}

var (
	genPaths      = []string{"a.go", "b.go", "pkg/c.go", "pkg/d.py", "docs/e.md", "docs/f.md"}
	genExtractors = []string{"go", "treesitter"}
	genFuncs      = []string{"Run", "Stop", "Char.splice", "parse_json", "main"}
	genExternals  = []string{"code:external:fmt.Println", "code:external:os.Open", "go:package:github.com/x/y"}
	genEdgeTypes  = []string{graph.EdgeContains, graph.EdgeCalls, graph.EdgeImports}
)

func (g eventGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g eventGen) uid() string {
	switch g.r.IntN(4) {
	case 0:
		return graph.FileUID(g.pick(genPaths))
	case 1:
		return "folder:" + g.pick([]string{".", "pkg", "docs"})
	case 2:
		return g.pick(genExternals)
	}
	return "code:function:" + g.pick(genPaths) + "::" + g.pick(genFuncs)
}

func (g eventGen) node(uid string) graph.Node {
	n := graph.Node{UID: uid, Label: uid[len(uid)-min(len(uid), 6):], Line: g.r.IntN(3)}
	switch g.r.IntN(8) {
	case 0, 1:
		n.Metadata = map[string]any{"stub": true, "n": g.r.IntN(3)}
	case 2:
		n.Metadata = map[string]any{graph.MetaDynamicCalls: g.r.IntN(3), graph.MetaReflectCalls: g.r.IntN(2)}
	case 3:
		n.Metadata = map[string]any{graph.MetaExtraction: graph.ExtractionSyntax,
			graph.MetaFallback: g.pick([]string{graph.FallbackLoadError, graph.FallbackTypeError, graph.FallbackBuildExcluded})}
	}
	return n
}

func (g eventGen) edge() graph.Edge {
	return graph.Edge{Source: g.uid(), Target: g.uid(), Type: g.pick(genEdgeTypes), Line: g.r.IntN(3)}
}

// payload returns the type and payload of one random event; about one in
// twenty is invalid and one in twenty belongs to another projection.
func (g eventGen) payload() (string, any) {
	switch k := g.r.IntN(20); {
	case k < 9:
		p := graph.FileExtracted{Path: g.pick(genPaths), Extractor: g.pick(genExtractors), ContentHash: fmt.Sprint(g.r.IntN(5)), DurationMS: float64(g.r.IntN(4)) / 2}
		for range g.r.IntN(6) {
			p.Nodes = append(p.Nodes, g.node(g.uid()))
		}
		for range g.r.IntN(8) {
			p.Edges = append(p.Edges, g.edge())
		}
		if g.r.IntN(5) == 0 {
			p.ParseErrors = []string{"syntax error"}
		}
		return graph.TypeFileExtracted, p
	case k < 11:
		return graph.TypeFileRemoved, graph.FileRemoved{Path: g.pick(genPaths)}
	case k < 13:
		return graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: []graph.Node{g.node(g.uid()), g.node(g.uid())}}
	case k < 15:
		e := g.edge()
		if g.r.IntN(2) == 0 {
			e.Extractor = g.pick(genExtractors)
		}
		return graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: []graph.Edge{e, g.edge()}}
	case k < 16:
		return graph.TypeNodesDeleted, graph.NodesDeleted{UIDs: []string{g.uid()}}
	case k < 18:
		e := g.edge()
		e.Extractor = g.pick(append([]string{""}, genExtractors...))
		return graph.TypeEdgesDeleted, graph.EdgesDeleted{Edges: []graph.EdgeKey{e.Key()}}
	case k < 19:
		return graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: []graph.Node{{UID: "code:file:../escape.go"}}}
	}
	return "task.created", map[string]string{"title": "not a graph event"}
}

// events returns n random events with seqs 1..n.
func (g eventGen) events(tb testing.TB, n int) []eventlog.Event {
	evs := make([]eventlog.Event, n)
	for i := range evs {
		typ, p := g.payload()
		evs[i] = testEvent(tb, uint64(i+1), typ, p)
	}
	return evs
}
