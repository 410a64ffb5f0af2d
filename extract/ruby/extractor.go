package ruby

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads Ruby files with tree-sitter.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorRuby.
func (Extractor) Name() string { return lang.ExtractorRuby }

// Owns reports whether p names a .rb, .rake or .ru file or a Rakefile.
func (Extractor) Owns(p string) bool {
	base := path.Base(p)
	switch strings.ToLower(path.Ext(base)) {
	case ".rb", ".rake", ".ru":
		return true
	}
	return base == "Rakefile"
}

// Declares returns true: classes, modules, methods and functions are
// declared in the scope "rb:".
func (Extractor) Declares() bool { return true }

// Provides returns the "missing:rb:<p>" scope a require that found no
// file watches.
func (Extractor) Provides(p string) []string { return []string{missingScope(p)} }

// Extract parses data as Ruby (see the package doc).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) { extract(r, data, env) }

func missingScope(p string) string { return "missing:rb:" + p }
