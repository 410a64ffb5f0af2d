package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/scripts/internal/acc"
)

// cosGraph is what extract.Run found in one folder.
type cosGraph struct {
	// Nodes are the function, method and class nodes by file.
	Nodes nodeIndex
	// Calls are the calls edges from a function, method, class or file
	// node to a function, method or class node (code:external: stubs are
	// left out), with their first site.
	Calls map[pair]site
	// Edges holds, for every in-tree pair, the types of all its edges but
	// contains and defines (structural, not references).
	Edges    map[pair][]string
	Files    int
	Duration time.Duration
}

// runCos indexes root with no cache, as a first `cos index` would.
func runCos(ctx context.Context, root string) (*cosGraph, error) {
	g := &cosGraph{Nodes: nodeIndex{}, Calls: map[pair]site{}, Edges: map[pair][]string{}}
	start := time.Now()
	emit := func(batch []graph.FileExtracted, _ []string) error {
		for _, fe := range batch {
			for _, n := range fe.Nodes {
				if !strings.HasPrefix(n.UID, "code:function:") && !strings.HasPrefix(n.UID, "code:class:") {
					continue
				}
				tk, _ := n.Metadata["type_kind"].(string)
				g.Nodes[n.Path] = append(g.Nodes[n.Path], cosNode{UID: n.UID, Kind: n.Kind, Label: n.Label, Path: n.Path, Line: n.Line, EndLine: n.EndLine, TypeKind: tk})
			}
			for _, e := range fe.Edges {
				if e.Type == graph.EdgeContains || e.Type == graph.EdgeDefines || !isCallerUID(e.Source) || !isCalleeUID(e.Target) {
					continue
				}
				k := pair{e.Source, e.Target}
				g.Edges[k] = appendOnce(g.Edges[k], e.Type)
				if e.Type != graph.EdgeCalls {
					continue
				}
				at := site{File: fe.Path, Line: e.Line}
				if old, ok := g.Calls[k]; !ok || acc.SiteLess(at, old) {
					g.Calls[k] = at
				}
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

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// isCallerUID reports whether a uid can be the source of a compared edge.
func isCallerUID(uid string) bool {
	return strings.HasPrefix(uid, "code:function:") || strings.HasPrefix(uid, "code:class:") || strings.HasPrefix(uid, "code:file:")
}

// isCalleeUID reports whether a uid can be the target of a compared edge.
func isCalleeUID(uid string) bool {
	return strings.HasPrefix(uid, "code:function:") || strings.HasPrefix(uid, "code:class:")
}

// uidFile returns the repo-relative file of a code: uid.
func uidFile(uid string) string {
	for _, p := range []string{"code:file:", "code:function:", "code:class:"} {
		if rest, ok := strings.CutPrefix(uid, p); ok {
			if i := strings.Index(rest, "::"); i >= 0 {
				return rest[:i]
			}
			return rest
		}
	}
	return ""
}
