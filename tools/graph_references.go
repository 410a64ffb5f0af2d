package tools

import (
	"context"
	"sort"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/tools/envelope"
)

// defaultReferenceKinds are the edge types cos_graph_references follows when
// the caller sends no kinds, per the kind of the resolved node (seed 000,
// default_kinds_picked: class → constructs+has_param_type+inherits_from+…,
// function → calls+accesses_field+imports+…, file → imports+links_to+
// contains+…, doc_file → links_to+cites_heading+…, dependency →
// requires+imports+…), restricted to the edge types this graph has. A kind
// missing here gets every edge type.
var defaultReferenceKinds = map[string][]string{
	graph.KindClass:      {graph.EdgeCalls, graph.EdgeInheritsFrom, graph.EdgeImports, graph.EdgeDefines},
	graph.KindFunction:   {graph.EdgeCalls, graph.EdgeImports},
	graph.KindMethod:     {graph.EdgeCalls, graph.EdgeImports},
	graph.KindFile:       {graph.EdgeImports, graph.EdgeLinksTo, graph.EdgeContains},
	graph.KindDocFile:    {graph.EdgeLinksTo, graph.EdgeCitesHeading, graph.EdgeContains},
	graph.KindHeading:    {graph.EdgeCitesHeading, graph.EdgeLinksTo},
	graph.KindDependency: {graph.EdgeRequires, graph.EdgeImports},
	graph.KindModule:     {graph.EdgeImports, graph.EdgeRequires},
	graph.KindFolder:     {graph.EdgeContains},
}

// reference is one direct reference to the node: an incoming edge.
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
}

func graphReferencesTool() *Tool {
	return &Tool{
		Name: "cos_graph_references",
		Description: "Direct references to a node: its incoming edges of the given kinds (edge types) as " +
			"references[] {type, source, kind, label, file, line}. With no kinds, the defaults for the node's kind " +
			"(meta.default_kinds_picked, meta.node_kind). Accepts a uid, a repo-relative path or a name.",
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "kinds": ["calls"]}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, MaxLen: 1024, Description: "uid, repo-relative path or name"},
			{Name: "kinds", Type: TStringList, Enum: edgeTypes, Description: "edge types to report; empty picks the node kind's defaults"},
		},
		Handler: referencesTool,
	}
}

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
	follow := typeSet(kinds)
	g := c.S.graph
	refs := []reference{}
	byType := map[string]int{}
	for _, e := range g.In(res.Node.UID) {
		if !follow[e.Type] {
			continue
		}
		src := nodeOrMissing(g, e.Source)
		line := e.Line
		if line == 0 {
			line = src.Line
		}
		refs = append(refs, reference{Type: e.Type, Source: e.Source, Kind: src.Kind, Label: src.Label, File: src.Path, Line: line, Extractor: e.Extractor})
		byType[e.Type]++
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
	return map[string]any{
		"node":          viewOf(res.Node),
		"kinds":         kinds,
		"count":         len(refs),
		"count_by_type": byType,
		"references":    refs,
	}, envelope.ToolMeta{ResolvedFrom: res.ResolvedFrom, DefaultKindsPicked: &picked, NodeKind: res.Node.Kind}, nil
}
