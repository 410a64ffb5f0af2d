package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

// cosEdge is one calls edge cos extracted, where it was written.
type cosEdge struct {
	Site site
}

// cosGraph is what extract.Run found in one folder.
type cosGraph struct {
	// Calls are the calls edges from a function, method or file node to
	// a function or method node (code:external: stubs are left out).
	Calls map[pair]cosEdge
	// External holds the calls edges to code:external: stubs (interface
	// methods declared outside the folder among them).
	External map[pair]bool
	// Implements holds the implements edges (type → interface).
	Implements map[pair]bool
	// Extraction counts the Go files by how their edges were found
	// ("types", "syntax/<reason>", "unmarked" before the go/types
	// extractor).
	Extraction map[string]int
	Stats      extract.Stats
	Duration   time.Duration
}

// runCos indexes root with no cache, as a first `cos index` would.
func runCos(ctx context.Context, root string) (*cosGraph, error) {
	g := &cosGraph{Calls: map[pair]cosEdge{}, External: map[pair]bool{}, Implements: map[pair]bool{}, Extraction: map[string]int{}}
	start := time.Now()
	emit := func(batch []graph.FileExtracted, _ []string) error {
		for _, fe := range batch {
			if strings.HasSuffix(fe.Path, ".go") {
				g.Extraction[extractionOf(fe)]++
			}
			for _, e := range fe.Edges {
				switch e.Type {
				case graph.EdgeCalls:
					if !isCallerUID(e.Source) {
						continue
					}
					if strings.HasPrefix(e.Target, "code:external:") {
						g.External[pair{e.Source, e.Target}] = true
						continue
					}
					if !strings.HasPrefix(e.Target, "code:function:") {
						continue
					}
					if e.Source == e.Target {
						continue // a recursive call: the oracle leaves self pairs out (doc.go)
					}
					k := pair{e.Source, e.Target}
					if _, ok := g.Calls[k]; !ok {
						g.Calls[k] = cosEdge{Site: site{File: fe.Path, Line: e.Line}}
					}
				case graph.EdgeImplements:
					g.Implements[pair{e.Source, e.Target}] = true
				}
			}
		}
		return nil
	}
	st, err := extract.Run(ctx, root, extract.Options{}, nil, emit)
	g.Duration = time.Since(start)
	g.Stats = st
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", root, err)
	}
	return g, nil
}

// isCallerUID reports whether a uid can be the caller of a calls edge we
// compare: a function or method, or a file (package-level initialisers).
func isCallerUID(uid string) bool {
	return strings.HasPrefix(uid, "code:function:") || strings.HasPrefix(uid, "code:file:")
}

// extractionOf says how a Go file's edges were found, from its file node.
func extractionOf(fe graph.FileExtracted) string {
	for _, n := range fe.Nodes {
		if n.Kind != graph.KindFile {
			continue
		}
		how, _ := n.Metadata[graph.MetaExtraction].(string)
		if how == "" {
			return "unmarked"
		}
		if why, _ := n.Metadata[graph.MetaFallback].(string); why != "" {
			return how + "/" + why
		}
		return how
	}
	return "unmarked"
}

// uidFile returns the repo-relative file of a code:function: or code:file:
// uid.
func uidFile(uid string) string {
	if rest, ok := strings.CutPrefix(uid, "code:file:"); ok {
		return rest
	}
	rest := strings.TrimPrefix(uid, "code:function:")
	if i := strings.Index(rest, "::"); i >= 0 {
		return rest[:i]
	}
	return rest
}
