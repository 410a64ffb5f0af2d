package extract

import (
	"os"
	"path/filepath"
)

// SeedCache gives the cache folder dir of root, when it holds no cache
// yet, the cache that fromDir holds for fromRoot, another checkout of the
// same repository whose extraction the graph holds (a linked worktree
// starts from its main worktree's): its first Run then extracts the files
// that differ and their dependents, not every file. The copy keeps the
// declarations, the Go modules and packages' records and the pending
// files; not the stat entries (the checkouts' files have their own
// modification times: each is read and hashed once). Roots are resolved
// as Run resolves them. It reports whether it wrote a cache; a source of
// another cache version, or none, is not copied (one of another Go build
// configuration is: Run finds it outdated, as it would the source).
// Like the cache itself, seeding is a performance aid: a seed that does
// not fit costs extraction time, never correctness.
func SeedCache(dir, root, fromDir, fromRoot string) (bool, error) {
	if dir == "" || fromDir == "" {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(dir, statCacheFile)); err == nil {
		return false, nil
	}
	root, fromRoot = realRoot(root), realRoot(fromRoot)
	var s statCache
	ok, err := readGob(fromDir, statCacheFile, &s)
	if err != nil || !ok || s.Version != cacheVersion || s.Root != fromRoot {
		return false, err
	}
	var d declCache
	ok, err = readGob(fromDir, declCacheFile, &d)
	if err != nil || !ok || d.Version != cacheVersion || d.Root != fromRoot {
		return false, err
	}
	s.Root, s.Stat = root, map[string]statEntry{}
	d.Root = root
	// The declarations first: a stat cache without them would be read
	// as a cache whose declarations are missing.
	if err := writeGob(dir, declCacheFile, &d); err != nil {
		return false, err
	}
	if err := writeGob(dir, statCacheFile, &s); err != nil {
		return false, err
	}
	return true, nil
}

// realRoot is root as Run records it: absolute, its symbolic links
// resolved; root itself when that fails.
func realRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
