package cpp

import (
	"path"

	"github.com/cos-dev/cos/extract/internal/cfamily"
	"github.com/cos-dev/cos/extract/lang"
)

// Extractor reads C++ sources and headers (but .h, see package c).
type Extractor struct{}

var _ lang.Extractor = Extractor{}

// Name returns lang.ExtractorCPP.
func (Extractor) Name() string { return lang.ExtractorCPP }

// Owns reports whether p names a C++ source or header by its extension
// (any case): .cc, .cpp, .cxx, .c++, .hh, .hpp, .hxx, .h++, .inl; or a
// CMakeLists.txt (config nodes for its project and targets).
func (Extractor) Owns(p string) bool {
	return cfamily.IsCPPSource(p) || cfamily.IsCPPHeader(p) || cfamily.IsCMake(p)
}

// Declares returns true: functions, classes and methods are declared in
// the one C/C++ scope.
func (Extractor) Declares() bool { return true }

// Provides returns the scope an #include of p's file name watches, found
// or not: adding or removing p may change where it leads.
func (Extractor) Provides(p string) []string {
	return []string{cfamily.WatchScope(path.Base(p))}
}

// Extract parses data as C++ (a CMakeLists.txt with cfamily.ExtractCMake).
func (Extractor) Extract(r *lang.Result, data []byte, env *lang.Env) {
	if cfamily.IsCMake(r.Path) {
		cfamily.ExtractCMake(r, data)
		return
	}
	cfamily.Extract(r, data, env, cfamily.CPP)
}
