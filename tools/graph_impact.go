package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// impactEdgeTypes are the edge types cos_graph_impact follows backwards when
// the caller names none: the ones that make the source depend on the target,
// so that changing the target may break the source. contains and defines are
// structure, not dependence, and are left out.
//
// implements also makes the walk interface-aware (impactTool): a method's
// dependents include the callers of the interface methods it implements, an
// interface method's include its implementations, and an interface's
// include the callers of its methods.
var impactEdgeTypes = []string{
	graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports, graph.EdgeInheritsFrom, graph.EdgeImplements,
	graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeAccessesField,
	graph.EdgeLinksTo, graph.EdgeCitesHeading, graph.EdgeRequires,
}

// dependent is one node of an impact answer.
type dependent struct {
	nodeView
	Depth int `json:"depth"`
	// Via is the type of the edge that reached it, Through the node that
	// edge points at: the node one hop closer to the root, or an interface
	// method that node implements (the dependent calls or references the
	// interface method, which dispatches to it). Via is "implements" only
	// for the hop between an implementation and its interface or interface
	// method. When several edges reach it at its depth, the least (through,
	// via) wins.
	Via     string `json:"via"`
	Through string `json:"through"`
	// BuildExcluded marks a node of a Go file the current build leaves
	// out (buildExclusion).
	BuildExcluded bool `json:"build_excluded,omitempty"`
}

func graphImpactTool() *Tool {
	return &Tool{
		Name:        "cos_graph_impact",
		Title:       "What a change breaks",
		Description: "Nodes that depend on this one within depth hops, interfaces included. Paged.",
		Data: Fields{"node": "object", "nodes": "[]object", "count": "integer", "listed": "integer", "limit": "integer", "depth": "integer",
			"counts_by_depth": "object", "edge_types": "[]string", "next_cursor": "string", "walk_log_seq": "integer",
			"build_excluded_count": "integer", "note": "string"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:cmd/main.go::run", "depth": 2, "include_tests": false}`,
		Params: append([]Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "depth", Type: TInt, Min: f64(1), Max: f64(5), Default: 2},
			{Name: "edge_types", Type: TStringList, Enum: edgeTypes, SharedEnum: true},
		}, pageParams()...),
		Handler: impactTool,
	}
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
	comp         *completeness
	excl         *buildExclusion
	seen         map[string]reach
	// interfaces is set when implements is followed.
	interfaces bool
	// next collects the level being discovered.
	next []string
}

// visit records src as reached by r (at the level being discovered) unless
// it is known from an earlier level or left out.
func (w *impactWalk) visit(src string, r reach) {
	if old, ok := w.seen[src]; ok {
		if old.depth == r.depth && r.before(old) {
			w.seen[src] = r
		}
		return
	}
	if !w.includeTests {
		if n, ok := w.g.NodeHeader(src); ok && isTestPath(n.Path) {
			return
		}
	}
	w.seen[src] = r
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
	if n, ok := w.g.NodeHeader(target); ok && (target == w.root || !w.excl.of(n)) {
		w.comp.add(n, referenced)
	}
}

// expand visits the dependents of uid at depth d: the sources of its
// incoming edges of the followed types and, when interfaces are followed,
// the interface-aware ones (see impactEdgeTypes).
func (w *impactWalk) expand(uid string, d int) {
	w.incoming(uid, false, d)
	if !w.interfaces {
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
		for _, m := range dispatchesOf(w.g, uid) {
			w.incoming(m.UID, true, d)
		}
		// uid is an interface method: its implementations must follow it.
		for _, impl := range implementationsOf(w.g, uid) {
			w.visit(impl, reach{d, graph.EdgeImplements, uid})
		}
	case graph.KindClass:
		// An interface: the callers of its methods (its implementers come
		// through the incoming implements edges).
		for _, im := range interfaceMethodsIn(w.g, uid) {
			w.incoming(im, true, d)
		}
	}
}

// impactTool walks incoming edges breadth-first: depth 1 are the direct
// dependents, depth N those N hops away. Each node is listed once, at its
// smallest depth, in (depth, uid) order, paged by limit and cursor; only
// the levels a page shows are sorted.
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
	includeTests := c.Args.Bool("include_tests", true)
	follow := typeSet(types)
	g := c.V.Graph
	root := res.Node.UID
	w := &impactWalk{
		g: g, root: root, follow: types, includeTests: includeTests,
		comp:       &completeness{g: g, calls: follow[graph.EdgeCalls]},
		excl:       newBuildExclusion(g),
		seen:       map[string]reach{root: {}},
		interfaces: follow[graph.EdgeImplements],
	}
	frontier := []string{root}
	counts := map[string]int{}
	var levels [][]string
	total := 0
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		if err := ctx.Err(); err != nil {
			return nil, envelope.ToolMeta{}, err
		}
		w.next = nil
		for _, uid := range frontier {
			w.expand(uid, d)
		}
		counts[strconv.Itoa(d)] = len(w.next)
		total += len(w.next)
		levels = append(levels, w.next)
		frontier = w.next
	}
	excluded := 0
	for _, level := range levels {
		for _, uid := range level {
			if w.excl.ofUID(uid) {
				excluded++
			}
		}
	}

	tm := resolvedMeta(res)
	tm.SemanticScope = fmt.Sprintf("transitive_depth_%d", depth)
	w.comp.setOn(&tm)
	limit := c.Args.Int("limit", graphPageDefault)
	query := queryDigest("cos_graph_impact", root, types, depth, includeTests)
	nodes, p, err := pageOf(c, c.Args.Str("cursor"), query, total, limit, func(from, to int) []dependent {
		out := make([]dependent, 0, to-from)
		start := 0 // index of levels[i][0] in the whole listing
		for _, level := range levels {
			end := start + len(level)
			if end > from && start < to {
				slices.Sort(level)
				for _, uid := range level[max(from-start, 0):min(to-start, len(level))] {
					r := w.seen[uid]
					out = append(out, dependent{nodeView: nodeOrMissing(g, uid), Depth: r.depth, Via: r.via, Through: r.through,
						BuildExcluded: w.excl.ofUID(uid)})
				}
			}
			start = end
		}
		return out
	})
	if err != nil {
		return nil, tm, err
	}
	data := map[string]any{
		"node":            viewOf(res.Node),
		"depth":           depth,
		"edge_types":      types,
		"count":           total,
		"counts_by_depth": counts,
		// build_excluded_count: dependents in files this build leaves
		// out, counted in count and listed.
		"build_excluded_count": excluded,
		"listed":               len(nodes),
		"nodes":                nodes,
		"next_cursor":          p.Next,
		"limit":                p.Limit,
		"walk_log_seq":         p.WalkSeq,
	}
	if total == 0 {
		data["note"] = noneFoundNote("dependents", types, tm)
	}
	return data, tm, nil
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
