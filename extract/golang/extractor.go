package golang

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Go files at the syntax level (go/parser), one file at a
// time. Package extract replaces its results with the type-checked ones of
// the go/packages driver for every package that loads, and keeps them for
// the files that do not (build-constrained, broken or outside any module).
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorGo.
func (Extractor) Name() string { return lang.ExtractorGo }

// Owns reports whether p names a .go file (any case).
func (Extractor) Owns(p string) bool {
	return strings.HasSuffix(strings.ToLower(path.Base(p)), ".go")
}

// Declares returns true: functions, types and methods are declared in the
// package's scope ("go:<dir>").
func (Extractor) Declares() bool { return true }

// Provides returns nil: a Go import names a package, whose folder the
// runner watches through the Go modules.
func (Extractor) Provides(string) []string { return nil }

// Extract parses data as Go source (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) {
	extract(r, lang.SourceText(data), env.Modules)
}
