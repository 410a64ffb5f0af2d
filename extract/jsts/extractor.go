package jsts

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads JavaScript and TypeScript files (.js, .jsx, .mjs, .cjs,
// .ts, .mts, .cts, .tsx) with tree-sitter.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorJSTS.
func (Extractor) Name() string { return lang.ExtractorJSTS }

// Owns reports whether p names a file of a JavaScript or TypeScript
// dialect (see Dialect).
func (Extractor) Owns(p string) bool { return Dialect(strings.ToLower(path.Base(p))) != "" }

// Declares returns true: a file's functions, classes, interfaces and
// exports are declared in its scope ("js:<path>").
func (Extractor) Declares() bool { return true }

// Provides returns the "missing:js:" scopes of the import specifiers that
// resolve to a file at p: p without each extension of jsResolveExts it
// ends with, p with .js for a TypeScript file, and p itself.
func (Extractor) Provides(p string) []string {
	var keys []string
	for _, ext := range jsResolveExts {
		if ext != "" && strings.HasSuffix(p, ext) {
			keys = append(keys, "missing:js:"+strings.TrimSuffix(p, ext))
		}
	}
	if stem, ok := strings.CutSuffix(p, ".ts"); ok {
		keys = append(keys, "missing:js:"+stem+".js")
	} else if stem, ok := strings.CutSuffix(p, ".tsx"); ok {
		keys = append(keys, "missing:js:"+stem+".js")
	}
	return append(keys, "missing:js:"+p)
}

// Extract parses data as JavaScript or TypeScript (see extract).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }
