package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/graphtest"
	"github.com/cos-dev/cos/projections"
)

// bfsHops is the reference: one-sided breadth-first distance in direction,
// -1 when unreachable within max.
func bfsHops(g *projections.Graph, from, to string, limit int, follow map[string]bool, direction string) int {
	dist := map[string]int{from: 0}
	frontier := []string{from}
	for d := 0; len(frontier) > 0; d++ {
		if _, ok := dist[to]; ok {
			return dist[to]
		}
		if d == limit {
			break
		}
		var next []string
		for _, u := range frontier {
			var es []graph.Edge
			if direction != PathBackward {
				es = append(es, g.Out(u)...)
			}
			if direction != PathForward {
				es = append(es, g.In(u)...)
			}
			for _, e := range es {
				if follow != nil && !follow[e.Type] {
					continue
				}
				v := otherEnd(e, u)
				if _, ok := dist[v]; !ok {
					dist[v] = d + 1
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	if d, ok := dist[to]; ok && d <= limit {
		return d
	}
	return -1
}

func TestShortestPath_MatchesOneSidedBFS(t *testing.T) {
	for seed := range uint64(40) {
		g := graphtest.Random(t, seed, 60, 70+int(seed))
		rng := rand.New(rand.NewPCG(seed, 1))
		for range 30 {
			from, to := fmt.Sprintf("code:function:g.go::f%03d", rng.IntN(60)), fmt.Sprintf("code:function:g.go::f%03d", rng.IntN(60))
			hops := 1 + rng.IntN(8)
			var follow map[string]bool
			if rng.IntN(2) == 0 {
				follow = TypeSet([]string{graph.EdgeCalls})
			}
			direction := PathDirections[rng.IntN(len(PathDirections))]
			want := bfsHops(g, from, to, hops, follow, direction)
			chain, links, err := shortestPath(context.Background(), g, from, to, hops, follow, direction)
			if err != nil {
				t.Fatal(err)
			}
			got := len(chain) - 1
			if want != got {
				t.Fatalf("seed %d %s→%s max %d %s: %d hops, want %d (%v)", seed, from, to, hops, direction, got, want, chain)
			}
			if chain == nil {
				continue
			}
			if chain[0] != from || chain[len(chain)-1] != to {
				t.Fatalf("seed %d: path %v does not join %s and %s", seed, chain, from, to)
			}
			for i, e := range links {
				a, b := chain[i], chain[i+1]
				fwd, back := e.Source == a && e.Target == b, e.Source == b && e.Target == a
				if !(fwd && direction != PathBackward) && !(back && direction != PathForward) {
					t.Fatalf("seed %d: link %d %v does not join %s and %s %s", seed, i, e, a, b, direction)
				}
				if follow != nil && !follow[e.Type] {
					t.Fatalf("seed %d: link of type %s outside the filter", seed, e.Type)
				}
			}
		}
	}
}
