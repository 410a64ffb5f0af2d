package query

import (
	"slices"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// callGraph is the undirected, weighted call graph community detection
// runs on: node i is the i-th function in uid order, the weight of {i, j}
// the number of calls and references edges between them (either way). It
// implements gonum's graph.WeightedUndirected with every iteration in id
// order, so that a fixed random source gives the same communities in every
// process (gonum's own graphs iterate maps).
type callGraph struct {
	nodes []gonum.Node
	// nbrs[i] are i's neighbours in ascending order, wts[i][k] the weight
	// of the edge to nbrs[i][k].
	nbrs [][]int64
	wts  [][]float64
}

var _ gonum.WeightedUndirected = (*callGraph)(nil)

// newCallGraph returns a graph of n nodes and the given weighted pairs
// (i < j, each once).
func newCallGraph(n int, pairs map[[2]int64]float64) *callGraph {
	g := &callGraph{nodes: make([]gonum.Node, n), nbrs: make([][]int64, n), wts: make([][]float64, n)}
	for i := range n {
		g.nodes[i] = simple.Node(int64(i))
	}
	keys := make([][2]int64, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int64) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	for _, k := range keys {
		w := pairs[k]
		g.nbrs[k[0]] = append(g.nbrs[k[0]], k[1])
		g.wts[k[0]] = append(g.wts[k[0]], w)
		g.nbrs[k[1]] = append(g.nbrs[k[1]], k[0])
		g.wts[k[1]] = append(g.wts[k[1]], w)
	}
	for i := range n {
		// Neighbours are appended in ascending order of the pair's other
		// end for k[0] and of k[0] for k[1]; sort both together.
		idx := make([]int, len(g.nbrs[i]))
		for k := range idx {
			idx[k] = k
		}
		slices.SortFunc(idx, func(a, b int) int { return int(g.nbrs[i][a] - g.nbrs[i][b]) })
		nb, wt := make([]int64, len(idx)), make([]float64, len(idx))
		for k, j := range idx {
			nb[k], wt[k] = g.nbrs[i][j], g.wts[i][j]
		}
		g.nbrs[i], g.wts[i] = nb, wt
	}
	return g
}

func (g *callGraph) valid(id int64) bool { return id >= 0 && id < int64(len(g.nodes)) }

// Node returns the node with id, or nil.
func (g *callGraph) Node(id int64) gonum.Node {
	if !g.valid(id) {
		return nil
	}
	return g.nodes[id]
}

// Nodes returns every node in id order.
func (g *callGraph) Nodes() gonum.Nodes { return iterator.NewOrderedNodes(g.nodes) }

// From returns id's neighbours in id order.
func (g *callGraph) From(id int64) gonum.Nodes {
	if !g.valid(id) || len(g.nbrs[id]) == 0 {
		return gonum.Empty
	}
	out := make([]gonum.Node, len(g.nbrs[id]))
	for k, j := range g.nbrs[id] {
		out[k] = g.nodes[j]
	}
	return iterator.NewOrderedNodes(out)
}

// weight returns the weight of {x, y} and whether they are joined.
func (g *callGraph) weight(x, y int64) (float64, bool) {
	if !g.valid(x) || !g.valid(y) {
		return 0, false
	}
	k, ok := slices.BinarySearch(g.nbrs[x], y)
	if !ok {
		return 0, false
	}
	return g.wts[x][k], true
}

// HasEdgeBetween reports whether x and y are joined.
func (g *callGraph) HasEdgeBetween(x, y int64) bool { _, ok := g.weight(x, y); return ok }

// Edge returns the edge between u and v, or nil.
func (g *callGraph) Edge(u, v int64) gonum.Edge { return g.WeightedEdgeBetween(u, v) }

// EdgeBetween returns the edge between x and y, or nil.
func (g *callGraph) EdgeBetween(x, y int64) gonum.Edge { return g.WeightedEdgeBetween(x, y) }

// WeightedEdge returns the edge between u and v, or nil.
func (g *callGraph) WeightedEdge(u, v int64) gonum.WeightedEdge { return g.WeightedEdgeBetween(u, v) }

// WeightedEdgeBetween returns the edge between x and y, or nil.
func (g *callGraph) WeightedEdgeBetween(x, y int64) gonum.WeightedEdge {
	w, ok := g.weight(x, y)
	if !ok {
		return nil
	}
	return simple.WeightedEdge{F: g.nodes[x], T: g.nodes[y], W: w}
}

// Weight returns the weight of {x, y}: 0 and true for x == y (no self
// loops are kept), false when they are not joined.
func (g *callGraph) Weight(x, y int64) (float64, bool) {
	if x == y && g.valid(x) {
		return 0, true
	}
	return g.weight(x, y)
}
