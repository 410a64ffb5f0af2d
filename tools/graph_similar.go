package tools

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/search"
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

// similarNode is one cos_graph_similar result.
type similarNode struct {
	nodeView
	Score float64 `json:"score"`
	// NameScore and ShapeScore are the two halves of Score.
	NameScore  float64 `json:"name_score"`
	ShapeScore float64 `json:"shape_score"`
	Degree     int     `json:"degree"`
}

func graphSimilarTool() *Tool {
	return &Tool{
		Name:        "cos_graph_similar",
		Title:       "Similar nodes",
		Description: "Nodes of the same kind with a similar name and degree, scored 0 to 1.",
		Data:        Fields{"node": "object", "results": "[]object", "count": "integer", "degree": "integer"},
		Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:server/serve.go::Serve", "limit": 10}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(50), Default: 10},
		},
		Handler: similarTool,
	}
}

func similarTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	tm := resolvedMeta(res)
	limit := c.Args.Int("limit", 10)
	g := c.V.Graph
	root := res.Node
	words := search.Tokens(root.Label)
	rootIn, rootOut := g.Degree(root.UID)
	rootDeg := rootIn + rootOut
	hits, err := c.V.Search.Suggest(ctx, strings.Join(words, " "), nil, limit*similarPool+1)
	if err != nil {
		return nil, tm, err
	}
	top := 0.0
	for _, h := range hits {
		top = math.Max(top, h.Score)
	}
	results := []similarNode{}
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
		results = append(results, similarNode{nodeView: viewOf(n), Score: round3(name + shape), NameScore: round3(name), ShapeScore: round3(shape), Degree: deg})
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Score != results[j].Score {
			return results[i].Score > results[j].Score
		}
		return results[i].UID < results[j].UID
	})
	results = results[:min(len(results), limit)]
	return map[string]any{
		"node":    viewOf(root),
		"degree":  rootDeg,
		"count":   len(results),
		"results": results,
	}, tm, nil
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
