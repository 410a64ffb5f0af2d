package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/tools/envelope"
)

// impactEdgeTypes are the edge types cos_graph_impact follows backwards when
// the caller names none: the ones that make the source depend on the target.
// contains and defines are structure, not dependence, and are left out.
var impactEdgeTypes = []string{
	graph.EdgeCalls, graph.EdgeImports, graph.EdgeInheritsFrom, graph.EdgeLinksTo,
	graph.EdgeCitesHeading, graph.EdgeRequires,
}

// impactMaxListed bounds the dependents listed in "nodes"; counts cover
// them all. The envelope's token budget trims the list further.
const impactMaxListed = 1000

// dependent is one node of an impact answer.
type dependent struct {
	nodeView
	Depth int `json:"depth"`
	// Via is the type of the edge that reached it, Through the node (one hop
	// closer to the root) that edge points at.
	Via     string `json:"via"`
	Through string `json:"through"`
}

func graphImpactTool() *Tool {
	return &Tool{
		Name: "cos_graph_impact",
		Description: "Transitive dependents of a node: every node that reaches it through incoming " +
			"calls/imports/inherits_from/links_to/cites_heading/requires edges, up to depth hops, " +
			"as nodes[] {uid, kind, label, path, depth, via, through} ordered by depth, with counts_by_depth. " +
			"meta.semantic_scope is transitive_depth_N. Accepts a uid, a repo-relative path or a name.",
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "depth": 2}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, MaxLen: 1024, Description: "uid, repo-relative path or name"},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(5), Default: 2, Description: "hops backwards from the node"},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, Description: "follow only these edge types (default: every dependence type)"},
		},
		Handler: impactTool,
	}
}

// impactTool walks incoming edges breadth-first: depth 1 are the direct
// dependents, depth N those N hops away. Each node is listed once, at its
// smallest depth.
func impactTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	depth := c.Args.Int("depth", 2)
	types := c.Args.Strings("edge_types")
	if len(types) == 0 {
		types = impactEdgeTypes
	}
	follow := typeSet(types)
	g := c.S.graph
	root := res.Node.UID
	type reach struct {
		depth        int
		via, through string
	}
	seen := map[string]reach{root: {}}
	frontier := []string{root}
	counts := map[string]int{}
	total := 0
	nodes := []dependent{}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		if err := ctx.Err(); err != nil {
			return nil, envelope.ToolMeta{}, err
		}
		var next []string
		for _, uid := range frontier {
			for _, e := range g.In(uid) {
				if !follow[e.Type] {
					continue
				}
				if _, ok := seen[e.Source]; ok {
					continue
				}
				seen[e.Source] = reach{d, e.Type, uid}
				next = append(next, e.Source)
			}
		}
		counts[strconv.Itoa(d)] = len(next)
		total += len(next)
		frontier = next
		// List by depth, then uid; a depth past the cap is counted only.
		if room := impactMaxListed - len(nodes); room > 0 {
			level := slices.Clone(next)
			slices.Sort(level)
			for _, uid := range level[:min(room, len(level))] {
				r := seen[uid]
				nodes = append(nodes, dependent{nodeView: nodeOrMissing(g, uid), Depth: r.depth, Via: r.via, Through: r.through})
			}
		}
	}
	return map[string]any{
		"node":            viewOf(res.Node),
		"depth":           depth,
		"edge_types":      types,
		"count":           total,
		"counts_by_depth": counts,
		"listed":          len(nodes),
		"nodes":           nodes,
	}, envelope.ToolMeta{ResolvedFrom: res.ResolvedFrom, SemanticScope: fmt.Sprintf("transitive_depth_%d", depth)}, nil
}

// nodeOrMissing is the view of uid; an edge endpoint that is not a node (a
// dangling edge) shows as kind "missing" labelled with its uid.
func nodeOrMissing(g *projections.Graph, uid string) nodeView {
	if n, ok := g.Node(uid); ok {
		return viewOf(n)
	}
	return nodeView{UID: uid, Kind: "missing", Label: uid}
}

// typeSet returns the set of types.
func typeSet(types []string) map[string]bool {
	m := make(map[string]bool, len(types))
	for _, t := range types {
		m[t] = true
	}
	return m
}
