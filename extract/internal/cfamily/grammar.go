package cfamily

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
)

// The grammars, loaded once.
var (
	languageC   = sitter.NewLanguage(tsc.Language())
	languageCPP = sitter.NewLanguage(tscpp.Language())
)
