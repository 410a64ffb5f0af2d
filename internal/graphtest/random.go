// Package graphtest builds graph projections for tests of the packages
// that query them (query, tools). Imported by tests only.
package graphtest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// randomEdgeTypes are the edge types Random draws from.
var randomEdgeTypes = []string{graph.EdgeContains, graph.EdgeCalls, graph.EdgeImports}

// Random builds a projection of n function nodes
// (code:function:g.go::f000 …) and m random contains, calls and imports
// edges between them (self loops and parallel types included), drawn from
// seed: the same seed gives the same graph.
func Random(t testing.TB, seed uint64, n, m int) *projections.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	uid := func(i int) string { return fmt.Sprintf("code:function:g.go::f%03d", i) }
	var nodes []graph.Node
	for i := range n {
		nodes = append(nodes, graph.Node{UID: uid(i), Kind: graph.KindFunction, Label: fmt.Sprintf("f%d", i)})
	}
	var edges []graph.Edge
	for range m {
		edges = append(edges, graph.Edge{Source: uid(rng.IntN(n)), Target: uid(rng.IntN(n)), Type: randomEdgeTypes[rng.IntN(len(randomEdgeTypes))]})
	}
	g := projections.NewGraph()
	events := []struct {
		typ     string
		payload any
	}{{graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: nodes}}, {graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: edges}}}
	for i, e := range events {
		data, err := json.Marshal(e.payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Apply(eventlog.Event{Seq: uint64(i + 1), Stream: graph.Stream, Revision: uint64(i + 1), Type: e.typ, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}
