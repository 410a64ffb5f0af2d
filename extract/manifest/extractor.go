package manifest

import (
	"path"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads dependency manifests and MCP server registries (see
// IsManifest). It must come before config.Extractor in the registry: a
// package.json is a manifest whose config keys it also reads.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorManifest.
func (Extractor) Name() string { return lang.ExtractorManifest }

// Owns reports whether p's base name is a manifest (IsManifest).
func (Extractor) Owns(p string) bool { return IsManifest(path.Base(p)) }

// Declares returns true: a Cargo.toml declares its crate's name (scope
// "cargo:<name>"), through which Rust files of the tree find the crate;
// the other manifests declare nothing.
func (Extractor) Declares() bool { return true }

// Provides returns nil.
func (Extractor) Provides(string) []string { return nil }

// Extract reads data as a manifest (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) {
	extract(r, lang.SourceText(data), env)
}
