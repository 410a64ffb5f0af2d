package graph

// Metadata keys that extractors set on nodes and edges and that the read
// tools interpret. A key absent from a node means "not known", never false.
const (
	// MetaExtraction is set on the code:file: node of every Go file: how
	// its edges were found, ExtractionTypes or ExtractionSyntax; and on the
	// file node of a file whose calls and references come from a SCIP
	// index (cos index --precise or --scip), ExtractionPrecise. A Python,
	// TypeScript or JavaScript file node without it was inferred from the
	// syntax.
	MetaExtraction = "extraction"
	// MetaIndexer names, beside MetaExtraction = ExtractionPrecise, the
	// SCIP indexer and its version ("scip-python 0.6.6").
	MetaIndexer = "indexer"
	// MetaPreciseDigest, beside MetaExtraction = ExtractionPrecise, is a
	// digest of the precise payload, so that an unchanged one is not
	// appended again.
	MetaPreciseDigest = "precise_digest"
	// MetaSCIPSymbol is the SCIP symbol of a declaration that a SCIP index
	// defines ("scip-python python cos 0 pkg.mod/Class#method().").
	MetaSCIPSymbol = "scip_symbol"
	// MetaLanguage is set on file nodes: "python", "js", "ts", "tsx", or
	// the language a SCIP document names.
	MetaLanguage = "language"
	// MetaFallback is set beside MetaExtraction = ExtractionSyntax: why the
	// file was not type-checked, one of the Fallback* reasons.
	MetaFallback = "fallback"
	// MetaFallbackDetail is the first error that caused a load or type
	// fallback, for people; not for matching.
	MetaFallbackDetail = "fallback_detail"
	// MetaGoWorkingTree ([]string, sorted) is set on the file node of a Go
	// file whose package imports, directly or not, packages of modules its
	// go.mod requires with no replace and that were read from their
	// working tree (another module of the same root, or of another root):
	// those module paths. Edges into them describe that tree as it is on
	// disk, not the version the go.mod requires.
	MetaGoWorkingTree = "go_working_tree"
	// MetaBuildExcluded (bool true) is set on the file node and every
	// declaration of a Go file that the current GOOS/GOARCH and build tags
	// leave out of the build.
	MetaBuildExcluded = "build_excluded"
	// MetaDynamicCalls (int) counts a function's call sites whose callee
	// is not static: calls through func-typed values (variables, fields,
	// parameters, results). Interface method calls are not counted: they
	// have an edge to the interface method. On a file node it counts the
	// package-level initialisers of that file.
	MetaDynamicCalls = "dynamic_calls"
	// MetaInferredSites (int) counts, on a function, method or class node
	// of a precise file, the call and reference sites in precise files
	// that reach it by an edge the extractor inferred, not one a SCIP
	// index gave: the index had nothing at the site (no occurrence of the
	// name, or a local symbol only), or could not tell which declaration
	// of a line holding several the site is in. An answer about the node
	// is then a lower bound.
	MetaInferredSites = "inferred_sites"
	// MetaInferred (bool true) marks a calls or references edge of a
	// precise file that the extractor inferred (see MetaInferredSites).
	MetaInferred = "inferred"
	// MetaReflectCalls (int) counts a function's calls of reflect's
	// dynamic invocation (Value.Call, Value.CallSlice, Value.Method,
	// Value.MethodByName, Type.Method, Type.MethodByName).
	MetaReflectCalls = "reflect_calls"
	// MetaExampleOutput (bool true) is set on a Go Example function whose
	// body ends with an output comment: go test runs it (an example
	// without one is compiled, not run).
	MetaExampleOutput = "example_output"
	// MetaMethodSet is set on implements edges: MethodSetValue when the
	// type T itself satisfies the interface, MethodSetPointer when only *T
	// does.
	MetaMethodSet = "method_set"
	// MetaFields lists, on an accesses_field edge, the field names used.
	MetaFields = "fields"
	// MetaTypeKind is set on class nodes of Go types: "struct",
	// "interface" or "type".
	MetaTypeKind = "type_kind"
)

// Values of MetaExtraction.
const (
	// ExtractionTypes: calls and references come from go/types; they are
	// exact for static calls.
	ExtractionTypes = "types"
	// ExtractionSyntax: from the syntax alone (a name-based guess); see
	// MetaFallback for why.
	ExtractionSyntax = "syntax"
	// ExtractionPrecise: calls and references come from a SCIP index
	// (a compiler-grade indexer resolved every symbol); MetaIndexer says
	// which.
	ExtractionPrecise = "precise"
)

// Values of MetaFallback.
const (
	// FallbackLoadError: the package could not be loaded (go list failed,
	// an import is missing, go is not installed).
	FallbackLoadError = "load_error"
	// FallbackGoUnavailable: no go command on the indexer's PATH, so no
	// package was listed or type-checked.
	FallbackGoUnavailable = "go_unavailable"
	// FallbackTypeError: the package loaded but did not type-check.
	FallbackTypeError = "type_error"
	// FallbackSyntaxError: a file of the package does not parse (the
	// package is not type-checked).
	FallbackSyntaxError = "syntax_error"
	// FallbackBuildExcluded: the file is left out of the build by its
	// build constraints or file name (foo_windows.go on linux).
	FallbackBuildExcluded = "build_excluded"
	// FallbackIncompletePackage is set on the typed files of a package one
	// of whose files is in the tree but not indexed (over the size limit,
	// ignored or unreadable): that file's callers and declarations are
	// missing. The file itself keeps MetaExtraction "types".
	FallbackIncompletePackage = "incomplete_package"
	// FallbackNotInPackage: no package loaded by go list holds the file
	// (testdata, a folder go ignores, a file of a nested module that failed
	// to list).
	FallbackNotInPackage = "not_in_package"
)

// Values of MetaMethodSet.
const (
	MethodSetValue   = "value"
	MethodSetPointer = "pointer"
)

// LowerBoundFallback reports whether a file's syntax fallback reason makes
// the callers found in the graph a lower bound: a load, type or syntax
// error means compiled code was read without types. Build-excluded files and files in
// no package are not compiled on this platform, so they do not.
func LowerBoundFallback(reason string) bool {
	return reason == FallbackLoadError || reason == FallbackGoUnavailable || reason == FallbackTypeError || reason == FallbackSyntaxError || reason == FallbackIncompletePackage
}
