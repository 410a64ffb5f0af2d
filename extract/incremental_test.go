package extract

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// simGraph applies payloads the way the graph projection does: a payload
// replaces what its path held, a removed path drops it.
type simGraph map[string]graph.FileExtracted

func (g simGraph) apply(r indexResult) {
	for p, pl := range r.Payloads {
		g[p] = pl
	}
	for _, p := range r.Removed {
		delete(g, p)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRun_Incremental edits the Go fixture step by step and checks, after
// each step, which files were emitted and removed, and that the graph the
// events build has no dangling edge. The Go files of the touched package
// and its importers are type-checked again, but only those whose payload
// changed are emitted: moving validate between files of util changes only
// util's files; renaming listen.go changes the callers of Server.Close.
func TestRun_Incremental(t *testing.T) {
	for _, withCache := range []bool{true, false} {
		name := "cache"
		if !withCache {
			name = "no_cache"
		}
		t.Run(name, func(t *testing.T) {
			root := copyTree(t, filepath.Join("testdata", "golang"))
			opts := Options{}
			if withCache {
				opts.CacheDir = t.TempDir()
			}
			g := simGraph{}
			first := index(t, root, opts, nil)
			g.apply(first)
			if first.Stats.FilesChanged != len(first.Payloads) || first.Stats.FilesChanged == 0 {
				t.Fatalf("first run: changed %d, payloads %d", first.Stats.FilesChanged, len(first.Payloads))
			}
			future := time.Now().Add(time.Hour)
			steps := []struct {
				name        string
				do          func()
				wantEmitted []string
				wantRemoved []string
			}{
				{"no change", func() {}, nil, nil},
				{"touch", func() {
					if err := os.Chtimes(filepath.Join(root, "main.go"), future, future); err != nil {
						t.Fatal(err)
					}
				}, nil, nil},
				{"edit a body", func() {
					writeFile(t, root, "run.go", []byte("package main\n\nimport \"example.com/app/util\"\n\nfunc run() {\n\tvar srv util.Server\n\tsrv.Close()\n\tsrv.Close()\n}\n"))
				}, []string{"run.go"}, nil},
				{"move a function to another file", func() {
					writeFile(t, root, "util/listen.go", []byte("package util\n\nimport \"strings\"\n\nfunc (s *Server) listen() { _ = strings.TrimSpace(s.Addr) }\n\n// Close closes.\nfunc (s *Server) Close() {}\n"))
					writeFile(t, root, "util/validate.go", []byte("package util\n\nfunc validate(addr string) error { return nil }\n"))
				}, []string{"util/listen.go", "util/server.go", "util/validate.go"}, nil},
				{"delete", func() {
					if err := os.Remove(filepath.Join(root, "util/validate.go")); err != nil {
						t.Fatal(err)
					}
				}, []string{"util/listen.go", "util/server.go"}, []string{"util/validate.go"}},
				{"rename", func() {
					if err := os.Rename(filepath.Join(root, "util/listen.go"), filepath.Join(root, "util/listen2.go")); err != nil {
						t.Fatal(err)
					}
				}, []string{"run.go", "util/listen2.go", "util/server.go", "util/util_test.go"}, []string{"util/listen.go"}},
			}
			for _, s := range steps {
				s.do()
				res := index(t, root, opts, hashes(g))
				g.apply(res)
				got := keys(res.Payloads)
				if withCache && !equalStrings(got, s.wantEmitted) {
					t.Errorf("%s: emitted %v, want %v", s.name, got, s.wantEmitted)
				}
				// Without a cache the old declarations are unknown, so every
				// dependent of a changed file is re-extracted: a superset.
				for _, p := range s.wantEmitted {
					if _, ok := res.Payloads[p]; !ok {
						t.Errorf("%s: %s not emitted (emitted %v)", s.name, p, got)
					}
				}
				if !equalStrings(res.Removed, s.wantRemoved) {
					t.Errorf("%s: removed %v, want %v", s.name, res.Removed, s.wantRemoved)
				}
				if d := dangling(g); len(d) > 0 {
					t.Errorf("%s: dangling edges in the resulting graph: %v", s.name, d)
				}
				if o := orphans(g); len(o) > 0 {
					t.Errorf("%s: nodes without edges in the resulting graph: %v", s.name, o)
				}
				if s.wantEmitted == nil && s.wantRemoved == nil && res.Calls != 0 {
					t.Errorf("%s: emit called %d times, want 0", s.name, res.Calls)
				}
			}
			// After the rename the callers point at the new file.
			found := false
			for _, e := range g["util/server.go"].Edges {
				if e.Type == graph.EdgeCalls && e.Target == "code:function:util/listen2.go::Server.listen" {
					found = true
				}
			}
			if !found {
				t.Errorf("util/server.go does not call Server.listen in util/listen2.go after the rename")
			}
		})
	}
}

// TestRun_IncrementalEqualsFull checks that the graph built incrementally
// equals a fresh full extraction of the final tree.
func TestRun_IncrementalEqualsFull(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "python"))
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	writeFile(t, root, "pkg/extra.py", []byte("from .base import helper\n\ndef extra():\n    helper()\n"))
	writeFile(t, root, "pkg/base.py", []byte("import os\n\n\nclass Base:\n    def greet(self, who):\n        return who\n\n\ndef renamed_helper():\n    return Base()\n"))
	g.apply(index(t, root, opts, hashes(g)))
	full := index(t, root, Options{}, nil)
	if got, want := render(g), render(full.Payloads); got != want {
		t.Errorf("incremental graph differs from a full extraction:\n%s", diffLines(want, got))
	}
}

// TestRun_IncrementalNewTarget adds the module or file an import looked for
// in vain: the importer is extracted again and now resolves into it.
func TestRun_IncrementalNewTarget(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "main.py", []byte("import pkg.later\n\ndef main():\n    pkg.later.f()\n"))
	writeFile(t, root, "pkg/__init__.py", []byte(""))
	writeFile(t, root, "web/app.ts", []byte("import { g } from \"./later\";\n\nexport function app() { g(); }\n"))
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	writeFile(t, root, "pkg/later.py", []byte("def f():\n    pass\n"))
	writeFile(t, root, "web/later.ts", []byte("export function g() {}\n"))
	res := index(t, root, opts, hashes(g))
	g.apply(res)
	if got, want := keys(res.Payloads), []string{"main.py", "pkg/later.py", "web/app.ts", "web/later.ts"}; !equalStrings(got, want) {
		t.Errorf("emitted %v, want %v", got, want)
	}
	for _, c := range []struct{ path, target string }{
		{"main.py", "code:function:pkg/later.py::f"},
		{"web/app.ts", "code:function:web/later.ts::g"},
	} {
		found := false
		for _, e := range g[c.path].Edges {
			if e.Type == graph.EdgeCalls && e.Target == c.target {
				found = true
			}
		}
		if !found {
			t.Errorf("%s does not call %s after it was added", c.path, c.target)
		}
	}
	if c := conflicting(g); len(c) > 0 {
		t.Errorf("conflicting nodes: %v", c)
	}
	if d := dangling(g); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}
}

// TestRun_NoChangeReadsNothing checks that with a stat cache an unchanged
// tree costs stats only: no file is opened; a touched file is read once to
// be hashed and is not emitted.
func TestRun_NoChangeReadsNothing(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "mixed"))
	// Files written long before they were read: a stat match proves them
	// unchanged (see TestRun_RacyEditIsSeen for files written just before).
	ageTree(t, root, time.Hour)
	opts := Options{CacheDir: t.TempDir()}
	first := index(t, root, opts, nil)
	prev := hashes(first.Payloads)
	var opened []string
	var mu sync.Mutex
	opts.open = func(name string) (io.ReadCloser, error) {
		mu.Lock()
		opened = append(opened, filepath.Base(name))
		mu.Unlock()
		return os.Open(name)
	}
	if res := index(t, root, opts, prev); res.Calls != 0 || len(opened) != 0 {
		t.Errorf("no-change run: %d emit calls, opened %v; want none", res.Calls, opened)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "notes.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	if res := index(t, root, opts, prev); res.Calls != 0 || strings.Join(opened, ",") != "notes.txt" {
		t.Errorf("after a touch: %d emit calls, opened %v; want none and [notes.txt]", res.Calls, opened)
	}
}

// ageTree sets the modification time of every file under root to age ago.
func ageTree(t testing.TB, root string, age time.Duration) {
	t.Helper()
	past := time.Now().Add(-age)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An edit that keeps a file's size and modification time — a second write
// in the same timestamp tick as the one the last index read — is seen: a
// stat match within RacyWindow of the read is not trusted ("racy git").
func TestRun_RacyEditIsSeen(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.py", []byte("def f():\n    return 1\n"))
	opts := Options{CacheDir: t.TempDir()}
	first := index(t, root, opts, nil)
	fi, err := os.Stat(filepath.Join(root, "a.py"))
	if err != nil {
		t.Fatal(err)
	}
	// Same size, same mtime, other content.
	writeFile(t, root, "a.py", []byte("def g():\n    return 1\n"))
	if err := os.Chtimes(filepath.Join(root, "a.py"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	second := index(t, root, opts, hashes(first.Payloads))
	p, ok := second.Payloads["a.py"]
	if !ok {
		t.Fatalf("the edit was not seen: %d files emitted", len(second.Payloads))
	}
	if !strings.Contains(render(map[string]graph.FileExtracted{"a.py": p}), "::g") {
		t.Fatalf("a.py emitted without g:\n%s", render(second.Payloads))
	}
	// Once the file is older than the window, a stat match is trusted.
	ageTree(t, root, time.Hour)
	index(t, root, opts, hashes(second.Payloads)) // reads it once more, records the new time
	var opened int
	opts.open = func(name string) (io.ReadCloser, error) { opened++; return os.Open(name) }
	if res := index(t, root, opts, hashes(second.Payloads)); res.Calls != 0 || opened != 0 {
		t.Fatalf("an old file was read again: %d emit calls, %d opens", res.Calls, opened)
	}
}
