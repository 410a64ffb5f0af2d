package tools

import (
	"context"
	"fmt"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/search"
)

func graphPathTool() *Tool {
	return &Tool{
		Name:        "cos_graph_path",
		Title:       "Path between nodes",
		Description: "A shortest path from source to target; none is E_NOT_FOUND.",
		Data:        Fields{"source": typ(query.NodeView{}), "target": typ(query.NodeView{}), "steps": typ([]query.PathStep{}), "hops": "integer", "direction": "string"},
		Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"source": "cmd/main.go", "target": "code:function:server/serve.go::Serve", "max_hops": 4, "direction": "forward"}`,
		Params: []Param{
			{Name: "source", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "target", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "max_hops", Type: TInt, Min: f64(1), Max: f64(10), Default: 6},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, SharedEnum: true},
			{Name: "direction", Type: TString, Enum: query.PathDirections, Default: query.PathUndirected},
		},
		Handler: pathTool,
	}
}

// pathTool answers cos_graph_path (query.PathOf).
func pathTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	src, err := c.Resolve(ctx, c.Args.Str("source"), false)
	if err != nil {
		return nil, tm, err
	}
	dst, err := c.Resolve(ctx, c.Args.Str("target"), false)
	if err != nil {
		return nil, tm, err
	}
	tm.SourceResolvedFrom, tm.TargetResolvedFrom = src.ResolvedFrom, dst.ResolvedFrom
	tm.SourceResolvedMatch, tm.TargetResolvedMatch = src.Match, dst.Match
	maxHops := c.Args.Int("max_hops", 6)
	var follow map[string]bool
	if types := c.Args.Strings("edge_types"); len(types) > 0 {
		follow = query.TypeSet(types)
	}
	direction := c.Args.StrOr("direction", query.PathUndirected)
	from, to := src.Node.UID, dst.Node.UID
	steps, err := query.PathOf(ctx, c.V.Graph, from, to, maxHops, follow, direction)
	if err != nil {
		return nil, tm, err
	}
	if steps == nil {
		msg := fmt.Sprintf("no path between %s and %s within %d hops", from, to, maxHops)
		switch direction {
		case query.PathForward:
			msg = fmt.Sprintf("no forward path from %s to %s within %d hops (edges followed from source towards target); "+
				"try direction \"backward\" or \"undirected\"", from, to, maxHops)
		case query.PathBackward:
			msg = fmt.Sprintf("no backward path from %s to %s within %d hops (edges followed from target towards source); "+
				"try direction \"forward\" or \"undirected\"", from, to, maxHops)
		}
		return nil, tm, envelope.Errorf(envelope.CodeNotFound, "%s", msg).
			WithDetails(map[string]any{"source": from, "target": to, "max_hops": maxHops, "direction": direction, "suggestions": []search.Candidate{}})
	}
	c.nameNode(query.ViewOf(src.Node))
	c.nameNode(query.ViewOf(dst.Node))
	for _, s := range steps {
		c.nameNode(s.NodeView)
		if s.Edge != nil {
			c.nameMetadata(s.Edge.Metadata)
		}
	}
	return map[string]any{
		"source":    query.ViewOf(src.Node),
		"target":    query.ViewOf(dst.Node),
		"direction": direction,
		"hops":      len(steps) - 1,
		"steps":     steps,
	}, tm, nil
}
