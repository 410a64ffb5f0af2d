package projections

import (
	"slices"

	"github.com/cos-dev/cos/graph"
)

// GraphDump is the whole graph as plain values, for `cos replay --dump graph`
// and golden tests. Nodes are in uid order, edges in (source, target, type,
// extractor) order, files in (path, extractor) order.
type GraphDump struct {
	Counts GraphCounts `json:"counts"`
	Nodes  []DumpNode  `json:"nodes"`
	Edges  []DumpEdge  `json:"edges"`
	Files  []FileInfo  `json:"files"`
	// LastIndex is the last index run the log records; absent when none.
	LastIndex *IndexRun `json:"last_index,omitempty"`
}

// DumpNode is a node with its owners.
type DumpNode struct {
	graph.Node
	// Owners are "agent" or "<extractor>:<path>", sorted.
	Owners []string `json:"owners"`
}

// DumpEdge is an edge with its owners.
type DumpEdge struct {
	graph.Edge
	Owners []string `json:"owners"`
}

// Dump returns the whole graph. It costs O(n log n) and allocates a copy of
// everything: meant for exports, not for the tool path.
func (g *Graph) Dump() GraphDump {
	d := GraphDump{Counts: g.Counts(), Nodes: []DumpNode{}, Edges: []DumpEdge{}, Files: g.Files()}
	if r, ok := g.LastIndex(); ok {
		d.LastIndex = &r
	}
	for _, v := range g.sortedNodes() {
		d.Nodes = append(d.Nodes, DumpNode{Node: v.node(), Owners: ownerNames(v.owners.all())})
	}
	for _, v := range g.vertices {
		for _, e := range v.out {
			d.Edges = append(d.Edges, DumpEdge{Edge: g.edgeOf(e), Owners: ownerNames(e.owners.all())})
		}
	}
	slices.SortFunc(d.Edges, func(a, b DumpEdge) int { return compareKeys(a.Key(), b.Key()) })
	return d
}

func ownerNames(os []*owner) []string {
	out := make([]string, 0, len(os))
	for _, o := range os {
		if o.isAgent {
			out = append(out, AgentOwner)
		} else {
			out = append(out, o.key.extractor+":"+o.key.path)
		}
	}
	slices.Sort(out)
	return out
}
