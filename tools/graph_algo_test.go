package tools

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// randomGraph builds a projection of n function nodes and m random edges
// (self loops and parallel types included) from seed.
func randomGraph(t *testing.T, seed uint64, n, m int) *projections.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	uid := func(i int) string { return fmt.Sprintf("code:function:g.go::f%03d", i) }
	var nodes []graph.Node
	for i := range n {
		nodes = append(nodes, graph.Node{UID: uid(i), Kind: graph.KindFunction, Label: fmt.Sprintf("f%d", i)})
	}
	var edges []graph.Edge
	for range m {
		edges = append(edges, graph.Edge{Source: uid(rng.IntN(n)), Target: uid(rng.IntN(n)), Type: edgeTypes[rng.IntN(3)]})
	}
	g := projections.NewGraph()
	for i, p := range []any{graph.NodesUpserted{Nodes: nodes}, graph.EdgesUpserted{Edges: edges}} {
		typ := graph.TypeNodesUpserted
		if i == 1 {
			typ = graph.TypeEdgesUpserted
		}
		data, _ := json.Marshal(p)
		if err := g.Apply(eventlog.Event{Seq: uint64(i + 1), Stream: graph.Stream, Revision: uint64(i + 1), Type: typ, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestTopByDegree_MatchesFullSort(t *testing.T) {
	for seed := range uint64(20) {
		g := randomGraph(t, seed, 80, 150)
		type ranked struct {
			uid string
			deg int
		}
		var all []ranked
		g.Nodes(func(n graph.Node) bool {
			in, out := g.Degree(n.UID)
			all = append(all, ranked{n.UID, in + out})
			return true
		})
		sort.Slice(all, func(i, j int) bool {
			if all[i].deg != all[j].deg {
				return all[i].deg > all[j].deg
			}
			return all[i].uid < all[j].uid
		})
		for _, k := range []int{1, 7, 40, 80, 200} {
			var want []string
			for _, r := range all[:min(k, len(all))] {
				want = append(want, r.uid)
			}
			if got := topByDegree(g, k); !slices.Equal(got, want) {
				t.Fatalf("seed %d k %d: %v, want %v", seed, k, got, want)
			}
		}
	}
}
