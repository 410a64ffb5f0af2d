package python

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Python files (.py, .pyi) with tree-sitter. It needs
// Env.PyModules (Modules of the indexed files) to resolve imports.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorPython.
func (Extractor) Name() string { return lang.ExtractorPython }

// Owns reports whether p names a .py or .pyi file (any case).
func (Extractor) Owns(p string) bool {
	l := strings.ToLower(path.Base(p))
	return strings.HasSuffix(l, ".py") || strings.HasSuffix(l, ".pyi")
}

// Declares returns true: a module's functions, classes and methods are
// declared in its scope ("py:<module>").
func (Extractor) Declares() bool { return true }

// Provides returns the "missing:py:" scopes of the module names a file at
// p answers to (its dotted path and its module name).
func (Extractor) Provides(p string) []string {
	return []string{"missing:py:" + pyDotted(p), "missing:py:" + pyModuleName(p)}
}

// Extract parses data as Python (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
