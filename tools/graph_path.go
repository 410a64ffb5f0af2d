package tools

import (
	"context"
	"slices"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/search"
	"github.com/cos-dev/cos/tools/envelope"
)

// pathStep is one hop of a path: the node reached and the edge that reached
// it. Direction is "forward" when the edge points along the path (from the
// previous node to this one) and "backward" when it points against it.
type pathStep struct {
	nodeView
	Edge      *edgeView `json:"edge,omitempty"`
	Direction string    `json:"direction,omitempty"`
}

func graphPathTool() *Tool {
	return &Tool{
		Name: "cos_graph_path",
		Description: "A shortest path between two nodes, found breadth-first over edges in both directions " +
			"(each step says whether its edge points forward or backward along the path), at most max_hops hops. " +
			"Returns steps[] from source to target, each {uid, kind, label, path, edge, direction}. " +
			"source and target accept uids, repo-relative paths or names (meta.source_resolved_from, meta.target_resolved_from). " +
			"No path within max_hops is E_NOT_FOUND.",
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"source": "cmd/main.go", "target": "code:function:server/serve.go::Serve", "max_hops": 4}`,
		Params: []Param{
			{Name: "source", Type: TString, Required: true, MaxLen: 1024, Description: "uid, repo-relative path or name"},
			{Name: "target", Type: TString, Required: true, MaxLen: 1024, Description: "uid, repo-relative path or name"},
			{Name: "max_hops", Type: TInt, Min: f64(1), Max: f64(10), Default: 6, Description: "longest path searched"},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, Description: "follow only these edge types"},
		},
		Handler: pathTool,
	}
}

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
	maxHops := c.Args.Int("max_hops", 6)
	var follow map[string]bool
	if types := c.Args.Strings("edge_types"); len(types) > 0 {
		follow = typeSet(types)
	}
	g := c.S.graph
	from, to := src.Node.UID, dst.Node.UID
	// prev maps a reached node to the edge that reached it first.
	prev := map[string]graph.Edge{from: {}}
	frontier := []string{from}
	found := from == to
	for hop := 1; hop <= maxHops && !found && len(frontier) > 0; hop++ {
		if err := ctx.Err(); err != nil {
			return nil, tm, err
		}
		var next []string
		for _, uid := range frontier {
			for _, list := range [2][]graph.Edge{g.Out(uid), g.In(uid)} {
				for _, e := range list {
					if follow != nil && !follow[e.Type] {
						continue
					}
					other := e.Target
					if other == uid {
						other = e.Source
					}
					if _, ok := prev[other]; ok {
						continue
					}
					prev[other] = e
					next = append(next, other)
					if other == to {
						found = true
					}
				}
			}
		}
		frontier = next
	}
	if !found {
		return nil, tm, envelope.Errorf(envelope.CodeNotFound,
			"no path between %s and %s within %d hops", from, to, maxHops).
			WithDetails(map[string]any{"source": from, "target": to, "max_hops": maxHops, "suggestions": []search.Candidate{}})
	}
	var steps []pathStep
	for uid := to; ; {
		e := prev[uid]
		step := pathStep{nodeView: nodeOrMissing(g, uid)}
		if uid == from {
			steps = append(steps, step)
			break
		}
		ev := edgeOf(e)
		step.Edge = &ev
		step.Direction = "forward"
		back := e.Source
		if e.Source == uid {
			step.Direction, back = "backward", e.Target
		}
		steps = append(steps, step)
		uid = back
	}
	slices.Reverse(steps)
	return map[string]any{
		"source": viewOf(src.Node),
		"target": viewOf(dst.Node),
		"hops":   len(steps) - 1,
		"steps":  steps,
	}, tm, nil
}
