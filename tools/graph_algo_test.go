package tools

import (
	"slices"
	"sort"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/graphtest"
)

func TestTopByDegree_MatchesFullSort(t *testing.T) {
	for seed := range uint64(20) {
		g := graphtest.Random(t, seed, 80, 150)
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
