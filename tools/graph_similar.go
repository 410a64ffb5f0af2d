package tools

import (
	"context"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/query"
)

func graphSimilarTool() *Tool {
	return &Tool{
		Name:        "cos_graph_similar",
		Title:       "Similar nodes",
		Description: "Nodes of the same kind with a similar name and degree, scored 0 to 1.",
		Data:        Fields{"node": typ(query.NodeView{}), "results": typ(query.Similar{}.Results), "count": "integer", "degree": "integer"},
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
	sim, err := query.SimilarTo(ctx, c.V, res.Node, limit)
	if err != nil {
		return nil, tm, err
	}
	c.nameNode(query.ViewOf(res.Node))
	for _, r := range sim.Results {
		c.nameNode(r.NodeView)
	}
	return map[string]any{
		"node":    query.ViewOf(res.Node),
		"degree":  sim.Degree,
		"count":   len(sim.Results),
		"results": sim.Results,
	}, tm, nil
}
