// Package swift is the tree-sitter grammar of Swift (alex-pinkus's
// tree-sitter-swift), vendored as generated C sources because no Go module
// of it compatible with the go-tree-sitter runtime is served; see
// PROVENANCE.md for where the files come from and their checksums.
//
// Language returns the grammar for sitter.NewLanguage. The C sources take
// about 20 s to compile from an empty build cache on one core.
package swift
