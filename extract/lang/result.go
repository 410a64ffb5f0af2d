package lang

import (
	"github.com/cos-dev/cos/graph"
)

// Extractor ids recorded on every node and edge (graph.Node.Extractor) and on
// each graph.FileExtracted payload.
const (
	ExtractorGo       = "go"
	ExtractorPython   = "python"
	ExtractorJSTS     = "jsts"
	ExtractorC        = "c"
	ExtractorCPP      = "cpp"
	ExtractorJava     = "java"
	ExtractorKotlin   = "kotlin"
	ExtractorMarkdown = "markdown"
	ExtractorConfig   = "config"
	ExtractorManifest = "manifest"
	ExtractorRust     = "rust"
	ExtractorPHP      = "php"
	ExtractorRuby     = "ruby"
	ExtractorCSharp   = "csharp"
	ExtractorScala    = "scala"
	ExtractorSwift    = "swift"
	ExtractorFolder   = "folder"
	ExtractorFile     = "file"
)

// Reference types that are resolved against the declarations table after
// every changed file was parsed.
const (
	RefCall     = graph.EdgeCalls
	RefInherits = graph.EdgeInheritsFrom
	RefImport   = graph.EdgeImports
	// RefContainedBy links a method to its type, which may be declared in
	// another file (a Go receiver type of the package, a Rust impl's type,
	// a C++ class in a header): the edge is class --contains--> method.
	RefContainedBy = "contained_by"
	// RefWatch emits nothing: its Scope ("missing:…") names a module or
	// file an import looked for in vain, so that adding it later
	// re-extracts the importer (see watchKeys).
	RefWatch = "watch"
)

// RubyNestScope prefixes the scope of a Ruby constant read inside
// modules ("rbnest:A::B"): the name is looked up as A::B::C, A::C, then C
// in the "rb:" scope (package resolve).
const RubyNestScope = "rbnest:"

// Ref is one reference whose target lives in the declarations table: a call,
// a base class, an import, a method's receiver type.
type Ref struct {
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
	Recv *Chain
	// Stub names the code:external: node used when Name is not found;
	// empty drops an unresolved reference.
	Stub string
	// Else makes the reference an alternative of the one before it in
	// Result.Refs: it is resolved only when none of the references of
	// its run (the last one without Else and those after it) found a
	// target (Kotlin: a member of this, else a function of the package).
	Else bool
}

// Decl is what one file declares and depends on, cached per content hash so
// that a re-index can resolve changed files without parsing unchanged ones.
type Decl struct {
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
	// inference of the tree-sitter extractors (package resolve; the keys
	// FactBase, FactAttr, FactReturn, FactVar, FactImport, FactStar, … are
	// in chain.go).
	Facts map[string]string
	// Deps are the normalised scopes this file's references looked into;
	// when one of them changes its declarations the file is re-extracted.
	// The one scope of C and C++ is not among them: see Keys.
	Deps []string
	// Keys are the names this file's references read in the scopes whose
	// dependencies are recorded by name (resolve.FineScope: "c:"), hashed
	// to 4 bytes each and packed (sorted, little-endian); when an entry of
	// one of them changes the file is re-extracted. KeysKnown is false in
	// a record resolved before names were recorded: such a file of a fine
	// scope depends on every change in it.
	Keys      string
	KeysKnown bool
	// Payload is the payloadHash of the file's last emitted payload.
	Payload string
	// impl and implKnown are a Go file's implements edges (implRecord).
	Impl      []ImplRecord
	ImplKnown bool
}

// Result is what one extractor found in one file, before resolution.
type Result struct {
	Path        string
	Extractor   string
	Hash        string
	Size        int64
	Nodes       []graph.Node
	Edges       []graph.Edge
	Refs        []Ref
	Decl        *Decl // nil for files that declare nothing resolvable
	ParseErrors []string
	DurationMS  float64
	// Spans are the hashes of the lines of the file's nodes, taken from
	// the content as extracted (HashSpans), for graph.FileExtracted
	// .SymbolHashes.
	Spans []SpanHash
}

func (r *Result) AddNode(n graph.Node) {
	if n.Extractor == "" {
		n.Extractor = r.Extractor
	}
	if n.Path == "" && n.Kind != graph.KindDependency && n.Kind != graph.KindExternal && n.Kind != graph.KindMCPServer && n.Kind != graph.KindModule {
		n.Path = r.Path
	}
	r.Nodes = append(r.Nodes, n)
}

func (r *Result) AddEdge(src, dst, typ string, line int) {
	r.Edges = append(r.Edges, graph.Edge{Source: src, Target: dst, Type: typ, Extractor: r.Extractor, Line: line})
}

func (r *Result) ParseError(msg string) {
	if len(r.ParseErrors) < MaxParseErrors {
		r.ParseErrors = append(r.ParseErrors, CleanString(msg))
	}
}

// MaxParseErrors bounds ParseErrors per file.
const MaxParseErrors = 10

// HeadingKindPrefix marks a heading in the declarations table; the level
// follows it ("heading:2").
const HeadingKindPrefix = "heading:"

// SelfLoop reports whether e joins a node to itself by any edge type but
// calls: such an edge is dropped (a class inheriting from itself, a file
// importing itself, a name resolved to its own declaration). A calls edge
// from a function to itself is kept: it is recursion, a real call, and
// "what calls f" lists f when f calls itself (as x/tools/go/callgraph
// does).
func SelfLoop(e graph.Edge) bool {
	return e.Source == e.Target && e.Type != graph.EdgeCalls
}
