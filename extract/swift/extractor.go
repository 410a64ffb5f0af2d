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

// Provides returns "missing:swift:<Module>" for a file of a SwiftPM module
// folder (Sources/<Module>/…): a file that imported the module before the
// tree had it re-extracts, its import now in-tree. Other files of a module
// change its declarations, which re-extracts the files that looked into it.
func (Extractor) Provides(p string) []string {
	if m, _ := moduleOf(p); m != "" {
		return []string{missingScope + m}
	}
	return nil
}

// missingScope prefixes the watch scope of an import of a module the tree
// does not have.
const missingScope = "missing:swift:"

// Extract parses data as Swift (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
