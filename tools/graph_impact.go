package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/query"
)

func graphImpactTool() *Tool {
	return &Tool{
		Name:        "cos_graph_impact",
		Title:       "What a change breaks",
		Description: "Nodes that depend on this one within depth hops, interfaces and overridden methods included. Paged.",
		Data: Fields{"node": typ(query.NodeView{}), "nodes": typ([]query.Dependent{}), "count": "integer", "listed": "integer", "limit": "integer", "depth": "integer",
			"counts_by_depth": typ(query.Impact{}.Counts), "edge_types": "[]string", "next_cursor": "string", "walk_log_seq": "integer",
			"build_excluded_count": "integer", "note": "string", "compact": typ(compactPage{})},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "depth": 2, "include_tests": false}`,
		Params: append([]Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(5), Default: 2},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, SharedEnum: true},
			{Name: "dispatch", Type: TBool},
			buildExcludedParam,
		}, append(append(scopeParams(), pageParams()...), compactParams(impactCols.fields)...)...),
		Handler: impactTool,
	}
}

// impactTool walks incoming edges breadth-first: depth 1 are the direct
// dependents, depth N those N hops away. Each node is listed once, at its
// smallest depth, in (depth, uid) order, paged by limit and cursor; only
// the levels a page shows are sorted.
func impactTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	depth := c.Args.Int("depth", 2)
	types := c.Args.Strings("edge_types")
	if len(types) == 0 {
		types = query.ImpactEdgeTypes
	}
	includeTests := c.Args.Bool("include_tests", true)
	dispatch := c.Args.Bool("dispatch", slices.Contains(types, graph.EdgeImplements))
	scope, err := scopeOf(c)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	root := res.Node.UID
	im, err := query.ImpactOf(ctx, c.V.Graph, root, types, depth, includeTests, dispatch, scope)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}

	tm := resolvedMeta(res)
	tm.SemanticScope = fmt.Sprintf("transitive_depth_%d", depth)
	setCompleteness(&tm, im.Completeness)
	limit := c.Args.Int("limit", graphPageDefault)
	fields, err := compactArgs(c, impactCols)
	if err != nil {
		return nil, tm, err
	}
	digest := queryDigest("cos_graph_impact", root, types, depth, includeTests, append(scopeDigest(scope), strconv.FormatBool(dispatch))...)
	var nodes []query.Dependent
	shown, p, err := pageShaped(c, c.Args.Str("cursor"), digest, im.Total, limit, im.Page,
		func(ds []query.Dependent) any {
			nodes = ds
			if fields == nil {
				return ds
			}
			return impactCols.shape(ds, fields)
		})
	if err != nil {
		return nil, tm, err
	}
	c.nameNode(query.ViewOf(res.Node))
	for _, d := range nodes {
		c.nameNode(d.NodeView)
	}
	data := map[string]any{
		"node":            query.ViewOf(res.Node),
		"depth":           depth,
		"edge_types":      types,
		"count":           im.Total,
		"counts_by_depth": im.Counts,
		// build_excluded_count: dependents in files the build never
		// compiles: left out of count (and not walked through) unless
		// include_build_excluded.
		"build_excluded_count": im.Excluded,
		"listed":               len(nodes),
		"next_cursor":          p.Next,
		"limit":                p.Limit,
		"walk_log_seq":         p.WalkSeq,
	}
	if fields == nil {
		data["nodes"] = nodes
	} else {
		data["compact"] = shown
	}
	if im.Total == 0 {
		data["note"] = query.NoneFoundNote("dependents", types, tm.Completeness)
	}
	return data, tm, nil
}
