package query

import (
	"path"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// This file maps diff hunks onto symbols for cos_graph_changes: the
// symbols of a file in the graph or in a base revision's content, the
// innermost ones a range of lines touches, and their identity across a
// file rename.

// symbolKinds are the node kinds cos_graph_changes maps hunks onto.
var symbolKinds = map[string]bool{
	graph.KindFunction: true, graph.KindMethod: true, graph.KindClass: true,
	graph.KindHeading: true, graph.KindConfig: true,
}

// span is a symbol with its line range.
type span struct {
	n          graph.Node
	start, end int
}

func spanOf(n graph.Node) span {
	end := n.EndLine
	if end < n.Line {
		end = n.Line
	}
	return span{n: n, start: n.Line, end: end}
}

// touched returns the innermost symbols of spans that the lines
// [from, to] overlap: a symbol whose overlap with the lines is all inside
// symbols nested in it (a class around a changed method) is left out.
func touched(spans []span, from, to int) []span {
	var hit []span
	for _, s := range spans {
		if s.start <= to && s.end >= from {
			hit = append(hit, s)
		}
	}
	var out []span
	for _, s := range hit {
		lo, hi := max(s.start, from), min(s.end, to)
		covered := true
		for l := lo; l <= hi && covered; l++ {
			inner := false
			for _, o := range hit {
				if o.n.UID != s.n.UID && o.start >= s.start && o.end <= s.end && (o.start > s.start || o.end < s.end) &&
					o.start <= l && l <= o.end {
					inner = true
					break
				}
			}
			covered = inner
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out
}

// qualName is a symbol's identity within its file: its kind family and
// the name after "::" in its uid, so the same declaration matches across
// a file rename.
func qualName(uid string) string {
	i := strings.Index(uid, "::")
	j := strings.Index(uid, ":")
	if i < 0 || j < 0 {
		return uid
	}
	k := strings.Index(uid[j+1:], ":")
	if k < 0 {
		return uid[i:]
	}
	return uid[:j+1+k] + uid[i:]
}

// graphSymbols returns the symbols the graph holds for each of paths,
// ordered by line: the nodes reached through contains edges from the
// files' nodes and, for Go, from every file of the same folder (a method
// is contained by its type, which may be declared in another file of the
// package).
func graphSymbols(g *projections.Graph, paths map[string]bool) map[string][]span {
	var starts []string
	dirs := map[string]bool{}
	for p := range paths {
		starts = append(starts, graph.SourceFileUID(p))
		if strings.HasSuffix(p, ".go") {
			dirs[path.Dir(p)] = true
		}
	}
	for d := range dirs {
		if d == "." {
			d = ""
		}
		for _, f := range g.Targets(graph.ClampUID(graph.FolderUID(graph.UIDPart(d))), graph.EdgeContains) {
			if strings.HasSuffix(f, ".go") {
				starts = append(starts, f)
			}
		}
	}
	seen := map[string]bool{}
	out := map[string][]span{}
	queue := starts
	for len(queue) > 0 {
		uid := queue[0]
		queue = queue[1:]
		if seen[uid] {
			continue
		}
		seen[uid] = true
		if n, ok := g.NodeHeader(uid); ok && symbolKinds[n.Kind] && paths[n.Path] && n.Line > 0 {
			out[n.Path] = append(out[n.Path], spanOf(n))
		}
		queue = append(queue, g.Targets(uid, graph.EdgeContains)...)
	}
	for p := range out {
		slices.SortFunc(out[p], func(a, b span) int { return a.start - b.start })
	}
	return out
}

// symbolSpans returns the symbols among nodes (of symbolKinds, with a
// line), in their order.
func symbolSpans(nodes []graph.Node) []span {
	var out []span
	for _, n := range nodes {
		if symbolKinds[n.Kind] && n.Line > 0 {
			out = append(out, spanOf(n))
		}
	}
	return out
}

// exported reports whether a symbol is visible outside its package or
// module: a capitalised Go name, a name without a leading underscore
// elsewhere; headings and config keys are always reachable.
func exported(n graph.Node) bool {
	name := n.Label
	if i := strings.LastIndexByte(name, '.'); i >= 0 && n.Kind != graph.KindHeading && n.Kind != graph.KindConfig {
		name = name[i+1:]
	}
	if strings.HasSuffix(n.Path, ".go") {
		return exportedName(name)
	}
	return !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, "#")
}
