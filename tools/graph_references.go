package tools

import (
	"context"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/query"
)

func graphReferencesTool() *Tool {
	return &Tool{
		Name:        "cos_graph_references",
		Title:       "Direct references",
		Description: "A node's incoming edges by file and line; kinds defaults to the node's usual ones. Interface-dispatch callers: the interface method's. Paged.",
		Data: Fields{"node": typ(query.NodeView{}), "references": typ([]query.Reference{}), "count": "integer", "listed": "integer", "limit": "integer",
			"count_by_type": typ(query.References{}.ByType), "kinds": "[]string", "next_cursor": "string", "walk_log_seq": "integer",
			"build_excluded_count": "integer", "note": "string", "compact": typ(compactPage{})},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "kinds": ["calls"], "limit": 50}`,
		Params: append([]Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "kinds", Type: TStringList, Enum: edgeTypes, SharedEnum: true, Description: "edge types"},
			buildExcludedParam,
		}, append(append(scopeParams(), pageParams()...), compactParams(referenceCols.fields)...)...),
		Handler: referencesTool,
	}
}

// referencesTool answers cos_graph_references (query.ReferencesTo), paged.
func referencesTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	kinds := c.Args.Strings("kinds")
	picked := len(kinds) == 0
	if picked {
		kinds = query.DefaultReferenceKinds[res.Node.Kind]
		if kinds == nil {
			kinds = edgeTypes
		}
	}
	includeTests := c.Args.Bool("include_tests", true)
	scope, err := scopeOf(c)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	root := res.Node.UID
	found := query.ReferencesTo(c.V.Graph, res.Node, kinds, includeTests, scope)
	refs := found.Refs

	tm := resolvedMeta(res)
	tm.DefaultKindsPicked, tm.NodeKind = &picked, res.Node.Kind
	setCompleteness(&tm, found.Completeness)
	limit := c.Args.Int("limit", graphPageDefault)
	fields, err := compactArgs(c, referenceCols)
	if err != nil {
		return nil, tm, err
	}
	digest := queryDigest("cos_graph_references", root, kinds, 0, includeTests, scopeDigest(scope)...)
	var page []query.Reference
	shown, p, err := pageShaped(c, c.Args.Str("cursor"), digest, len(refs), limit,
		func(from, to int) []query.Reference { return refs[from:to] },
		func(rs []query.Reference) any {
			page = rs
			if fields == nil {
				return rs
			}
			return referenceCols.shape(rs, fields)
		})
	if err != nil {
		return nil, tm, err
	}
	data := map[string]any{
		"node":          query.ViewOf(res.Node),
		"kinds":         kinds,
		"count":         len(refs),
		"count_by_type": found.ByType,
		// build_excluded_count: references from files the build never
		// compiles: left out of count unless include_build_excluded.
		"build_excluded_count": found.Excluded,
		"listed":               len(page),
		"next_cursor":          p.Next,
		"limit":                p.Limit,
		"walk_log_seq":         p.WalkSeq,
	}
	if fields == nil {
		data["references"] = page
	} else {
		data["compact"] = shown
	}
	if len(refs) == 0 {
		data["note"] = query.NoneFoundNote("references", kinds, tm.Completeness)
	}
	c.nameNode(query.ViewOf(res.Node))
	for _, ref := range page {
		c.NameFiles(ref.File)
		c.nameMetadata(ref.Metadata)
	}
	return data, tm, nil
}
