package swift

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Swift files (.swift) with tree-sitter. Package.swift is
// a manifest (package manifest) and is not read here.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorSwift.
func (Extractor) Name() string { return lang.ExtractorSwift }

// Owns reports whether p names a .swift file (any case).
func (Extractor) Owns(p string) bool {
	return strings.HasSuffix(strings.ToLower(path.Base(p)), ".swift")
}

// Declares returns true: a file's types and functions are declared in its
// module's scope ("swift:<Module>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a new file changes its module's declarations,
// which re-extracts the files whose references looked into the module.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Swift (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
