package query

import (
	"context"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Kinds of cycle.
const (
	// CycleImport: modules or files that import each other, directly or
	// not.
	CycleImport = "import"
	// CycleRecursion: functions that call each other, directly or not (or
	// one that calls itself, with SelfRecursion).
	CycleRecursion = "recursion"
)

// CycleKinds are the kinds of cycle.
var CycleKinds = []string{CycleImport, CycleRecursion}

// Cycle is one strongly connected component of the import or call graph.
type Cycle struct {
	Kind string `json:"kind"`
	// Size is the number of members.
	Size int `json:"size"`
	// Members are the uids in the cycle, sorted: modules (Python, Go),
	// files (JavaScript/TypeScript, or files that define no module) or
	// functions and methods.
	Members []string `json:"members"`
	// Path is one closed walk through the cycle, from its first member
	// back to it: a shortest one, member to member along import or call
	// edges.
	Path []string `json:"path"`
}

// FindCycles answers cycles: the import cycles between modules (a file
// stands for the module it defines; a JavaScript/TypeScript file is its
// own module) and the recursion cycles over calls between functions and
// methods of the graph, sorted by kind, size (largest first) and first
// member. A self-import is not a cycle; self-recursion is one only with
// opts.SelfRecursion. It fails only with ctx's error.
func FindCycles(ctx context.Context, g *projections.Graph, opts AuditOptions) ([]Cycle, *Completeness, error) {
	kinds := TypeSet(opts.Kinds)
	var out []Cycle
	comp := NewCompleteness(g, true)
	if len(kinds) == 0 || kinds[CycleImport] {
		cs, err := importCycles(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cs...)
	}
	if len(kinds) == 0 || kinds[CycleRecursion] {
		cs, err := recursionCycles(ctx, g, opts.SelfRecursion)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cs...)
	}
	kept := out[:0]
	for _, c := range out {
		if opts.Path == "" || slices.ContainsFunc(c.Members, func(uid string) bool { return PathMatches(opts.Path, memberPath(g, uid)) }) {
			kept = append(kept, c)
			for _, m := range c.Members {
				comp.AddUID(m)
			}
		}
	}
	return kept, comp, nil
}

// memberPath is the file of a cycle member: a node's path, or for a module
// the path of the first file that defines it.
func memberPath(g *projections.Graph, uid string) string {
	if n, ok := g.NodeHeader(uid); ok && n.Path != "" {
		return n.Path
	}
	for _, f := range g.Sources(uid, graph.EdgeDefines) {
		if n, ok := g.NodeHeader(f); ok && n.Path != "" {
			return n.Path
		}
	}
	return ""
}

// digraph is a directed graph over uids, numbered in uid order.
type digraph struct {
	ids  map[string]int64
	uids []string
	out  map[int64][]int64
	self map[int64]bool
}

func newDigraph() *digraph {
	return &digraph{ids: map[string]int64{}, out: map[int64][]int64{}, self: map[int64]bool{}}
}

func (d *digraph) id(uid string) int64 {
	if id, ok := d.ids[uid]; ok {
		return id
	}
	id := int64(len(d.uids))
	d.ids[uid] = id
	d.uids = append(d.uids, uid)
	return id
}

func (d *digraph) link(from, to string) {
	a, b := d.id(from), d.id(to)
	if a == b {
		d.self[a] = true
		return
	}
	if !slices.Contains(d.out[a], b) {
		d.out[a] = append(d.out[a], b)
	}
}

// cycles returns the strongly connected components of size ≥ 2 (and of
// size 1 with a self edge when self), as Cycles of kind.
func (d *digraph) cycles(ctx context.Context, kind string, self bool) ([]Cycle, error) {
	sg := simple.NewDirectedGraph()
	for id := range d.uids {
		sg.AddNode(simple.Node(id))
	}
	for a, bs := range d.out {
		for _, b := range bs {
			sg.SetEdge(sg.NewEdge(simple.Node(a), simple.Node(b)))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Cycle
	for _, comp := range topo.TarjanSCC(sg) {
		if len(comp) == 1 && !(self && d.self[comp[0].ID()]) {
			continue
		}
		in := map[int64]bool{}
		ids := make([]int64, len(comp))
		for i, n := range comp {
			ids[i] = n.ID()
			in[n.ID()] = true
		}
		members := make([]string, len(ids))
		for i, id := range ids {
			members[i] = d.uids[id]
		}
		slices.Sort(members)
		c := Cycle{Kind: kind, Size: len(members), Members: members}
		start := d.ids[members[0]]
		if len(comp) == 1 {
			c.Path = []string{members[0], members[0]}
		} else {
			c.Path = d.closedWalk(start, in)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y Cycle) int {
		if x.Size != y.Size {
			return y.Size - x.Size
		}
		return strings.Compare(x.Members[0], y.Members[0])
	})
	return out, nil
}

// closedWalk is a shortest walk from start back to start inside the
// component in (breadth-first, neighbours in uid order).
func (d *digraph) closedWalk(start int64, in map[int64]bool) []string {
	prev := map[int64]int64{}
	queue := []int64{start}
	seen := map[int64]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		next := slices.Clone(d.out[n])
		slices.SortFunc(next, func(a, b int64) int { return strings.Compare(d.uids[a], d.uids[b]) })
		for _, m := range next {
			if !in[m] {
				continue
			}
			if m == start {
				walk := []string{d.uids[start]}
				for x := n; x != start; x = prev[x] {
					walk = append(walk, d.uids[x])
				}
				walk = append(walk, d.uids[start])
				slices.Reverse(walk)
				return walk
			}
			if !seen[m] {
				seen[m], prev[m] = true, n
				queue = append(queue, m)
			}
		}
	}
	return nil
}

// importCycles are the import cycles between modules of the graph.
func importCycles(ctx context.Context, g *projections.Graph) ([]Cycle, error) {
	d := newDigraph()
	// unit is what a file stands for in the import graph: the module it
	// defines, else itself.
	unit := func(uid string) string {
		if mods := g.Targets(uid, graph.EdgeDefines); len(mods) > 0 {
			return mods[0]
		}
		return uid
	}
	var err error
	g.Nodes(func(n graph.Node) bool {
		if n.Kind != graph.KindFile {
			return true
		}
		if err = ctx.Err(); err != nil {
			return false
		}
		from := unit(n.UID)
		for _, t := range g.Targets(n.UID, graph.EdgeImports) {
			to := t
			if h, ok := g.NodeHeader(t); ok && h.Kind == graph.KindFile {
				to = unit(t)
			} else if !g.HasIn(t, graph.EdgeDefines) {
				continue // a module outside the graph
			}
			d.link(from, to)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return d.cycles(ctx, CycleImport, false)
}

// recursionCycles are the cycles of calls between the graph's functions
// and methods.
func recursionCycles(ctx context.Context, g *projections.Graph, self bool) ([]Cycle, error) {
	d := newDigraph()
	isFunc := func(uid string) bool {
		h, ok := g.NodeHeader(uid)
		return ok && (h.Kind == graph.KindFunction || h.Kind == graph.KindMethod) && h.Path != ""
	}
	var err error
	g.Nodes(func(n graph.Node) bool {
		if n.Kind != graph.KindFunction && n.Kind != graph.KindMethod || n.Path == "" {
			return true
		}
		if err = ctx.Err(); err != nil {
			return false
		}
		for _, t := range g.Targets(n.UID, graph.EdgeCalls) {
			if isFunc(t) {
				d.link(n.UID, t)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return d.cycles(ctx, CycleRecursion, self)
}
