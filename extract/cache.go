package extract

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cos-dev/cos/extract/lang"
)

// cacheVersion changes whenever the cache layout or what extractors emit
// changes, so that an old cache is ignored rather than trusted. 6: a C or
// C++ include records the watch of its file name even when it was found
// (a header added or removed re-extracts the files including that name).
const cacheVersion = 6

// File names of the cache inside Options.CacheDir. The stat cache is read on
// every run; the declarations cache only when something changed.
const (
	statCacheFile = "extract-stat.gob"
	declCacheFile = "extract-decls.gob"
)

// statEntry remembers a file's hash for its size and modification time.
// Hashed is when the content was read (Unix ns, taken before the read): an
// entry whose ModTime is within RacyWindow of it is not trusted, because a
// write in the same timestamp tick can change the content and leave size
// and time as they were ("racy git"). 0 (a cache written before the field)
// is never trusted: the file is read once more.
type statEntry struct {
	Size    int64
	ModTime int64
	Hash    string
	Binary  bool
	Hashed  int64
}

// RacyWindow is how close to the moment a file was read its modification
// time may be for a stat match to be trusted: within it, the file is read
// and hashed again. It covers the coarsest timestamps of common file
// systems (FAT's 2 s; ext4 and APFS tick in milliseconds or less).
const RacyWindow = 2 * time.Second

// trusted reports whether e proves, without a read, that a file whose stat
// is size and mtime still has e.Hash.
func (e statEntry) trusted(size, mtime int64) bool {
	return e.Size == size && e.ModTime == mtime && e.Hashed != 0 && mtime+int64(RacyWindow) <= e.Hashed
}

// statCache is the content of statCacheFile.
type statCache struct {
	Version int
	Root    string
	Stat    map[string]statEntry // path → stat and hash
	Modules map[string]string    // go.mod folder → module path
	// Build is the goBuildKey the cache was written under.
	Build string
	// Pending are files an interrupted run had extracted again as
	// dependents (their content unchanged) but not emitted: the next run
	// extracts them again as dependents whatever changed.
	Pending []string
}

// declCache is the content of declCacheFile.
type declCache struct {
	Version int
	Root    string
	Decls   map[string]lang.DeclRecord // path → declarations at Decls[path].Hash
	// Interfaces is the digest of the tree's Go interfaces when the graph
	// was last extracted (see treeInterfaces), and GoInterfaces the record
	// of each, by uid.
	Interfaces   string
	GoInterfaces map[string]ifaceRecord
	// GoMethods maps the import path of each Go package of the tree to
	// the method names of its named types (methodNames); nil until a run
	// extracted every package.
	GoMethods map[string][][]string
	// Shapes maps each Go package of the tree (go list ID) to its
	// shapeDigest when it was last extracted.
	Shapes map[string]string
	// GoDirs maps each folder of the tree holding Go packages to their
	// import paths, so that the importers of a package whose folder
	// vanished are found.
	GoDirs map[string][]string
}

// cache is what Run keeps between runs under Options.CacheDir. It is a
// performance aid only: a missing, stale or corrupt cache costs time (every
// file read and hashed, unchanged files parsed for their declarations, every
// dependent of a changed file re-extracted), never correctness.
type cache struct {
	dir, root string
	stat      statCache
	decls     *declCache // nil until loadDecls
	// outdated is set when the stat cache of this root was written with
	// another cacheVersion or build configuration: the extractors or the
	// Go build changed since.
	outdated bool
	build    string // goBuildKey of this run
}

// loadCache reads the stat cache of root from dir; any problem yields an
// empty cache and a non-nil error to log. A cache written with another
// cacheVersion or another build configuration (build) is outdated: it is
// not used, and what the graph holds was extracted under other rules.
func loadCache(dir, root, build string) (*cache, error) {
	c := &cache{dir: dir, root: root, build: build, stat: statCache{Version: cacheVersion, Root: root, Build: build, Stat: map[string]statEntry{}, Modules: map[string]string{}}}
	var s statCache
	ok, err := readGob(dir, statCacheFile, &s)
	c.outdated = ok && s.Root == root && (s.Version != cacheVersion || s.Build != build)
	if ok && !c.outdated && s.Version == cacheVersion && s.Root == root && s.Stat != nil {
		if s.Modules == nil {
			s.Modules = map[string]string{}
		}
		c.stat = s
	}
	return c, err
}

// loadDecls reads the declarations cache on first use; an outdated cache
// starts empty.
func (c *cache) loadDecls() (*declCache, error) {
	if c.decls != nil {
		return c.decls, nil
	}
	c.decls = &declCache{Version: cacheVersion, Root: c.root, Decls: map[string]lang.DeclRecord{}}
	if c.outdated {
		return c.decls, nil
	}
	var d declCache
	ok, err := readGob(c.dir, declCacheFile, &d)
	if ok && d.Version == cacheVersion && d.Root == c.root && d.Decls != nil {
		c.decls = &d
	}
	return c.decls, err
}

// readGob decodes dir/name into v; false when there is no such file or it
// does not decode.
func readGob(dir, name string, v any) (bool, error) {
	if dir == "" {
		return false, nil
	}
	f, err := os.Open(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(v); err != nil {
		return false, fmt.Errorf("decode %s: %w", name, err)
	}
	return true, nil
}

// saveStat and saveDecls write the cache: temp file, rename. There is no
// fsync: a cache torn by a crash fails to decode and is ignored.
func (c *cache) saveStat() error { return writeGob(c.dir, statCacheFile, &c.stat) }

func (c *cache) saveDecls() error {
	if c.decls == nil {
		return nil
	}
	return writeGob(c.dir, declCacheFile, c.decls)
}

func writeGob(dir, name string, v any) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // fails harmlessly after the rename
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := gob.NewEncoder(w).Encode(v); err != nil {
		tmp.Close()
		return fmt.Errorf("encode %s: %w", name, err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	return nil
}

// sortedPaths returns the keys of m in order.
func sortedPaths[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
