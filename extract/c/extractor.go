package c

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/cfamily"
	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads C sources and headers.
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorC.
func (Extractor) Name() string { return lang.ExtractorC }

// Owns reports whether p names a .c or .h file (any case).
func (Extractor) Owns(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".c", ".h":
		return true
	}
	return false
}

// Declares returns true: functions, types and methods are declared in
// the one C/C++ scope.
func (Extractor) Declares() bool { return true }

// Provides returns the scope an #include of p's file name watches, found
// or not: adding or removing p may change where it leads.
func (Extractor) Provides(p string) []string {
	return []string{cfamily.WatchScope(path.Base(p))}
}

// Extract parses data as C, or as C++ for a .h file of a tree with C++
// sources (cfamily.HeaderDialect).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) {
	d := cfamily.C
	if cfamily.IsHeader(r.Path) {
		d = cfamily.HeaderDialect(env)
	}
	cfamily.Extract(r, data, env, d)
}
