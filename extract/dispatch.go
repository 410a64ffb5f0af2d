package extract

import (
	"path"
	"strings"
	"time"

	"github.com/cos-dev/cos/graph"
)

// env is what extractors may consult besides the file itself: the
// repository's Go modules and the set of files (for relative imports).
type env struct {
	modules  *goModules
	files    map[string]bool // every indexed path
	pyMods   map[string]string
	maxDepth int
}

// extractorFor returns the id of the extractor that owns path.
func extractorFor(p string) string {
	base := path.Base(p)
	lbase := strings.ToLower(base)
	switch {
	case isManifest(base):
		return ExtractorManifest
	case strings.HasSuffix(lbase, ".go"):
		return ExtractorGo
	case strings.HasSuffix(lbase, ".py") || strings.HasSuffix(lbase, ".pyi"):
		return ExtractorPython
	case jstsDialect(lbase) != "":
		return ExtractorJSTS
	case graph.IsDocPath(p):
		return ExtractorMarkdown
	case strings.HasSuffix(lbase, ".json") || strings.HasSuffix(lbase, ".toml") || strings.HasSuffix(lbase, ".yaml") || strings.HasSuffix(lbase, ".yml"):
		return ExtractorConfig
	}
	return ExtractorFile
}

// declares reports whether files of extractor id contribute to the
// declarations table.
func declares(id string) bool {
	return id == ExtractorGo || id == ExtractorPython || id == ExtractorJSTS || id == ExtractorMarkdown
}

// extractFile runs the extractor owning p over its content. It never fails:
// problems become ParseErrors and whatever was found is kept.
func extractFile(p string, data []byte, hash string, e *env) (fr *fileResult) {
	start := time.Now()
	fr = &fileResult{Path: p, Extractor: extractorFor(p), Hash: hash, Size: int64(len(data))}
	defer func() {
		if r := recover(); r != nil {
			// An extractor bug must not stop the index: keep the file node.
			fr.Nodes, fr.Edges, fr.Refs, fr.Decl = nil, nil, nil, nil
			fr.parseError("extractor panic: " + strings.TrimSpace(anyString(r)))
			fileNode(fr, nil)
		}
		fr.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	}()
	switch fr.Extractor {
	case ExtractorGo:
		extractGo(fr, sourceText(data), e.modules)
	case ExtractorPython:
		extractPython(fr, data, e)
	case ExtractorJSTS:
		extractJSTS(fr, data, e)
	case ExtractorMarkdown:
		extractMarkdown(fr, data, e)
	case ExtractorConfig:
		extractConfig(fr, sourceText(data), e)
	case ExtractorManifest:
		extractManifest(fr, sourceText(data), e)
	default:
		fileNode(fr, nil)
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

// fileNode adds the file's own node (doc:file: or code:file:).
func fileNode(fr *fileResult, meta map[string]any) string {
	uid := fileUID(fr.Path)
	kind := graph.KindFile
	if graph.IsDocPath(fr.Path) {
		kind = graph.KindDocFile
	}
	fr.node(graph.Node{UID: uid, Kind: kind, Label: cleanString(path.Base(fr.Path)), Metadata: meta})
	return uid
}

// payload turns a resolved result into the event payload: the folder chain
// and its contains edges are added (extractor "folder"), nodes and edges are
// de-duplicated, strings cleaned, and anything whose uid fails
// graph.ValidateUID is dropped with a parse error.
func payload(fr *fileResult) graph.FileExtracted {
	out := graph.FileExtracted{Path: cleanString(fr.Path), Extractor: fr.Extractor, ContentHash: fr.Hash, Size: fr.Size, DurationMS: fr.DurationMS}
	nodes := make([]graph.Node, 0, len(fr.Nodes)+8)
	seen := make(map[string]bool, len(fr.Nodes)+8)
	bad := map[string]bool{}
	addNode := func(n graph.Node) {
		if seen[n.UID] {
			return
		}
		if err := graph.ValidateUID(n.UID); err != nil {
			bad[n.UID] = true
			fr.parseError(err.Error())
			return
		}
		seen[n.UID] = true
		n.Label = cleanString(n.Label)
		n.Path = cleanString(n.Path)
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
		uid := clampUID(graph.FolderUID(uidPart(d)))
		label := path.Base(d)
		if d == "" {
			label = "."
		}
		addNode(graph.Node{UID: uid, Kind: graph.KindFolder, Label: label, Path: d, Extractor: ExtractorFolder})
		if i < len(chain)-1 {
			edges = append(edges, graph.Edge{Source: clampUID(graph.FolderUID(uidPart(chain[i+1]))), Target: uid, Type: graph.EdgeContains, Extractor: ExtractorFolder})
		}
	}
	edges = append(edges, graph.Edge{Source: clampUID(graph.FolderUID(uidPart(dir))), Target: fileUID(fr.Path), Type: graph.EdgeContains, Extractor: ExtractorFolder})
	for _, n := range fr.Nodes {
		addNode(n)
	}
	edges = append(edges, fr.Edges...)
	seenEdge := make(map[graph.EdgeKey]bool, len(edges))
	out.Edges = make([]graph.Edge, 0, len(edges))
	for _, e := range edges {
		k := e.Key()
		if seenEdge[k] || e.Source == e.Target || bad[e.Source] || bad[e.Target] {
			continue
		}
		if graph.ValidateUID(e.Source) != nil || graph.ValidateUID(e.Target) != nil {
			continue
		}
		seenEdge[k] = true
		out.Edges = append(out.Edges, e)
	}
	out.Nodes = nodes
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

// fileUID is the uid of a repository file, escaped and clamped.
func fileUID(p string) string { return graph.SourceFileUID(p) }
