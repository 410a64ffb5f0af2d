package projections

import (
	"fmt"
	"slices"
)

// check verifies the graph's internal invariants: adjacency indices, vertex
// liveness, owner lists mirrored both ways, the label index, the counts and
// the Unresolved totals.
// Tests call it after every scenario.
func (g *Graph) check() error {
	nodes := 0
	var unresolved UnresolvedCounts
	for uid, v := range g.vertices {
		if v.uid != uid {
			return fmt.Errorf("vertex %q stored under %q", v.uid, uid)
		}
		if !v.present && len(v.out) == 0 && len(v.in) == 0 {
			return fmt.Errorf("vertex %q is empty but kept", uid)
		}
		if v.present {
			nodes++
			unresolved.add(unresolvedOf(v.kind, v.meta), 1)
			if v.owners.len() == 0 {
				return fmt.Errorf("node %q has no owner", uid)
			}
			if !slices.Contains(g.byLabel[v.label], v) {
				return fmt.Errorf("node %q missing from label index %q", uid, v.label)
			}
			for _, o := range v.owners.all() {
				if !o.isAgent && !slices.Contains(o.nodes, v) {
					return fmt.Errorf("node %q lists owner %v which does not list it", uid, o.key)
				}
				if !o.isAgent && g.owners[o.key] != o {
					return fmt.Errorf("node %q owned by forgotten owner %v", uid, o.key)
				}
			}
		} else if v.owners.len() != 0 {
			return fmt.Errorf("absent node %q keeps owners", uid)
		}
		for i, e := range v.out {
			if e.src != v || e.outIdx != i || findEdge(e.src, e.dst, e.typ, e.ext) != e || !slices.Contains(e.dst.in, e) {
				return fmt.Errorf("out edge %v of %q is misindexed", g.keyOf(e), uid)
			}
		}
		for i, e := range v.in {
			if e.dst != v || e.inIdx != i || !slices.Contains(e.src.out, e) {
				return fmt.Errorf("in edge %v of %q is misindexed", g.keyOf(e), uid)
			}
		}
	}
	if nodes != g.nodes {
		return fmt.Errorf("node count %d, counted %d", g.nodes, nodes)
	}
	if unresolved != g.unresolved {
		return fmt.Errorf("unresolved totals %+v, counted %+v", g.unresolved, unresolved)
	}
	labelled := 0
	for _, vs := range g.byLabel {
		labelled += len(vs)
	}
	if labelled != nodes {
		return fmt.Errorf("label index holds %d nodes, want %d", labelled, nodes)
	}
	edges := 0
	for _, v := range g.vertices {
		edges += len(v.out)
	}
	if edges != g.edges {
		return fmt.Errorf("edge count %d, counted %d", g.edges, edges)
	}
	for _, v := range g.vertices {
		for _, e := range v.out {
			k := g.keyOf(e)
			if g.vertices[k.Source] != e.src || g.vertices[k.Target] != e.dst {
				return fmt.Errorf("edge %v is not anchored", k)
			}
			if e.owners.len() == 0 {
				return fmt.Errorf("edge %v has no owner", k)
			}
			for _, o := range e.owners.all() {
				if !o.isAgent && !slices.Contains(o.edges, e) {
					return fmt.Errorf("edge %v lists owner %v which does not list it", k, o.key)
				}
			}
		}
	}
	for k, o := range g.owners {
		if !slices.Contains(g.byPath[k.path], o) {
			return fmt.Errorf("owner %v missing from path index", k)
		}
		for _, v := range o.nodes {
			if !v.present || !v.owners.has(o) || g.vertices[v.uid] != v {
				return fmt.Errorf("owner %v lists node %q which does not list it", k, v.uid)
			}
		}
		for _, e := range o.edges {
			if !e.owners.has(o) || findEdge(e.src, e.dst, e.typ, e.ext) != e || g.vertices[e.src.uid] != e.src {
				return fmt.Errorf("owner %v lists edge %v which does not list it", k, g.keyOf(e))
			}
		}
	}
	return nil
}
