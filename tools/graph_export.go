package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
)

// Export limits: max_nodes is at most 2000, a hard cap; max_chars is at
// least exportMinChars (a smaller answer holds hardly a node) and at most
// the subgraph ceiling.
const (
	exportMinChars     = 1000
	exportDefaultNodes = 500
	exportMaxNodes     = 2000
	exportDefaultHops  = 2
	// exportReachMax bounds the count of nodes within max_hops of a root
	// (counts.reachable), in nodes: past it the walk stops counting.
	exportReachMax = 10_000
)

// exportNode is a node of an export with its degree in the whole graph.
type exportNode struct {
	query.NodeView
	Degree int `json:"degree"`
	// Cluster is the node's call-graph community (with clusters: true;
	// absent for a node no community holds).
	Cluster *int `json:"cluster,omitempty"`
}

func graphExportTool() *Tool {
	return &Tool{
		Name:        "cos_graph_export",
		Title:       "Export a subgraph",
		Description: "Nodes within max_hops of root and the edges among them; an answer over max_chars keeps the best connected.",
		Data: Fields{"nodes": typ([]exportNode{}), "edges": typ([]query.EdgeView{}), "counts": typ(map[string]int{}),
			"root": typ(query.NodeView{}), "selection": "string", "clusters": typ([]query.Cluster{})},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"root": "folder:server", "max_nodes": 200, "max_hops": 2}`,
		Params: []Param{
			{Name: "root", Type: TString, NonEmpty: true, MaxLen: 1024, Description: "leave it out for the max_nodes best connected"},
			{Name: "max_nodes", Type: TInt, Min: f64(1), Max: f64(exportMaxNodes), Default: exportDefaultNodes},
			{Name: "max_hops", Type: TInt, Min: f64(1), Max: f64(5), Default: exportDefaultHops},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, SharedEnum: true},
			{Name: "max_chars", Type: TInt, Min: f64(exportMinChars), Max: f64(envelope.DefaultSubgraphBudgetChars)},
			{Name: "clusters", Type: TBool, Description: "add call-graph communities"},
		},
		Handler: exportTool,
	}
}

func exportTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	maxNodes := c.Args.Int("max_nodes", exportDefaultNodes)
	maxHops := c.Args.Int("max_hops", exportDefaultHops)
	var follow map[string]bool
	if types := c.Args.Strings("edge_types"); len(types) > 0 {
		follow = query.TypeSet(types)
	}
	keep := func(e graph.Edge) bool { return follow == nil || follow[e.Type] }
	g := c.V.Graph
	var uids []string
	reach := 0 // nodes within max_hops of root, root included
	body := map[string]any{}
	if c.Args.Has("root") { // never blank: the parameter is NonEmpty
		res, err := c.Resolve(ctx, c.Args.Str("root"), false)
		if err != nil {
			return nil, tm, err
		}
		tm = resolvedMeta(res)
		body["root"] = query.ViewOf(res.Node)
		c.nameNode(query.ViewOf(res.Node))
		body["selection"] = "neighbourhood"
		uids, reach = neighbourhood(g.Out, g.In, res.Node.UID, maxHops, maxNodes, keep)
	} else {
		body["selection"] = "top_degree"
		uids = topByDegree(g, maxNodes)
	}
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	var clusters *query.Clusters
	if c.Args.Bool("clusters", false) {
		cl, err := query.CachedClusters(ctx, g, c.V.Pos.Seq)
		if err != nil {
			return nil, tm, err
		}
		clusters = cl
	}
	kept := make(map[string]bool, len(uids))
	for _, uid := range uids {
		kept[uid] = true
	}
	nodes := make([]exportNode, 0, len(uids))
	edges := []query.EdgeView{}
	for _, uid := range uids {
		in, out := g.Degree(uid)
		n := exportNode{NodeView: query.NodeOrMissing(g, uid), Degree: in + out}
		if clusters != nil {
			if id, ok := clusters.Of[uid]; ok {
				n.Cluster = &id
			}
		}
		nodes = append(nodes, n)
		c.nameNode(n.NodeView)
		for _, e := range g.Out(uid) {
			if kept[e.Target] && keep(e) {
				edges = append(edges, query.EdgeOf(e))
				c.nameMetadata(e.Metadata)
			}
		}
	}
	body["nodes"] = nodes
	body["edges"] = edges
	counts := map[string]int{"nodes": len(nodes), "edges": len(edges)}
	if reach > 0 {
		counts["reachable"] = reach
	}
	if clusters != nil {
		body["clusters"] = clustersOfNodes(clusters, nodes)
		counts["clusters"] = len(clusters.List)
	}
	body["counts"] = counts
	tm.BudgetChars = c.Args.Int("max_chars", 0)
	return body, tm, nil
}

// neighbourhood returns root and the uids within hops of it, breadth-first
// over edges in both directions (those keep accepts), nearest first, at
// most limit; reach counts every node within hops (root included, at most
// exportReachMax: the walk goes on past limit only to count).
func neighbourhood(out, in func(string) []graph.Edge, root string, hops, limit int, keep func(graph.Edge) bool) (order []string, reach int) {
	seen := map[string]bool{root: true}
	order = []string{root}
	frontier := []string{root}
	for d := 1; d <= hops && len(frontier) > 0 && len(seen) < exportReachMax; d++ {
		var next []string
		for _, uid := range frontier {
			for _, list := range [2][]graph.Edge{out(uid), in(uid)} {
				for _, e := range list {
					if !keep(e) {
						continue
					}
					for _, other := range [2]string{e.Source, e.Target} {
						if seen[other] || len(seen) >= exportReachMax {
							continue
						}
						seen[other] = true
						next = append(next, other)
						if len(order) < limit {
							order = append(order, other)
						}
					}
				}
			}
		}
		frontier = next
	}
	return order, len(seen)
}

// topByDegree returns the limit nodes of highest degree (in + out), ties by
// uid. It walks every node once (uid order) and counts degrees, so only the
// chosen nodes are sorted.
func topByDegree(g *projections.Graph, limit int) []string {
	type ranked struct {
		uid string
		deg int
	}
	var all []ranked
	histogram := map[int]int{}
	g.Nodes(func(n graph.Node) bool {
		in, out := g.Degree(n.UID)
		all = append(all, ranked{n.UID, in + out})
		histogram[in+out]++
		return true
	})
	// threshold is the lowest degree that makes the cut; of the nodes with
	// exactly that degree, the first ones in uid order fill the remainder.
	degrees := make([]int, 0, len(histogram))
	for d := range histogram {
		degrees = append(degrees, d)
	}
	slices.Sort(degrees)
	threshold, above := 0, 0
	for i := len(degrees) - 1; i >= 0; i-- {
		threshold = degrees[i]
		if above+histogram[threshold] >= limit {
			break
		}
		above += histogram[threshold]
	}
	atThreshold := limit - above
	chosen := make([]ranked, 0, min(limit, len(all)))
	for _, r := range all {
		switch {
		case r.deg > threshold:
			chosen = append(chosen, r)
		case r.deg == threshold && atThreshold > 0:
			chosen = append(chosen, r)
			atThreshold--
		}
	}
	slices.SortFunc(chosen, func(a, b ranked) int {
		if a.deg != b.deg {
			return b.deg - a.deg
		}
		return strings.Compare(a.uid, b.uid)
	})
	out := make([]string, len(chosen))
	for i, r := range chosen {
		out[i] = r.uid
	}
	return out
}

// clustersOfNodes returns the clusters that hold an exported node, in id
// order (largest first).
func clustersOfNodes(c *query.Clusters, nodes []exportNode) []query.Cluster {
	held := map[int]bool{}
	for _, n := range nodes {
		if n.Cluster != nil {
			held[*n.Cluster] = true
		}
	}
	out := []query.Cluster{}
	for _, cl := range c.List {
		if held[cl.ID] {
			out = append(out, cl)
		}
	}
	return out
}
