// Package scip reads SCIP indexes (github.com/sourcegraph/scip), the
// symbol-accurate output of compiler-grade indexers such as scip-python
// (pyright) and scip-typescript (tsc), with the SCIP project's own Go
// bindings, and merges them into the extractors' payloads: the files an
// index covers get calls and references edges resolved by a type checker
// instead of inferred from the syntax ("precise" files). It works on the
// payloads of the Python, JavaScript/TypeScript, Java, Scala, C, C++, Rust,
// C#, PHP and Ruby extractors (an index from any SCIP indexer: scip-java,
// scip-clang, rust-analyzer, scip-dotnet, scip-php, scip-ruby) and on the files cos does not parse, whose nodes it
// makes from the index (see Mergeable).
//
// # Basics
//
//	x, err := scip.Open("index.scip", root)        // or Place(idx, root)
//	res := scip.Merge(root, payloads, x)           // payloads edited in place
//	// res.Precise: the paths made precise; res.Skipped: documents not applied
//
// RunIndexer runs scip-python or scip-typescript over a folder, offline
// (see its doc), and Find locates them on PATH or in a folder.
//
// # Mapping
//
// Uids stay the extractors'; a SCIP symbol only picks one. A definition
// occurrence of a global symbol whose last descriptor is a type (C#), a
// method (m().) or a term (x.) maps to the node of the same file whose
// lines hold the definition and whose label's last segment (after the last
// ".") is the descriptor's name, the smallest such; the first definition
// that maps wins, and the node's metadata keeps the symbol (scip_symbol).
// A TypeScript constructor (C#`<constructor>`().), a Java one
// (C#`<init>`().) or a C# one (scip-dotnet's C#`.ctor`().) maps to its
// class when referenced: new C() is a call of the class, as C() is in
// Python. A
// reference with no definition of its exact symbol is looked up without
// its package when one uid only has that (a tree that is a library is
// referred to under two packages: see definitions). An alias maps to what
// it names: a Python module-level name = dotted.name (isfuture =
// base_futures.isfuture: calling isfuture calls base_futures.isfuture), a
// name an import or export list renames (export { _regex as regex }).
//
// Every other occurrence of a mapped symbol is an edge from the innermost
// node holding its line (a function, a method, a class for code in a class
// body; the file for module-level code; a node also holds the enclosing
// ranges of its symbol's further definitions, such as an overload's
// implementation) to the symbol's node. Where several nodes begin or end
// on the line (function a(){b()}function b(){}), lines cannot tell, and
// the enclosing ranges of the nodes' definitions (line and column) pick
// the innermost one holding the occurrence; without them the caller is not
// known, and the line keeps its inferred edges. The edge is calls when the
// name is followed by "(" (after a non-null !, type arguments <…> or ?. in
// TypeScript) or preceded by new, references otherwise; where a merged
// declaration (interface C and function C) has an occurrence of both at
// one place, only the callable one is called. Left out: references in
// import statements and export lists (read from the text), and a node's
// references to itself.
//
// The inferred calls and references of a precise file go where the index
// says what is at their site (the callee's name on the edge's line). They
// stay where it says nothing: no occurrence of the name there, or a local
// symbol only (scip-typescript names a prototype method,
// Animal.prototype.speak = function…, with a local symbol; scip-python
// does so for members it cannot place). Such a kept edge is marked
// inferred, and each site is counted on the node it reaches
// (graph.MetaInferredSites, Result.InferredSites): the index did not cover
// it, so the node's answers are lower bounds. A call to a stub stays when
// the index resolved nothing at its site (a receiver of unknown type, x.m()
// with x untyped). So a precise graph still counts the call sites no type
// checker resolved, which is what makes an answer a lower bound. Other
// edges (contains, imports, inherits_from, …) are the extractor's.
//
// # Caveats
//
// An index describes the files as they were when it was made. Merge reads
// each file again and applies a document only when the file's bytes are
// those extracted (ReasonChanged) and the document's definitions name what
// the file has at their places (ReasonStale); the file then keeps its
// inferred edges. A file of a language cos does not parse (the file
// extractor: Java, C#, Ruby, Rust, C++) gets its class, function and
// method nodes from the index's definitions. Go files are never touched:
// they are type-checked already. The call test reads one line: a call
// whose "(" is on the next line is a reference.
package scip
