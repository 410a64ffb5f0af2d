package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/cos-dev/cos/graph"
)

// Extractor ids recorded on every node and edge (graph.Node.Extractor) and on
// each graph.FileExtracted payload.
const (
	ExtractorGo       = "go"
	ExtractorPython   = "python"
	ExtractorJSTS     = "jsts"
	ExtractorMarkdown = "markdown"
	ExtractorConfig   = "config"
	ExtractorManifest = "manifest"
	ExtractorFolder   = "folder"
	ExtractorFile     = "file"
)

// Reference types that are resolved against the declarations table after
// every changed file was parsed.
const (
	refCall     = graph.EdgeCalls
	refInherits = graph.EdgeInheritsFrom
	refImport   = graph.EdgeImports
	// refContainedBy links a Go method to its receiver type, which may be
	// declared in another file of the package: the edge is
	// class --contains--> method.
	refContainedBy = "contained_by"
	// refWatch emits nothing: its Scope ("missing:…") names a module or
	// file an import looked for in vain, so that adding it later
	// re-extracts the importer (see watchKeys).
	refWatch = "watch"
)

// ref is one reference whose target lives in the declarations table: a call,
// a base class, an import, a method's receiver type.
type ref struct {
	Type string
	From string // uid of the source (function, class or file)
	Line int
	// Scope is the table scope to look Name up in ("go:<dir>",
	// "goimport:<import path>", "py:<module>", "js:<path>").
	Scope string
	Name  string
	// Then, when set, makes the target the method Then of the type Name
	// returns (x := F(); x.Then()).
	Then string
	// Recv, when set, makes the target the member Name of the value Recv
	// evaluates to (x.m(), self.m(), super().m(), mod.f()); Scope is then
	// unused.
	Recv *chain
	// Stub names the code:external: node used when Name is not found;
	// empty drops an unresolved reference.
	Stub string
}

// decl is what one file declares and depends on, cached per content hash so
// that a re-index can resolve changed files without parsing unchanged ones.
type decl struct {
	Hash  string
	Scope string
	// Names maps a declared name ("F", "T", "T.M") to its node kind
	// (graph.KindFunction, graph.KindMethod, graph.KindClass).
	Names map[string]string
	// Alias maps an exported alias ("default") to a declared name.
	Alias map[string]string
	// Results maps a Go function or method to the named type of its first
	// result when that type is declared in the same package ("NewServer" →
	// "Server"), so that x := NewServer(); x.M() resolves.
	Results map[string]string
	// Facts are what the file says about types, for the receiver
	// inference of the tree-sitter extractors (see infer.go: factBase,
	// factAttr, factReturn, factVar, factImport, factStar).
	Facts map[string]string
	// Deps are the normalised scopes this file's references looked into;
	// when one of them changes its declarations the file is re-extracted.
	Deps []string
	// payload is the payloadHash of the file's last emitted payload.
	payload string
	// impl and implKnown are a Go file's implements edges (implRecord).
	impl      []implRecord
	implKnown bool
}

// fileResult is what one extractor found in one file, before resolution.
type fileResult struct {
	Path        string
	Extractor   string
	Hash        string
	Size        int64
	Nodes       []graph.Node
	Edges       []graph.Edge
	Refs        []ref
	Decl        *decl // nil for files that declare nothing resolvable
	ParseErrors []string
	DurationMS  float64
}

func (r *fileResult) node(n graph.Node) {
	if n.Extractor == "" {
		n.Extractor = r.Extractor
	}
	if n.Path == "" && n.Kind != graph.KindDependency && n.Kind != graph.KindExternal && n.Kind != graph.KindMCPServer && n.Kind != graph.KindModule {
		n.Path = r.Path
	}
	r.Nodes = append(r.Nodes, n)
}

func (r *fileResult) edge(src, dst, typ string, line int) {
	r.Edges = append(r.Edges, graph.Edge{Source: src, Target: dst, Type: typ, Extractor: r.Extractor, Line: line})
}

func (r *fileResult) parseError(msg string) {
	if len(r.ParseErrors) < maxParseErrors {
		r.ParseErrors = append(r.ParseErrors, cleanString(msg))
	}
}

// maxParseErrors bounds ParseErrors per file.
const maxParseErrors = 10

// payloadHash is a digest of what a payload puts in the graph (its nodes,
// edges and parse errors; not its timing), to tell a re-extraction that
// changed nothing.
func payloadHash(p graph.FileExtracted) string {
	h := sha256.New()
	w := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	meta := func(m map[string]any) {
		if len(m) == 0 {
			w("")
			return
		}
		b, _ := json.Marshal(m) // sorted keys
		h.Write(b)
		h.Write([]byte{0})
	}
	w(p.Path)
	w(p.Extractor)
	w(p.ContentHash)
	for _, n := range p.Nodes {
		w(n.UID)
		w(n.Kind)
		w(n.Label)
		w(n.Path)
		w(strconv.Itoa(n.Line))
		w(strconv.Itoa(n.EndLine))
		w(n.Extractor)
		meta(n.Metadata)
	}
	w("edges")
	for _, e := range p.Edges {
		w(e.Source)
		w(e.Target)
		w(e.Type)
		w(e.Extractor)
		w(strconv.Itoa(e.Line))
		meta(e.Metadata)
	}
	w("errors")
	for _, s := range p.ParseErrors {
		w(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}
