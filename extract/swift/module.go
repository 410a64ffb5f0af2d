package swift

import (
	"reflect"
	"strings"
	"sync"

	"github.com/cos-dev/cos/extract/lang"
)

// moduleRoots are the SwiftPM folders whose subfolders are modules
// (targets).
var moduleRoots = map[string]bool{"Sources": true, "Tests": true}

// moduleOf returns the module of the file at p and its folder: the
// folder below the last Sources/ or Tests/ of the path; "" (and "")
// outside such a folder.
func moduleOf(p string) (name, dir string) {
	segs := strings.Split(p, "/")
	for i := len(segs) - 3; i >= 0; i-- {
		if moduleRoots[segs[i]] {
			return segs[i+1], strings.Join(segs[:i+2], "/")
		}
	}
	return "", ""
}

// moduleIndex maps each module of the tree to its folder (the first by
// path when two folders name one module).
type moduleIndex struct {
	files map[string]bool // the Env.Files it was built from
	dirs  map[string]string
}

// lastIndex caches the index of the last Env seen: every file of a run
// shares one Env, and building the index walks all its paths.
var (
	indexMu   sync.Mutex // guards lastIndex
	lastIndex *moduleIndex
)

// modules returns the module folders of env's files.
func modules(env *lang.Env) map[string]string {
	if env == nil || len(env.Files) == 0 {
		return nil
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	if lastIndex != nil && sameMap(lastIndex.files, env.Files) {
		return lastIndex.dirs
	}
	dirs := map[string]string{}
	for p := range env.Files {
		if !strings.HasSuffix(strings.ToLower(p), ".swift") {
			continue
		}
		if m, d := moduleOf(p); m != "" {
			if old, ok := dirs[m]; !ok || d < old {
				dirs[m] = d
			}
		}
	}
	lastIndex = &moduleIndex{files: env.Files, dirs: dirs}
	return dirs
}

// sameMap reports whether a and b are the same map of the same size
// (identity, which is what a run's shared Env gives, not equal contents).
func sameMap(a, b map[string]bool) bool {
	return len(a) == len(b) && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
