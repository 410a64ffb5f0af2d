package php

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads PHP files with tree-sitter. It uses Env.Files and
// Env.PHPAutoload (Autoload) to map use imports to files.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorPHP.
func (Extractor) Name() string { return lang.ExtractorPHP }

// Owns reports whether p names a .php, .phtml or .inc file (any case).
func (Extractor) Owns(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".php", ".phtml", ".inc":
		return true
	}
	return false
}

// Declares returns true: a file's classes, functions and methods are
// declared in its namespace's scope ("php:<namespace>").
func (Extractor) Declares() bool { return true }

// Provides returns the "missing:php:<p>" scope a use import or an include
// that found no file watches.
func (Extractor) Provides(p string) []string { return []string{missingScope(p)} }

// Extract parses data as PHP (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }

// missingScope is the watch scope of a file an import looked for in vain.
func missingScope(p string) string { return "missing:php:" + p }
