package extract

import (
	"path"
	"strings"
	"time"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// extractFile runs the extractor owning p over its content. It never fails:
// problems become ParseErrors and whatever was found is kept.
func extractFile(p string, data []byte, hash string, e *lang.Env) (fr *lang.Result) {
	start := time.Now()
	x := extractorOf(p)
	id := lang.ExtractorFile
	if x != nil {
		id = x.Name()
	}
	fr = &lang.Result{Path: p, Extractor: id, Hash: hash, Size: int64(len(data))}
	defer func() {
		if r := recover(); r != nil {
			// An extractor bug must not stop the index: keep the file node.
			fr.Nodes, fr.Edges, fr.Refs, fr.Decl = nil, nil, nil, nil
			fr.ParseError("extractor panic: " + strings.TrimSpace(anyString(r)))
			lang.FileNode(fr, nil)
		}
		lang.HashSpans(fr, data)
		fr.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	}()
	if x != nil {
		x.Extract(fr, data, e)
	} else {
		lang.FileNode(fr, nil)
	}
	return fr
}

func anyString(v any) string {
	switch x := v.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	return "unknown panic"
}

// payload turns a resolved result into the event payload: the folder chain
// and its contains edges are added (extractor "folder"), nodes and edges are
// de-duplicated, strings cleaned, and anything whose uid fails
// graph.ValidateUID is dropped with a parse error.
func payload(fr *lang.Result) graph.FileExtracted {
	out := graph.FileExtracted{Path: lang.CleanString(fr.Path), Extractor: fr.Extractor, ContentHash: fr.Hash, Size: fr.Size, DurationMS: fr.DurationMS}
	nodes := make([]graph.Node, 0, len(fr.Nodes)+8)
	seen := make(map[string]bool, len(fr.Nodes)+8)
	bad := map[string]bool{}
	addNode := func(n graph.Node) {
		if seen[n.UID] {
			return
		}
		if err := graph.ValidateUID(n.UID); err != nil {
			bad[n.UID] = true
			fr.ParseError(err.Error())
			return
		}
		seen[n.UID] = true
		n.Label = lang.CleanString(n.Label)
		n.Path = lang.CleanString(n.Path)
		nodes = append(nodes, n)
	}
	var edges []graph.Edge
	// Folders: root → … → parent folder → file.
	dir := path.Dir(fr.Path)
	if dir == "." {
		dir = ""
	}
	var chain []string
	for d := dir; ; d = parentDir(d) {
		chain = append(chain, d)
		if d == "" {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		uid := lang.ClampUID(graph.FolderUID(lang.UIDPart(d)))
		label := path.Base(d)
		if d == "" {
			label = "."
		}
		addNode(graph.Node{UID: uid, Kind: graph.KindFolder, Label: label, Path: d, Extractor: lang.ExtractorFolder})
		if i < len(chain)-1 {
			edges = append(edges, graph.Edge{Source: lang.ClampUID(graph.FolderUID(lang.UIDPart(chain[i+1]))), Target: uid, Type: graph.EdgeContains, Extractor: lang.ExtractorFolder})
		}
	}
	edges = append(edges, graph.Edge{Source: lang.ClampUID(graph.FolderUID(lang.UIDPart(dir))), Target: lang.FileUID(fr.Path), Type: graph.EdgeContains, Extractor: lang.ExtractorFolder})
	for _, n := range fr.Nodes {
		addNode(n)
	}
	edges = append(edges, fr.Edges...)
	seenEdge := make(map[graph.EdgeKey]bool, len(edges))
	out.Edges = make([]graph.Edge, 0, len(edges))
	for _, e := range edges {
		k := e.Key()
		if seenEdge[k] || lang.SelfLoop(e) || bad[e.Source] || bad[e.Target] {
			continue
		}
		// A target in another root (graph.RootedPath) is checked as it
		// will be stored.
		if graph.ValidateUID(e.Source) != nil || graph.ValidateUID(graph.InRoot(e.Target, "")) != nil {
			continue
		}
		seenEdge[k] = true
		out.Edges = append(out.Edges, e)
	}
	out.Nodes = nodes
	out.SymbolHashes = lang.SymbolHashes(fr.Spans, nodes)
	out.ParseErrors = fr.ParseErrors
	return out
}

func parentDir(d string) string {
	p := path.Dir(d)
	if p == "." || p == "/" {
		return ""
	}
	return p
}
