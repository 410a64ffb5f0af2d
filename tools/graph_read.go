package tools

import (
	"context"
	"errors"
	"slices"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/search"
)

// Edge types the graph tools accept in edge_types filters.
var edgeTypes = []string{
	graph.EdgeContains, graph.EdgeCalls, graph.EdgeImports, graph.EdgeLinksTo, graph.EdgeCitesHeading,
	graph.EdgeInheritsFrom, graph.EdgeRequires, graph.EdgeDefines,
	graph.EdgeImplements, graph.EdgeReferences, graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeAccessesField,
}

// nodeKinds are the kinds cos_graph_resolve filters on.
var nodeKinds = []string{
	graph.KindFile, graph.KindFunction, graph.KindMethod, graph.KindClass, graph.KindModule, graph.KindExternal,
	graph.KindDocFile, graph.KindHeading, graph.KindFolder, graph.KindConfig, graph.KindDependency, graph.KindMCPServer,
}

// resolvedMeta is the meta of an answer about the node res resolved to:
// resolved_from and resolved_match.
func resolvedMeta(res search.Resolution) envelope.ToolMeta {
	return envelope.ToolMeta{ResolvedFrom: res.ResolvedFrom, ResolvedMatch: res.Match}
}

func graphReadTools() []*Tool {
	return []*Tool{
		{
			Name:        "cos_graph_resolve",
			Title:       "Find nodes",
			Description: "Find nodes by uid, path or name (typo-tolerant), best first.",
			Data:        Fields{"query": "string", "results": typ([]search.Candidate{})},
			Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
			Example: `{"q": "ListenAndServe", "kinds": ["method"], "limit": 5}`,
			Params: append([]Param{
				{Name: "q", Type: TString, Required: true, NonEmpty: true, MaxLen: 512},
				{Name: "kinds", Type: TStringList, Enum: nodeKinds, SharedEnum: true},
				{Name: "limit", Type: TInt, Min: f64(1), Max: f64(100), Default: 10},
			}, scopeParams()...),
			Handler: resolveTool,
		},
		{
			Name:        "cos_graph_context",
			Title:       "Node and neighbours",
			Description: "A node, its neighbours within depth hops and the edges among them.",
			Data:        Fields{"node": typ(query.NodeView{}), "neighbours": typ(query.Context{}.Neighbours), "edges_by_type": typ(query.Context{}.EdgesByType), "degree": typ(map[string]int{})},
			Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
			Example: `{"uid_or_name": "net/http/server.go", "depth": 1}`,
			Params: []Param{
				{Name: "uid_or_name", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
				{Name: "depth", Type: TInt, Min: f64(1), Max: f64(3), Default: 1},
				{Name: "edge_types", Type: TStringList, Enum: edgeTypes, SharedEnum: true},
			},
			Handler: contextTool,
		},
	}
}

// resolveTool answers cos_graph_resolve: {query, results}, results being
// up to limit candidates {uid, kind, label, path, match, score} of the
// given kinds, best first by score (ties by uid), in the resolver's order
// (search.Resolver.Candidates): match is one of search's Match* kinds. A uid
// or a path that resolves directly or by path prefix answers with that one
// node; otherwise the candidates follow the fuzzy tiers, and meta
// resolved_from is set when one of them clearly wins (it comes first).
// paths and exclude_paths keep the candidates whose file they keep
// (query.Scope), looked for among scopedCandidates candidates. No
// candidate is E_NOT_FOUND with the resolver's suggestions.
func resolveTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	// Resolve and Candidates below run the same first searches: once each.
	// The memo lives for this run of the handler only (a re-index between
	// two runs must not answer from the first).
	ctx = search.WithTierMemo(ctx)
	q := c.Args.Str("q")
	kinds := c.Args.Strings("kinds")
	limit := c.Args.Int("limit", 10)
	var tm envelope.ToolMeta
	scope, err := scopeOf(c)
	if err != nil {
		return nil, tm, err
	}
	res, err := c.Resolve(ctx, q, false)
	var nf *search.NotFoundError
	if err == nil {
		if !scope.Keeps(res.Node.Path) {
			res = search.Resolution{} // not a candidate: meta must not name it
		}
		tm = resolvedMeta(res)
		if res.Node.UID != "" && res.ResolvedFrom != search.ResolvedFuzzy && (len(kinds) == 0 || contains(kinds, res.Node.Kind)) {
			// An exact uid or path is the answer; a broad search would only
			// add noise (and cost milliseconds on a long uid).
			n := res.Node
			results := []search.Candidate{{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Score: res.Score, Match: res.Match}}
			c.NameFiles(n.Path)
			return map[string]any{"query": q, "results": results}, tm, nil
		}
	} else if _, amb := asAmbiguous(err); !amb && !errors.As(err, &nf) {
		return nil, tm, err // the index or the context failed: no candidates to list
	}
	fetch := limit
	if scope.Filtered() {
		fetch = scopedCandidates
	}
	results, err := c.V.Resolver.Candidates(ctx, q, kinds, fetch)
	if err != nil {
		return nil, tm, err
	}
	if scope.Filtered() {
		results = slices.DeleteFunc(results, func(r search.Candidate) bool { return !scope.Keeps(r.Path) })
		results = results[:min(len(results), limit)]
	}
	if len(results) == 0 {
		if nf != nil {
			return nil, tm, nf
		}
		return nil, tm, &search.NotFoundError{Query: q}
	}
	for _, r := range results {
		c.NameFiles(r.Path)
	}
	return map[string]any{"query": q, "results": results}, tm, nil
}

// scopedCandidates is how many candidates cos_graph_resolve looks at when
// paths or exclude_paths filter them.
const scopedCandidates = 500

func contextTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid_or_name"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	depth := c.Args.Int("depth", 1)
	types := c.Args.Strings("edge_types")
	cx := query.ContextOf(c.V.Graph, res.Node, depth, types)
	tm := resolvedMeta(res)
	setCompleteness(&tm, cx.Completeness)
	c.nameNode(query.ViewOf(res.Node))
	for _, nb := range cx.Neighbours {
		c.nameNode(nb.NodeView)
	}
	for _, list := range cx.EdgesByType {
		for _, e := range list {
			c.nameMetadata(e.Metadata)
		}
	}
	return map[string]any{
		"node":          query.ViewOf(res.Node),
		"degree":        map[string]int{"in": cx.In, "out": cx.Out},
		"neighbours":    cx.Neighbours,
		"edges_by_type": cx.EdgesByType,
	}, tm, nil
}

func asAmbiguous(err error) (*search.AmbiguousError, bool) {
	var amb *search.AmbiguousError
	ok := errors.As(err, &amb)
	return amb, ok
}
