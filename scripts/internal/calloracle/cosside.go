package calloracle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

// Node is a cos function, method or class node.
type Node struct {
	UID, Kind, Label, Path string
	Line, EndLine          int
}

// Pair is a directed edge between two uids.
type Pair struct{ Caller, Callee string }

// Graph is what cos extracted from a project folder.
type Graph struct {
	// Nodes are the function, method and class nodes by file.
	Nodes map[string][]Node
	// Calls are the calls and constructs edges from a function, method,
	// class or file node to a function, method or class node, with their
	// first site (Col 0).
	Calls map[Pair]Site
	// Edges holds, for every such pair, the types of all its edges but
	// contains and defines.
	Edges    map[Pair][]string
	Files    int
	Duration time.Duration
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{Nodes: map[string][]Node{}, Calls: map[Pair]Site{}, Edges: map[Pair][]string{}}
}

// AddNode adds a node (one not of a function or class uid is ignored).
func (g *Graph) AddNode(n Node) {
	if !strings.HasPrefix(n.UID, "code:function:") && !strings.HasPrefix(n.UID, "code:class:") {
		return
	}
	g.Nodes[n.Path] = append(g.Nodes[n.Path], n)
}

// AddEdge adds an edge of type typ found at site; only edges between
// code uids (a file, function or class source; a function or class
// target) other than contains and defines are kept.
func (g *Graph) AddEdge(src, dst, typ string, at Site) {
	if typ == graph.EdgeContains || typ == graph.EdgeDefines || !isCaller(src) || !isCallee(dst) {
		return
	}
	k := Pair{src, dst}
	if !has(g.Edges[k], typ) {
		g.Edges[k] = append(g.Edges[k], typ)
	}
	if typ != graph.EdgeCalls && typ != graph.EdgeConstructs {
		return
	}
	if old, ok := g.Calls[k]; !ok || at.File < old.File || at.File == old.File && at.Line < old.Line {
		g.Calls[k] = at
	}
}

// RunCos indexes root as a first `cos index` would (no cache).
func RunCos(ctx context.Context, root string) (*Graph, error) {
	g := NewGraph()
	start := time.Now()
	emit := func(batch []graph.FileExtracted, _ []string) error {
		for _, fe := range batch {
			for _, n := range fe.Nodes {
				g.AddNode(Node{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, EndLine: n.EndLine})
			}
			for _, e := range fe.Edges {
				g.AddEdge(e.Source, e.Target, e.Type, Site{File: fe.Path, Line: e.Line})
			}
		}
		return nil
	}
	st, err := extract.Run(ctx, root, extract.Options{}, nil, emit)
	g.Duration = time.Since(start)
	g.Files = st.FilesSeen
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", root, err)
	}
	return g, nil
}

func has(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func isCaller(uid string) bool {
	return strings.HasPrefix(uid, "code:function:") || strings.HasPrefix(uid, "code:class:") || strings.HasPrefix(uid, "code:file:")
}

func isCallee(uid string) bool {
	return strings.HasPrefix(uid, "code:function:") || strings.HasPrefix(uid, "code:class:")
}

// uidFile is the file part of a code: uid.
func uidFile(uid string) string {
	for _, p := range []string{"code:file:", "code:function:", "code:class:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			f, _, _ := strings.Cut(rest, "::")
			return f
		}
	}
	return ""
}
