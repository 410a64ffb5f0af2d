package csharp

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads C# files (.cs, .csx) with tree-sitter.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorCSharp.
func (Extractor) Name() string { return lang.ExtractorCSharp }

// Owns reports whether p names a .cs or .csx file (any case).
func (Extractor) Owns(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.HasSuffix(b, ".cs") || strings.HasSuffix(b, ".csx")
}

// Declares returns true: a file's types and members are declared in its
// namespace's scope ("cs:<namespace>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a new file changes its namespace's declarations,
// which re-extracts the files whose references looked into it.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as C# (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
