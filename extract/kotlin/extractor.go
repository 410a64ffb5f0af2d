package kotlin

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Kotlin files (.kt, .kts) with tree-sitter. Gradle's
// build.gradle.kts and settings.gradle.kts are the manifest extractor's,
// which the registry asks first.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorKotlin.
func (Extractor) Name() string { return lang.ExtractorKotlin }

// Owns reports whether p names a .kt or .kts file (any case).
func (Extractor) Owns(p string) bool {
	b := strings.ToLower(path.Base(p))
	return strings.HasSuffix(b, ".kt") || strings.HasSuffix(b, ".kts")
}

// Declares returns true: a file's classes and functions are declared in
// its package's scope ("kt:<package>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a new file changes its package's declarations,
// which re-extracts the files whose references looked into the package.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Kotlin (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
