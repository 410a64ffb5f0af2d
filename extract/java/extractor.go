package java

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Java files (.java) with tree-sitter.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorJava.
func (Extractor) Name() string { return lang.ExtractorJava }

// Owns reports whether p names a .java file (any case).
func (Extractor) Owns(p string) bool {
	return strings.HasSuffix(strings.ToLower(path.Base(p)), ".java")
}

// Declares returns true: a file's classes and methods are declared in its
// package's scope ("java:<package>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a new file changes its package's declarations,
// which re-extracts the files whose references looked into the package.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Java (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
