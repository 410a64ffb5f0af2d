package scala

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Scala files (.scala, .sc) with tree-sitter.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorScala.
func (Extractor) Name() string { return lang.ExtractorScala }

// Owns reports whether p names a .scala or .sc file (any case).
func (Extractor) Owns(p string) bool {
	switch path.Ext(strings.ToLower(p)) {
	case ".scala", ".sc":
		return true
	}
	return false
}

// Declares returns true: a file's types and defs are declared in its
// package's scope ("scala:<package>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a new file changes its package's declarations,
// which re-extracts the files whose references looked into the package.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Scala (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
