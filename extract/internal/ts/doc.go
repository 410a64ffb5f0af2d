// Package ts is the tree-sitter glue the tree-sitter extractors share: a
// pool of parsers per grammar (Parse), node text, lines, kinds, fields and
// children, walks that can skip subtrees (WalkSkip, WalkSym, WalkKind),
// and syntax errors turned into lang.Result.ParseError. It also points the
// tree-sitter core at the C allocator (tsalloc.go). Each language package
// loads its own grammar.
//
// Every call through cgo costs more than the work it does in the core, so
// the walks read a subtree 512 nodes at a time, with each node's kind, in
// one call per chunk, never reading into a skipped subtree past its chunk
// (flat.go: a walk nested in a visitor costs what it visits), and Kind, Field, Line and Text make one call or none where
// go-tree-sitter's methods make two or three. Prefer them to the
// sitter.Node methods in per-node code.
package ts
