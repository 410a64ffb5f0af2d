package query

import (
	"slices"
	"sort"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Neighbour is a node of a context answer and its distance from the root.
type Neighbour struct {
	NodeView
	Depth int `json:"depth"`
}

// Context is the answer of ContextOf: a node's Neighbourhood.
type Context struct {
	// Neighbours are ordered by depth, then uid (never nil).
	Neighbours []Neighbour
	// EdgesByType are the edges walked, by type, ordered by source then
	// target.
	EdgesByType map[string][]EdgeView
	// In and Out are the root's degree.
	In, Out      int
	Completeness *Completeness
}

// ContextOf walks root's edges of the given types (every type when types
// is empty) both ways, up to depth hops.
func ContextOf(g *projections.Graph, node graph.Node, depth int, types []string) Context {
	root := node.UID
	dist := map[string]int{root: 0}
	frontier := []string{root}
	edgeSet := map[graph.EdgeKey]graph.Edge{}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []string
		for _, uid := range frontier {
			for _, list := range [][]graph.Edge{g.Out(uid), g.In(uid)} {
				for _, e := range list {
					if len(types) > 0 && !slices.Contains(types, e.Type) {
						continue
					}
					edgeSet[e.Key()] = e
					for _, other := range []string{e.Source, e.Target} {
						if _, ok := dist[other]; !ok {
							dist[other] = d
							next = append(next, other)
						}
					}
				}
			}
		}
		frontier = next
	}
	var neighbours []Neighbour
	for uid, d := range dist {
		if uid == root {
			continue
		}
		n, ok := g.Node(uid)
		if !ok {
			n = graph.Node{UID: uid, Kind: "missing", Label: uid}
		}
		neighbours = append(neighbours, Neighbour{ViewOf(n), d})
	}
	sort.Slice(neighbours, func(i, j int) bool {
		if neighbours[i].Depth != neighbours[j].Depth {
			return neighbours[i].Depth < neighbours[j].Depth
		}
		return neighbours[i].UID < neighbours[j].UID
	})
	byType := map[string][]EdgeView{}
	for _, e := range edgeSet {
		byType[e.Type] = append(byType[e.Type], EdgeOf(e))
	}
	for _, list := range byType {
		sort.Slice(list, func(i, j int) bool {
			if list[i].Source != list[j].Source {
				return list[i].Source < list[j].Source
			}
			return list[i].Target < list[j].Target
		})
	}
	if neighbours == nil {
		neighbours = []Neighbour{}
	}
	in, out := g.Degree(root)
	comp := NewCompleteness(g, len(types) == 0 || slices.Contains(types, graph.EdgeCalls))
	comp.Add(node, g.HasIn(root, graph.EdgeReferences))
	return Context{Neighbours: neighbours, EdgesByType: byType, In: in, Out: out, Completeness: comp}
}
