package tools

import (
	"context"
	"sort"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
)

// defaultReferenceKinds are the edge types cos_graph_references follows when
// the caller sends no kinds, per the kind of the resolved node
// (meta.default_kinds_picked): a class is referred to by what constructs it,
// takes it as a parameter, inherits from it, implements it (the implementers
// of an interface), reads its fields, calls it (a Python constructor), names
// it (isinstance, an annotation, a class passed as a value) or imports or
// defines it; a function or method by its callers and the
// functions that use it as a value; a file by importers, links and its
// folder. A kind missing here gets every edge type.
var defaultReferenceKinds = map[string][]string{
	graph.KindClass: {graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeInheritsFrom, graph.EdgeImplements,
		graph.EdgeAccessesField, graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports, graph.EdgeDefines},
	graph.KindFunction:   {graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports},
	graph.KindMethod:     {graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports},
	graph.KindFile:       {graph.EdgeImports, graph.EdgeLinksTo, graph.EdgeContains},
	graph.KindDocFile:    {graph.EdgeLinksTo, graph.EdgeCitesHeading, graph.EdgeContains},
	graph.KindHeading:    {graph.EdgeCitesHeading, graph.EdgeLinksTo},
	graph.KindDependency: {graph.EdgeRequires, graph.EdgeImports},
	graph.KindModule:     {graph.EdgeImports, graph.EdgeRequires},
	graph.KindFolder:     {graph.EdgeContains},
}

// reference is one direct reference to the node: an incoming edge, or an
// incoming edge of an interface method the node implements.
type reference struct {
	Type string `json:"type"`
	// Source is the referring node; File and Line locate the reference (the
	// source's file, the edge's line, else the source's line).
	Source    string `json:"source"`
	Kind      string `json:"kind"`
	Label     string `json:"label"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Extractor string `json:"extractor,omitempty"`
	// Via is "implements" when the edge points at an interface method the
	// node implements, Through that interface method; both are empty for
	// an edge that points at the node itself.
	Via     string `json:"via,omitempty"`
	Through string `json:"through,omitempty"`
	// Metadata is the edge's (implements: method_set; accesses_field:
	// fields).
	Metadata map[string]any `json:"metadata,omitempty"`
	// BuildExcluded marks a source in a Go file the current build leaves
	// out (buildExclusion).
	BuildExcluded bool `json:"build_excluded,omitempty"`
}

func graphReferencesTool() *Tool {
	return &Tool{
		Name:        "cos_graph_references",
		Title:       "Direct references",
		Description: "A node's incoming edges by file and line; kinds defaults to the node's usual ones. Paged.",
		Data: Fields{"node": "object", "references": "[]object", "count": "integer", "listed": "integer", "limit": "integer",
			"count_by_type": "object", "kinds": "[]string", "next_cursor": "string", "walk_log_seq": "integer",
			"build_excluded_count": "integer", "note": "string"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "kinds": ["calls"], "limit": 50}`,
		Params: append([]Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "kinds", Type: TStringList, Enum: edgeTypes, SharedEnum: true, Description: "edge types"},
		}, pageParams()...),
		Handler: referencesTool,
	}
}

// referencesTool lists the incoming edges of the followed kinds; for a
// method, when calls or references are followed, also those of every
// interface method it implements or base-class method it overrides
// (dispatchesOf).
func referencesTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	kinds := c.Args.Strings("kinds")
	picked := len(kinds) == 0
	if picked {
		kinds = defaultReferenceKinds[res.Node.Kind]
		if kinds == nil {
			kinds = edgeTypes
		}
	}
	includeTests := c.Args.Bool("include_tests", true)
	follow := typeSet(kinds)
	g := c.V.Graph
	root := res.Node.UID
	comp := completeness{g: g, calls: follow[graph.EdgeCalls]}
	comp.add(res.Node, g.HasIn(root, graph.EdgeReferences))
	excl := newBuildExclusion(g)

	refs := []reference{}
	byType := map[string]int{}
	excluded := 0
	collect := func(target, via string) {
		for _, e := range g.In(target) {
			if !follow[e.Type] || (via != "" && e.Source == root) {
				continue // the node calling what it overrides (super) is not its caller
			}
			src, ok := g.NodeHeader(e.Source)
			if !ok {
				src = graph.Node{UID: e.Source, Kind: "missing", Label: e.Source}
			}
			if !includeTests && isTestPath(src.Path) {
				continue
			}
			line := e.Line
			if line == 0 {
				line = src.Line
			}
			r := reference{Type: e.Type, Source: e.Source, Kind: src.Kind, Label: src.Label, File: src.Path, Line: line,
				Extractor: e.Extractor, Metadata: e.Metadata, BuildExcluded: excl.of(src)}
			if via != "" {
				r.Via, r.Through = via, target
			}
			refs = append(refs, r)
			byType[e.Type]++
			if r.BuildExcluded {
				excluded++
			}
		}
	}
	collect(root, "")
	if res.Node.Kind == graph.KindMethod && (follow[graph.EdgeCalls] || follow[graph.EdgeReferences]) {
		for _, d := range dispatchesOf(g, root) {
			if !excl.ofUID(d.UID) {
				comp.addUID(d.UID)
			}
			collect(d.UID, d.Via)
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if refs[i].File != refs[j].File {
			return refs[i].File < refs[j].File
		}
		if refs[i].Line != refs[j].Line {
			return refs[i].Line < refs[j].Line
		}
		return refs[i].Source < refs[j].Source
	})

	tm := resolvedMeta(res)
	tm.DefaultKindsPicked, tm.NodeKind = &picked, res.Node.Kind
	comp.setOn(&tm)
	limit := c.Args.Int("limit", graphPageDefault)
	query := queryDigest("cos_graph_references", root, kinds, 0, includeTests)
	page, p, err := pageOf(c, c.Args.Str("cursor"), query, len(refs), limit,
		func(from, to int) []reference { return refs[from:to] })
	if err != nil {
		return nil, tm, err
	}
	data := map[string]any{
		"node":          viewOf(res.Node),
		"kinds":         kinds,
		"count":         len(refs),
		"count_by_type": byType,
		// build_excluded_count: references from files this build leaves
		// out, counted in count and listed.
		"build_excluded_count": excluded,
		"listed":               len(page),
		"references":           page,
		"next_cursor":          p.Next,
		"limit":                p.Limit,
		"walk_log_seq":         p.WalkSeq,
	}
	if len(refs) == 0 {
		data["note"] = noneFoundNote("references", kinds, tm)
	}
	c.nameNode(viewOf(res.Node))
	for _, ref := range page {
		c.NameFiles(ref.File)
		c.nameMetadata(ref.Metadata)
	}
	return data, tm, nil
}
