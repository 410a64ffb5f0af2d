package query

import (
	"context"
	"slices"
	"strconv"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// ImpactEdgeTypes are the edge types cos_graph_impact follows backwards when
// the caller names none: the ones that make the source depend on the target,
// so that changing the target may break the source. contains and defines are
// structure, not dependence, and are left out.
//
// implements also makes the walk interface-aware (ImpactOf): a method's
// dependents include the callers of the interface methods it implements
// and of the base-class methods it overrides, an interface method's include
// its implementations, a base-class method's its overrides, and an
// interface's include the callers of its methods.
var ImpactEdgeTypes = []string{
	graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports, graph.EdgeInheritsFrom, graph.EdgeImplements,
	graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeAccessesField,
	graph.EdgeLinksTo, graph.EdgeCitesHeading, graph.EdgeRequires,
}

// Dependent is one node of an impact answer.
type Dependent struct {
	NodeView
	Depth int `json:"depth"`
	// Via is the type of the edge that reached it, Through the node that
	// edge points at: the node one hop closer to the root, or an interface
	// method that node implements (the dependent calls or references the
	// interface method, which dispatches to it). Via is "implements" only
	// for the hop between an implementation and its interface or interface
	// method; "inherits_from" for the hop between an override and the
	// base-class method it overrides, or a caller of that base method. When several edges reach it at its depth, the least (through,
	// via) wins.
	Via     string `json:"via"`
	Through string `json:"through"`
	// BuildExcluded marks a node of a Go file the current build leaves
	// out (BuildExclusion).
	BuildExcluded bool `json:"build_excluded,omitempty"`
}

// reach is how the walk reached a node: at its smallest depth, through the
// least (through, via) among the edges that reach it at that depth, so the
// answer does not depend on the order edges are visited in.
type reach struct {
	depth        int
	via, through string
}

// before reports whether r is preferred to o at the same depth.
func (r reach) before(o reach) bool {
	if r.through != o.through {
		return r.through < o.through
	}
	return r.via < o.via
}

// impactWalk is a breadth-first walk over incoming edges.
type impactWalk struct {
	g    *projections.Graph
	root string
	// follow lists the edge types followed; a short list scanned beats a
	// map lookup (a string hash) on the walk's hot path.
	follow       []string
	includeTests bool
	scope        Scope
	comp         *Completeness
	excl         *BuildExclusion
	seen         map[string]reach
	// dispatch is set when a method's dependents include the callers of
	// the interface and base-class methods it implements or overrides.
	dispatch bool
	// interfaces is set when implements is followed (and dispatch): an
	// interface method's implementations, a base method's overrides and
	// an interface's method callers are dependents.
	interfaces bool
	// excluded counts the build-excluded nodes reached and left out
	// (scope.IncludeBuildExcluded unset): the walk does not go through
	// them.
	excluded int
	// next collects the level being discovered.
	next []string
}

// visit records src as reached by r (at the level being discovered) unless
// it is known from an earlier level or left out: a test (unless
// includeTests), or build-excluded (unless the scope includes those; it is
// counted when the path filters keep it, and not walked through).
func (w *impactWalk) visit(src string, r reach) {
	if old, ok := w.seen[src]; ok {
		if old.depth == r.depth && r.before(old) {
			w.seen[src] = r
		}
		return
	}
	n, ok := w.g.NodeHeader(src)
	if ok && !w.includeTests && IsTestPath(n.Path) {
		return
	}
	w.seen[src] = r
	if ok && !w.scope.IncludeBuildExcluded && w.excl.Of(n) {
		if w.scope.Keeps(n.Path) {
			w.excluded++
		}
		return
	}
	w.next = append(w.next, src)
}

// incoming visits the sources of target's incoming edges of the followed
// types (only calls and references when onlyCalls) at depth d, each
// reached via its edge's type through target. It adds target to the
// completeness reasons, unless it is a dependent in a build-excluded file:
// code this build never compiles is not called through func values or
// reflection here.
func (w *impactWalk) incoming(target string, onlyCalls bool, d int) {
	referenced := false
	w.g.EachIn(target, func(src, typ string) bool {
		if typ == graph.EdgeReferences {
			referenced = true
		}
		if !slices.Contains(w.follow, typ) || (onlyCalls && typ != graph.EdgeCalls && typ != graph.EdgeReferences) {
			return true
		}
		w.visit(src, reach{d, typ, target})
		return true
	})
	if n, ok := w.g.NodeHeader(target); ok && (target == w.root || !w.excl.Of(n)) {
		w.comp.Add(n, referenced)
	}
}

// expand visits the dependents of uid at depth d: the sources of its
// incoming edges of the followed types and, when interfaces are followed,
// the interface-aware ones (see ImpactEdgeTypes).
func (w *impactWalk) expand(uid string, d int) {
	w.incoming(uid, false, d)
	if !w.dispatch {
		return
	}
	n, ok := w.g.NodeHeader(uid)
	if !ok {
		return
	}
	switch n.Kind {
	case graph.KindMethod:
		// Callers of the interface methods uid implements and of the
		// base-class methods it overrides: via the edge (calls or
		// references) through that method.
		for _, m := range DispatchesOf(w.g, uid) {
			w.incoming(m.UID, true, d)
		}
		if !w.interfaces {
			return
		}
		// uid is an interface method: its implementations must follow it.
		for _, impl := range implementationsOf(w.g, uid) {
			w.visit(impl, reach{d, graph.EdgeImplements, uid})
		}
		// uid is a base-class method: its overrides must follow it.
		for _, o := range overridesOf(w.g, uid) {
			w.visit(o, reach{d, graph.EdgeInheritsFrom, uid})
		}
	case graph.KindClass:
		if !w.interfaces {
			return
		}
		// An interface: the callers of its methods (its implementers come
		// through the incoming implements edges).
		for _, im := range interfaceMethodsIn(w.g, uid) {
			w.incoming(im, true, d)
		}
	}
}

// Impact is the answer of ImpactOf: the dependents of a root by depth.
type Impact struct {
	// Levels holds the uids first reached at each depth (Levels[0] at
	// depth 1), unsorted: Page sorts the levels it shows.
	Levels [][]string
	// Counts is the number of dependents at each depth, keyed "1", "2", ….
	Counts map[string]int
	// Total is the number of dependents listed; Excluded the number in
	// build-excluded files within the path filters (left out and not
	// walked through unless the scope includes them; then listed).
	Total, Excluded int
	Completeness    *Completeness
	w               *impactWalk
}

// ImpactOf walks incoming edges of the given types breadth-first from
// root: depth 1 are the direct dependents, depth N those N hops away. Each
// node is reached once, at its smallest depth. Tests are left out unless
// includeTests. Unless dispatch, a method's dependents are only the
// sources of its own incoming edges (static calls: no caller of an
// interface method it implements). The walk goes through every node the
// scope's path filters drop; they are left out of the listing only. It
// fails only with ctx's error.
func ImpactOf(ctx context.Context, g *projections.Graph, root string, types []string, depth int, includeTests, dispatch bool, scope Scope) (*Impact, error) {
	follow := TypeSet(types)
	w := &impactWalk{
		g: g, root: root, follow: types, includeTests: includeTests, scope: scope,
		comp:       NewCompleteness(g, follow[graph.EdgeCalls]),
		excl:       NewBuildExclusion(g),
		seen:       map[string]reach{root: {}},
		dispatch:   dispatch,
		interfaces: dispatch && follow[graph.EdgeImplements],
	}
	frontier := []string{root}
	im := &Impact{Counts: map[string]int{}, Completeness: w.comp, w: w}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.next = nil
		for _, uid := range frontier {
			w.expand(uid, d)
		}
		frontier = w.next
		level := w.next
		if scope.Filtered() {
			level = make([]string, 0, len(w.next))
			for _, uid := range w.next {
				if n, _ := g.NodeHeader(uid); scope.Keeps(n.Path) {
					level = append(level, uid)
				}
			}
		}
		im.Counts[strconv.Itoa(d)] = len(level)
		im.Total += len(level)
		im.Levels = append(im.Levels, level)
	}
	im.Excluded = w.excluded
	if scope.IncludeBuildExcluded {
		for _, level := range im.Levels {
			for _, uid := range level {
				if w.excl.OfUID(uid) {
					im.Excluded++
				}
			}
		}
	}
	return im, nil
}

// Page returns the dependents [from, to) of the whole listing in (depth,
// uid) order; only the levels it shows are sorted.
func (im *Impact) Page(from, to int) []Dependent {
	out := make([]Dependent, 0, to-from)
	start := 0 // index of Levels[i][0] in the whole listing
	for _, level := range im.Levels {
		end := start + len(level)
		if end > from && start < to {
			slices.Sort(level)
			for _, uid := range level[max(from-start, 0):min(to-start, len(level))] {
				r := im.w.seen[uid]
				out = append(out, Dependent{NodeView: NodeOrMissing(im.w.g, uid), Depth: r.depth, Via: r.via, Through: r.through,
					BuildExcluded: im.w.excl.OfUID(uid)})
			}
		}
		start = end
	}
	return out
}
