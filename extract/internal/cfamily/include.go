package cfamily

import (
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/cos-dev/cos/extract/lang"
)

// includeDirs caches the include folders of the last Env seen (one index
// run uses one Env).
var includeDirs struct {
	sync.Mutex
	files map[string]bool
	dirs  []string
}

// IncludeDirs returns the folders of the tree named "include", shortest
// path first, then by name.
func IncludeDirs(env *lang.Env) []string {
	if env == nil || env.Files == nil {
		return nil
	}
	includeDirs.Lock()
	defer includeDirs.Unlock()
	if includeDirs.files != nil && sameMap(includeDirs.files, env.Files) {
		return includeDirs.dirs
	}
	seen := map[string]bool{}
	var dirs []string
	for p := range env.Files {
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if path.Base(d) == "include" && !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	sort.Slice(dirs, func(i, j int) bool {
		if len(dirs[i]) != len(dirs[j]) {
			return len(dirs[i]) < len(dirs[j])
		}
		return dirs[i] < dirs[j]
	})
	includeDirs.files, includeDirs.dirs = env.Files, dirs
	return dirs
}

// sameMap reports whether a and b are the same map (not equal contents).
func sameMap(a, b map[string]bool) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// ResolveInclude finds the in-tree file #include name (as written, without
// quotes) from the file from refers to: in from's folder, then in the
// folders the compilation database's include flags give from (or, for a
// file it does not compile, any of its sources: env.CIncludePaths, see
// IncludePaths), then at the tree's root, then in each folder named
// "include" (IncludeDirs).
func ResolveInclude(from, name string, env *lang.Env) (string, bool) {
	if env == nil || env.Files == nil || strings.HasPrefix(name, "/") {
		return "", false
	}
	try := func(dir string) (string, bool) {
		p := path.Clean(path.Join(dir, name))
		if strings.HasPrefix(p, "../") || p == ".." {
			return "", false
		}
		return p, env.Files[p]
	}
	if p, ok := try(path.Dir(from)); ok {
		return p, true
	}
	if env.CIncludePaths != nil {
		dirs, ok := env.CIncludePaths[from]
		if !ok {
			dirs = env.CIncludePaths[""]
		}
		for _, d := range dirs {
			if p, ok := try(d); ok {
				return p, true
			}
		}
	}
	if p, ok := try("."); ok {
		return p, true
	}
	for _, d := range IncludeDirs(env) {
		if p, ok := try(d); ok {
			return p, true
		}
	}
	return "", false
}

// IsCPPSource reports whether p names a C++ source file (.cc, .cpp, .cxx,
// .c++, any case).
func IsCPPSource(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".cc", ".cpp", ".cxx", ".c++":
		return true
	}
	return false
}

// IsCPPHeader reports whether p names a header only C++ uses (.hh, .hpp,
// .hxx, .h++, .inl).
func IsCPPHeader(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".hh", ".hpp", ".hxx", ".h++", ".inl":
		return true
	}
	return false
}

// cppTrees caches whether the last Env's files hold a C++ source.
var cppTrees struct {
	sync.Mutex
	files map[string]bool
	cpp   bool
}

// HeaderDialect is the dialect of a .h file: C++ when the tree holds a
// C++ source file (IsCPPSource), C otherwise (and without an Env).
func HeaderDialect(env *lang.Env) Dialect {
	if env == nil || env.Files == nil {
		return C
	}
	cppTrees.Lock()
	defer cppTrees.Unlock()
	if cppTrees.files == nil || !sameMap(cppTrees.files, env.Files) {
		cppTrees.files, cppTrees.cpp = env.Files, false
		for p := range env.Files {
			if IsCPPSource(p) {
				cppTrees.cpp = true
				break
			}
		}
	}
	if cppTrees.cpp {
		return CPP
	}
	return C
}
