package query

import (
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// NodeView is a node as the graph tools show it.
type NodeView struct {
	UID       string         `json:"uid"`
	Kind      string         `json:"kind"`
	Label     string         `json:"label"`
	Path      string         `json:"path,omitempty"`
	Line      int            `json:"line,omitempty"`
	EndLine   int            `json:"end_line,omitempty"`
	Extractor string         `json:"extractor,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// ViewOf is the view of n.
func ViewOf(n graph.Node) NodeView {
	return NodeView{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, EndLine: n.EndLine, Extractor: n.Extractor, Metadata: n.Metadata}
}

// EdgeView is an edge as the graph tools show it. Metadata is the
// extractor's: Go's implements edges carry method_set ("value" or
// "pointer": whether T or only *T satisfies the interface), its
// accesses_field edges fields (the field names used); other edges have
// none, so it costs nothing where it is absent.
type EdgeView struct {
	Source    string         `json:"source"`
	Target    string         `json:"target"`
	Type      string         `json:"type"`
	Extractor string         `json:"extractor,omitempty"`
	Line      int            `json:"line,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// EdgeOf is the view of e.
func EdgeOf(e graph.Edge) EdgeView {
	return EdgeView{Source: e.Source, Target: e.Target, Type: e.Type, Extractor: e.Extractor, Line: e.Line, Metadata: e.Metadata}
}

// NodeOrMissing is the view of uid; an edge endpoint that is not a node (a
// dangling edge) shows as kind "missing" labelled with its uid.
func NodeOrMissing(g *projections.Graph, uid string) NodeView {
	if n, ok := g.Node(uid); ok {
		return ViewOf(n)
	}
	return NodeView{UID: uid, Kind: "missing", Label: uid}
}

// TypeSet returns the set of types.
func TypeSet(types []string) map[string]bool {
	m := make(map[string]bool, len(types))
	for _, t := range types {
		m[t] = true
	}
	return m
}
