package extract

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
)

// cacheVersion changes whenever the cache layout or what extractors emit
// changes, so that an old cache is ignored rather than trusted.
const cacheVersion = 1

// cacheFile is the name of the cache inside Options.CacheDir.
const cacheFile = "extract-cache.gob"

// statEntry remembers a file's hash for its size and modification time.
type statEntry struct {
	Size    int64
	ModTime int64
	Hash    string
	Binary  bool
}

// cache is what Run keeps between runs under Options.CacheDir. It is a
// performance aid only: a missing, stale or corrupt cache costs time (every
// file read and hashed, unchanged files parsed for their declarations), never
// correctness.
type cache struct {
	Version int
	Root    string
	Stat    map[string]statEntry // path → stat and hash
	Decls   map[string]*decl     // path → declarations at Decls[path].Hash
	Modules map[string]string    // go.mod folder → module path
}

func newCache(root string) *cache {
	return &cache{Version: cacheVersion, Root: root, Stat: map[string]statEntry{}, Decls: map[string]*decl{}, Modules: map[string]string{}}
}

// loadCache reads the cache of root from dir; any problem yields an empty
// cache and a non-nil error to log.
func loadCache(dir, root string) (*cache, error) {
	if dir == "" {
		return newCache(root), nil
	}
	f, err := os.Open(filepath.Join(dir, cacheFile))
	if os.IsNotExist(err) {
		return newCache(root), nil
	}
	if err != nil {
		return newCache(root), fmt.Errorf("open extract cache: %w", err)
	}
	defer f.Close()
	var c cache
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&c); err != nil {
		return newCache(root), fmt.Errorf("decode extract cache: %w", err)
	}
	if c.Version != cacheVersion || c.Root != root {
		return newCache(root), nil
	}
	if c.Stat == nil {
		c.Stat = map[string]statEntry{}
	}
	if c.Decls == nil {
		c.Decls = map[string]*decl{}
	}
	if c.Modules == nil {
		c.Modules = map[string]string{}
	}
	return &c, nil
}

// save writes the cache durably: temp file, fsync, rename.
func (c *cache) save(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save extract cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, cacheFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("save extract cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := gob.NewEncoder(w).Encode(c); err != nil {
		tmp.Close()
		return fmt.Errorf("encode extract cache: %w", err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("save extract cache: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save extract cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save extract cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, cacheFile)); err != nil {
		return fmt.Errorf("save extract cache: %w", err)
	}
	return nil
}
