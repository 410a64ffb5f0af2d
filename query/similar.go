package query

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/search"
	"github.com/cos-dev/cos/state"
)

// Weights of cos_graph_similar's score (they sum to 1): the name, from the
// search index's score relative to the best hit and the share of label
// words in common; the shape, from the kind and the degree.
const (
	similarNameWeight   = 0.45
	similarWordsWeight  = 0.25
	similarKindWeight   = 0.15
	similarDegreeWeight = 0.15
	// similarPool is how many index hits per requested result are scored.
	similarPool = 4
)

// SimilarNode is one cos_graph_similar result.
type SimilarNode struct {
	NodeView
	Score float64 `json:"score"`
	// NameScore and ShapeScore are the two halves of Score.
	NameScore  float64 `json:"name_score"`
	ShapeScore float64 `json:"shape_score"`
	Degree     int     `json:"degree"`
}

// Similar is the answer of SimilarTo.
type Similar struct {
	// Results are ordered by score, best first, then uid.
	Results []SimilarNode
	// Degree is the root's degree (in + out).
	Degree int
}

// SimilarTo scores the nodes the search index finds for root's label
// words (limit×similarPool of them) by name and by shape, and returns
// the best limit. It fails with the search index's error.
func SimilarTo(ctx context.Context, v state.View, root graph.Node, limit int) (Similar, error) {
	g := v.Graph
	words := search.Tokens(root.Label)
	rootIn, rootOut := g.Degree(root.UID)
	rootDeg := rootIn + rootOut
	hits, err := v.Search.Suggest(ctx, strings.Join(words, " "), nil, limit*similarPool+1)
	if err != nil {
		return Similar{}, err
	}
	top := 0.0
	for _, h := range hits {
		top = math.Max(top, h.Score)
	}
	results := []SimilarNode{}
	for _, h := range hits {
		n, ok := g.Node(h.UID)
		if !ok || n.UID == root.UID {
			continue
		}
		in, out := g.Degree(n.UID)
		deg := in + out
		name := similarWordsWeight * wordOverlap(words, search.Tokens(n.Label))
		if top > 0 {
			name += similarNameWeight * h.Score / top
		}
		shape := similarDegreeWeight * (1 - math.Abs(float64(deg-rootDeg))/math.Max(1, float64(max(deg, rootDeg))))
		if n.Kind == root.Kind {
			shape += similarKindWeight
		}
		results = append(results, SimilarNode{NodeView: ViewOf(n), Score: round3(name + shape), NameScore: round3(name), ShapeScore: round3(shape), Degree: deg})
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Score != results[j].Score {
			return results[i].Score > results[j].Score
		}
		return results[i].UID < results[j].UID
	})
	results = results[:min(len(results), limit)]
	return Similar{Results: results, Degree: rootDeg}, nil
}

// wordOverlap is the Jaccard index of two word lists, ignoring case.
func wordOverlap(a, b []string) float64 {
	set := map[string]int{}
	for _, w := range a {
		set[strings.ToLower(w)] |= 1
	}
	for _, w := range b {
		set[strings.ToLower(w)] |= 2
	}
	both := 0
	for _, v := range set {
		if v == 3 {
			both++
		}
	}
	if len(set) == 0 {
		return 0
	}
	return float64(both) / float64(len(set))
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
