package query

import (
	"sort"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// DefaultReferenceKinds are the edge types cos_graph_references follows when
// the caller sends no kinds, per the kind of the resolved node
// (meta.default_kinds_picked): a class is referred to by what constructs it,
// takes it as a parameter, inherits from it, implements it (the implementers
// of an interface), reads its fields, calls it (a Python constructor), names
// it (isinstance, an annotation, a class passed as a value) or imports or
// defines it; a function or method by its callers and the
// functions that use it as a value; a file by importers, links and its
// folder. A kind missing here gets every edge type.
var DefaultReferenceKinds = map[string][]string{
	graph.KindClass: {graph.EdgeConstructs, graph.EdgeHasParamType, graph.EdgeInheritsFrom, graph.EdgeImplements,
		graph.EdgeAccessesField, graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports, graph.EdgeDefines},
	graph.KindFunction:   {graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports},
	graph.KindMethod:     {graph.EdgeCalls, graph.EdgeReferences, graph.EdgeImports},
	graph.KindFile:       {graph.EdgeImports, graph.EdgeLinksTo, graph.EdgeContains},
	graph.KindDocFile:    {graph.EdgeLinksTo, graph.EdgeCitesHeading, graph.EdgeContains},
	graph.KindHeading:    {graph.EdgeCitesHeading, graph.EdgeLinksTo},
	graph.KindDependency: {graph.EdgeRequires, graph.EdgeImports},
	graph.KindModule:     {graph.EdgeImports, graph.EdgeRequires},
	graph.KindFolder:     {graph.EdgeContains},
}

// Reference is one direct reference to the node: an incoming edge, or an
// incoming edge of an interface method the node implements.
type Reference struct {
	Type string `json:"type"`
	// Source is the referring node; File and Line locate the reference (the
	// source's file, the edge's line, else the source's line).
	Source    string `json:"source"`
	Kind      string `json:"kind"`
	Label     string `json:"label"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Extractor string `json:"extractor,omitempty"`
	// Via is "implements" when the edge points at an interface method the
	// node implements, Through that interface method; both are empty for
	// an edge that points at the node itself.
	Via     string `json:"via,omitempty"`
	Through string `json:"through,omitempty"`
	// Metadata is the edge's (implements: method_set; accesses_field:
	// fields).
	Metadata map[string]any `json:"metadata,omitempty"`
	// BuildExcluded marks a source in a Go file the current build leaves
	// out (BuildExclusion).
	BuildExcluded bool `json:"build_excluded,omitempty"`
}

// References is the answer of ReferencesTo: every reference in scope,
// ordered by file, line and source, and how many of each edge type.
type References struct {
	Refs   []Reference
	ByType map[string]int
	// Excluded counts the references from build-excluded files within the
	// path filters: left out of Refs and ByType unless the scope includes
	// them (then listed, marked).
	Excluded     int
	Completeness *Completeness
}

// ReferencesTo lists the incoming edges of root of the kinds followed; for
// a method, when calls or references are followed, also those of every
// interface method it implements or base-class method it overrides
// (DispatchesOf). Tests are left out unless includeTests; references whose
// file the scope does not keep are left out, and so are those from
// build-excluded files unless scope.IncludeBuildExcluded.
func ReferencesTo(g *projections.Graph, node graph.Node, kinds []string, includeTests bool, scope Scope) References {
	follow := TypeSet(kinds)
	root := node.UID
	comp := NewCompleteness(g, follow[graph.EdgeCalls])
	comp.Add(node, g.HasIn(root, graph.EdgeReferences))
	excl := NewBuildExclusion(g)

	refs := []Reference{}
	byType := map[string]int{}
	excluded := 0
	collect := func(target, via string) {
		for _, e := range g.In(target) {
			if !follow[e.Type] || (via != "" && e.Source == root) {
				continue // the node calling what it overrides (super) is not its caller
			}
			src, ok := g.NodeHeader(e.Source)
			if !ok {
				src = graph.Node{UID: e.Source, Kind: "missing", Label: e.Source}
			}
			if !includeTests && IsTestPath(src.Path) || !scope.Keeps(src.Path) {
				continue
			}
			buildExcluded := excl.Of(src)
			if buildExcluded {
				excluded++
				if !scope.IncludeBuildExcluded {
					continue
				}
			}
			line := e.Line
			if line == 0 {
				line = src.Line
			}
			r := Reference{Type: e.Type, Source: e.Source, Kind: src.Kind, Label: src.Label, File: src.Path, Line: line,
				Extractor: e.Extractor, Metadata: e.Metadata, BuildExcluded: buildExcluded}
			if via != "" {
				r.Via, r.Through = via, target
			}
			refs = append(refs, r)
			byType[e.Type]++
		}
	}
	collect(root, "")
	if node.Kind == graph.KindMethod && (follow[graph.EdgeCalls] || follow[graph.EdgeReferences]) {
		for _, d := range DispatchesOf(g, root) {
			if !excl.OfUID(d.UID) {
				comp.AddUID(d.UID)
			}
			collect(d.UID, d.Via)
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if refs[i].File != refs[j].File {
			return refs[i].File < refs[j].File
		}
		if refs[i].Line != refs[j].Line {
			return refs[i].Line < refs[j].Line
		}
		return refs[i].Source < refs[j].Source
	})
	return References{Refs: refs, ByType: byType, Excluded: excluded, Completeness: comp}
}
