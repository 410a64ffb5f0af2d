package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestRun_OnlyEqualsFull edits a tree (edit, create, delete, rename, a file
// replaced by a folder, a folder replaced by a file, a folder deleted, a
// file created where .gitignore or an excluded folder hides it) and runs a
// targeted run naming just the paths touched: the graph it builds equals a
// full extraction of the final tree.
func TestRun_OnlyEqualsFull(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "golang"))
	writeFile(t, root, "py/pkg/__init__.py", []byte(""))
	writeFile(t, root, "py/pkg/base.py", []byte("class Base:\n    def greet(self):\n        return 1\n"))
	writeFile(t, root, "py/main.py", []byte("from pkg.base import Base\n\ndef main():\n    Base().greet()\n"))
	writeFile(t, root, "py/gone/a.py", []byte("def a():\n    return 1\n"))
	writeFile(t, root, "py/gone/b.py", []byte("def b():\n    return 2\n"))
	writeFile(t, root, "py/later", []byte("a file that becomes a folder\n"))
	writeFile(t, root, "py/folder/x.py", []byte("def x():\n    return 3\n"))
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))

	rm := func(rel string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	// edit (a declaration other files resolve against)
	writeFile(t, root, "py/pkg/base.py", []byte("class Base:\n    def hello(self):\n        return 1\n"))
	writeFile(t, root, "util/listen.go", []byte("package util\n\nfunc (s *Server) listen() {}\n\n// Close closes.\nfunc (s *Server) Close() {}\n\nfunc validate(addr string) error { return nil }\n\nfunc Extra() {}\n"))
	// create
	writeFile(t, root, "py/pkg/new.py", []byte("from .base import Base\n\ndef make():\n    return Base()\n"))
	// delete
	rm("py/gone/b.py")
	// rename
	if err := os.Rename(filepath.Join(root, "py/gone/a.py"), filepath.Join(root, "py/renamed.py")); err != nil {
		t.Fatal(err)
	}
	// a file replaced by a folder, a folder by a file
	rm("py/later")
	writeFile(t, root, "py/later/inside.py", []byte("def inside():\n    return 4\n"))
	rm("py/folder")
	writeFile(t, root, "py/folder", []byte("now a file\n"))
	// ignored and excluded creations
	writeFile(t, root, "ignored/skip.py", []byte("def skip():\n    return 5\n"))
	writeFile(t, root, "util/x.gen.go", []byte("package util\n\nfunc Gen() {}\n"))
	writeFile(t, root, "node_modules/m/index.js", []byte("export function m() {}\n"))

	only := opts
	only.Only = []string{"py/pkg/base.py", "util/listen.go", "py/pkg/new.py", "py/gone/b.py", "py/gone/a.py",
		"py/renamed.py", "py/later", "py/folder", "ignored/skip.py", "ignored", "util/x.gen.go", "node_modules/m/index.js",
		"py/gone/b.py"} // a duplicate is harmless
	res := index(t, root, only, hashes(g))
	g.apply(res)
	full := index(t, root, Options{}, nil)
	if got, want := render(g), render(full.Payloads); got != want {
		t.Fatalf("targeted graph differs from a full extraction:\n%s", diffLines(want, got))
	}

	// A file the run is not told about is taken as the cache records it:
	// not read, not even stat'ed, so its change waits for a run that names
	// it (or a full one).
	writeFile(t, root, "py/main.py", []byte("def main():\n    return 0\n"))
	quiet := index(t, root, Options{CacheDir: opts.CacheDir, Only: []string{"py/pkg/new.py"}}, hashes(g))
	if len(quiet.Payloads) != 0 || len(quiet.Removed) != 0 {
		t.Fatalf("a targeted run naming an unchanged file emitted %v, removed %v; want nothing", keys(quiet.Payloads), quiet.Removed)
	}
	named := index(t, root, Options{CacheDir: opts.CacheDir, Only: []string{"py/main.py"}}, hashes(g))
	if _, ok := named.Payloads["py/main.py"]; !ok {
		t.Fatalf("a targeted run naming py/main.py emitted %v", keys(named.Payloads))
	}
	// It counts as seen what it looked at, not the whole tree.
	if named.Stats.FilesSeen != 1 {
		t.Fatalf("a targeted run of one file saw %d files, want 1", named.Stats.FilesSeen)
	}
	folder := index(t, root, Options{CacheDir: opts.CacheDir, Only: []string{"py/pkg"}}, hashes(g))
	if folder.Stats.FilesSeen != 3 || full.Stats.FilesSeen <= 3 {
		t.Fatalf("a targeted run of py/pkg saw %d files (full run %d), want 3", folder.Stats.FilesSeen, full.Stats.FilesSeen)
	}
}

// TestRun_OnlyRejectsBadPaths: an Only path that is empty, absolute, the
// root or leads out of it is refused (ErrOptions) before anything is read.
func TestRun_OnlyRejectsBadPaths(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.py", []byte("x = 1\n"))
	for _, p := range []string{"", "/etc/passwd", ".", "..", "../x", "a/../../x"} {
		emitted := false
		_, err := Run(context.Background(), root, Options{Only: []string{p}}, nil, func([]graph.FileExtracted, []string) error {
			emitted = true
			return nil
		})
		if !errors.Is(err, ErrOptions) || emitted {
			t.Errorf("Only %q: err %v, emitted %v; want ErrOptions and nothing emitted", p, err, emitted)
		}
	}
}
