// Package ts is the tree-sitter glue the tree-sitter extractors share: a
// pool of parsers per grammar (Parse), node text, lines and children, a
// walk that can skip subtrees, and syntax errors turned into
// lang.Result.ParseError. It also points the tree-sitter core at the C
// allocator (tsalloc.go). Each language package loads its own grammar.
package ts
