package query

import (
	"context"
	"slices"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// PathStep is one hop of a path: the node reached and the edge that reached
// it. Direction is "forward" when the edge points along the path (from the
// previous node to this one) and "backward" when it points against it.
type PathStep struct {
	NodeView
	Edge      *EdgeView `json:"edge,omitempty"`
	Direction string    `json:"direction,omitempty"`
}

// Values of cos_graph_path's direction.
const (
	// PathForward follows edges from source to target (A calls B, B
	// imports C): how source reaches target.
	PathForward = "forward"
	// PathBackward follows edges from target to source: how target reaches
	// source, read from source's end.
	PathBackward = "backward"
	// PathUndirected follows edges either way.
	PathUndirected = "undirected"
)

// PathDirections are the values of direction.
var PathDirections = []string{PathForward, PathBackward, PathUndirected}

// side is one half of a bidirectional breadth-first search: how far each
// reached node is from the side's start and the edge that reached it, and
// which edges it walks (out: source → target, in: target → source).
type side struct {
	dist     map[string]int
	via      map[string]graph.Edge
	frontier []string
	level    int
	out, in  bool
}

func newSide(start string, out, in bool) *side {
	return &side{dist: map[string]int{start: 0}, via: map[string]graph.Edge{}, frontier: []string{start}, out: out, in: in}
}

// edges returns the edges the side walks from uid.
func (s *side) edges(g *projections.Graph, uid string) [2][]graph.Edge {
	var lists [2][]graph.Edge
	if s.out {
		lists[0] = g.Out(uid)
	}
	if s.in {
		lists[1] = g.In(uid)
	}
	return lists
}

// shortestPath finds a shortest path from one uid to another of at most
// maxHops edges (those of follow's types; nil follows all) in direction
// (PathForward: every edge points from the path's previous node to the
// next; PathBackward: every edge points back; PathUndirected: either). It
// searches from both ends at once, always growing the smaller frontier by a
// whole level, so a hub does not flood the search. It returns the uids
// along the path and the edge joining each pair, or nil when there is none.
func shortestPath(ctx context.Context, g *projections.Graph, from, to string, maxHops int, follow map[string]bool, direction string) ([]string, []graph.Edge, error) {
	if from == to {
		return []string{from}, nil, nil
	}
	fwd, back := direction != PathBackward, direction != PathForward
	// The source's side walks the path's way; the target's walks it in
	// reverse.
	a, b := newSide(from, fwd, back), newSide(to, back, fwd)
	for a.level+b.level < maxHops && len(a.frontier) > 0 && len(b.frontier) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		grow, other := a, b
		if len(b.frontier) < len(a.frontier) {
			grow, other = b, a
		}
		grow.level++
		var next []string
		best, bestLen := "", -1
		for _, uid := range grow.frontier {
			for i, list := range grow.edges(g, uid) {
				for _, e := range list {
					if follow != nil && !follow[e.Type] {
						continue
					}
					n := e.Target
					if i == 1 {
						n = e.Source
					}
					if _, ok := grow.dist[n]; ok {
						continue
					}
					grow.dist[n], grow.via[n] = grow.level, e
					next = append(next, n)
					if d, ok := other.dist[n]; ok && (bestLen < 0 || grow.level+d < bestLen || (grow.level+d == bestLen && n < best)) {
						best, bestLen = n, grow.level+d
					}
				}
			}
		}
		grow.frontier = next
		if bestLen >= 0 {
			return joinSides(a, b, best, from, to)
		}
	}
	return nil, nil, nil
}

// joinSides walks from the meeting node back to both starts.
func joinSides(a, b *side, meet, from, to string) ([]string, []graph.Edge, error) {
	var chain []string
	var links []graph.Edge
	for n := meet; n != from; {
		e := a.via[n]
		chain, links = append(chain, n), append(links, e)
		n = otherEnd(e, n)
	}
	chain = append(chain, from)
	slices.Reverse(chain)
	slices.Reverse(links)
	for n := meet; n != to; {
		e := b.via[n]
		n = otherEnd(e, n)
		chain, links = append(chain, n), append(links, e)
	}
	return chain, links, nil
}

// otherEnd is the end of e that is not n.
func otherEnd(e graph.Edge, n string) string {
	if e.Source == n {
		return e.Target
	}
	return e.Source
}

// PathOf finds a shortest path from one uid to another (shortestPath)
// and returns its steps, the first being from itself; nil when there is
// none. It fails only with ctx's error.
func PathOf(ctx context.Context, g *projections.Graph, from, to string, maxHops int, follow map[string]bool, direction string) ([]PathStep, error) {
	chain, links, err := shortestPath(ctx, g, from, to, maxHops, follow, direction)
	if err != nil || chain == nil {
		return nil, err
	}
	steps := make([]PathStep, len(chain))
	for i, uid := range chain {
		steps[i] = PathStep{NodeView: NodeOrMissing(g, uid)}
		if i == 0 {
			continue
		}
		e := EdgeOf(links[i-1])
		steps[i].Edge = &e
		steps[i].Direction = "forward"
		if e.Source == uid && e.Target == chain[i-1] {
			steps[i].Direction = "backward"
		}
	}
	return steps, nil
}
