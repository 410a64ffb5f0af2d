package rust

import (
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Rust files (.rs) with tree-sitter. It needs Env.Files
// to map modules to files (mod x; is x.rs or x/mod.rs) and to find each
// file's crate (the nearest Cargo.toml above it).
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorRust.
func (Extractor) Name() string { return lang.ExtractorRust }

// Owns reports whether p names a .rs file (any case).
func (Extractor) Owns(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".rs") }

// Declares returns true: a file's items and methods are declared in its
// scope ("rust:<path>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a mod declaration whose file is missing watches
// the file's path itself (lang.FileWatchScope).
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Rust (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
