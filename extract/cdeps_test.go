package extract

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// cdepsTree is a small C and C++ tree whose files call each other through
// the one C scope: plain calls, a header's macro, a header's static inline
// function and a C++ typedef of a class.
var cdepsTree = map[string]string{
	"include/api.h": "#define CALL_IT(x) target_one(x)\nint shared(int);\n",
	"src/a.c":       "#include \"api.h\"\n\nint helper_a(int x) { return x; }\n\nint use_a(void) { return later(1) + CALL_IT(2); }\n",
	"src/b.c":       "int use_b(void) { return later2(2) + helper_a(3); }\n",
	"src/t1.c":      "int target_one(int x) { return x; }\n\nint target_two(int x) { return x * 2; }\n",
	"src/m.c":       "#include \"api.h\"\n\nint use_m(void) { return CALL_IT(5) + hdr_fn(6); }\n",
	"src/k.hpp":     "class Counter {\npublic:\n  void inc();\n};\n\nclass Meter {\npublic:\n  void inc();\n};\n\ntypedef Counter Gauge;\n",
	"src/k.cc":      "#include \"k.hpp\"\n\nvoid Counter::inc() {}\nvoid Meter::inc() {}\n",
	"src/run.cc":    "#include \"k.hpp\"\n\nvoid run() {\n  Gauge g;\n  g.inc();\n}\n",
	"src/quiet.c":   "static int alone(void) { return 0; }\n\nint quiet(void) { return alone(); }\n",
}

// TestRun_CDependentsByName edits the C tree step by step: after each step
// the graph built incrementally equals a fresh full extraction of the tree
// (so a dependent the run skipped shows as a difference), the edge the step
// is about is there, and the files extracted again are those that read a
// name whose declarations changed — not every C file, though C and C++
// declare in one scope. Without a cache the earlier declarations of a
// changed file are unknown: every C file that read a name is extracted
// again, and the graph is still the full one.
func TestRun_CDependentsByName(t *testing.T) {
	t.Run("cache", func(t *testing.T) { testCDependents(t, true) })
	t.Run("no_cache", func(t *testing.T) { testCDependents(t, false) })
}

func testCDependents(t *testing.T, withCache bool) {
	root := t.TempDir()
	for p, s := range cdepsTree {
		writeFile(t, root, p, []byte(s))
	}
	ageTree(t, root, time.Hour)
	var mu sync.Mutex
	opened := map[string]bool{}
	opts := Options{open: func(name string) (io.ReadCloser, error) {
		if rel, err := filepath.Rel(root, name); err == nil {
			mu.Lock()
			opened[filepath.ToSlash(rel)] = true
			mu.Unlock()
		}
		return os.Open(name)
	}}
	if withCache {
		opts.CacheDir = t.TempDir()
	}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	// An edited file gets a modification time of its own, long enough
	// ago that the stat cache trusts it next time (RacyWindow), while the
	// others keep theirs: the run reads only what it extracts.
	edits := 0
	write := func(p string, b []byte) {
		writeFile(t, root, p, b)
		edits++
		at := time.Now().Add(-time.Hour + time.Duration(edits)*time.Second)
		if err := os.Chtimes(filepath.Join(root, p), at, at); err != nil {
			t.Fatal(err)
		}
	}
	appendTo := func(p, s string) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		write(p, append(b, s...))
	}
	replace := func(p, old, new string) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q", p, old)
		}
		write(p, []byte(strings.Replace(string(b), old, new, 1)))
	}
	steps := []struct {
		name string
		do   func()
		// want are edges (cfamilyEdges form) the graph must hold after
		// the step, gone edges it must not hold.
		want, gone []string
		// read are the files the run opens: the changed ones and the
		// dependents, every other file a stat.
		read []string
	}{
		{"a new file declares a function called elsewhere", func() {
			write("src/later.c", []byte("int later(int x) { return x; }\n"))
		}, []string{"calls src/a.c::use_a -> src/later.c::later"}, []string{"calls src/a.c::use_a -> external:later"},
			[]string{"src/a.c", "src/later.c"}},
		{"a function appended to a file resolves a call of another", func() {
			appendTo("src/t1.c", "\nint later2(int x) { return x; }\n")
		}, []string{"calls src/b.c::use_b -> src/t1.c::later2"}, []string{"calls src/b.c::use_b -> external:later2"},
			[]string{"src/b.c", "src/t1.c"}},
		{"an unrelated function appended", func() {
			appendTo("src/quiet.c", "\nint quiet2(void) { return 1; }\n")
		}, nil, nil, []string{"src/quiet.c"}},
		{"a removed function un-resolves its callers", func() {
			replace("src/a.c", "int helper_a(int x) { return x; }\n", "")
		}, []string{"calls src/b.c::use_b -> external:helper_a"}, []string{"calls src/b.c::use_b -> src/a.c::helper_a"},
			[]string{"src/a.c", "src/b.c"}},
		{"a header's macro calls another function", func() {
			replace("include/api.h", "target_one(x)", "target_two(x)")
		}, []string{"calls src/a.c::use_a -> src/t1.c::target_two", "calls src/m.c::use_m -> src/t1.c::target_two"},
			[]string{"calls src/a.c::use_a -> src/t1.c::target_one", "calls src/m.c::use_m -> src/t1.c::target_one"},
			[]string{"include/api.h", "src/a.c", "src/m.c"}},
		{"a header gains a static inline function", func() {
			appendTo("include/api.h", "static inline int hdr_fn(int x) { return target_one(x); }\n")
		}, []string{"calls src/m.c::use_m -> include/api.h::hdr_fn"}, []string{"calls src/m.c::use_m -> external:hdr_fn"},
			[]string{"include/api.h", "src/m.c"}},
		{"a typedef names another class", func() {
			replace("src/k.hpp", "typedef Counter Gauge;", "typedef Meter Gauge;")
		}, []string{"calls src/run.cc::run -> src/k.cc::Meter.inc"}, []string{"calls src/run.cc::run -> src/k.cc::Counter.inc"},
			[]string{"src/k.hpp", "src/run.cc"}},
		{"a file declaring a called function removed", func() {
			if err := os.Remove(filepath.Join(root, "src/later.c")); err != nil {
				t.Fatal(err)
			}
		}, []string{"calls src/a.c::use_a -> external:later"}, []string{"calls src/a.c::use_a -> src/later.c::later"},
			[]string{"src/a.c"}},
		{"a closer header of the same name", func() {
			write("src/api.h", []byte("int other_api(int);\n"))
		}, []string{"imports src/a.c -> src/api.h", "imports src/m.c -> src/api.h"},
			[]string{"imports src/a.c -> include/api.h", "imports src/m.c -> include/api.h"},
			[]string{"src/a.c", "src/api.h", "src/m.c"}},
		{"the closer header removed", func() {
			if err := os.Remove(filepath.Join(root, "src/api.h")); err != nil {
				t.Fatal(err)
			}
		}, []string{"imports src/a.c -> include/api.h", "imports src/m.c -> include/api.h"},
			[]string{"imports src/a.c -> src/api.h", "imports src/m.c -> src/api.h"},
			[]string{"src/a.c", "src/m.c"}},
		{"a header renamed", func() {
			if err := os.Rename(filepath.Join(root, "include/api.h"), filepath.Join(root, "include/api2.h")); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"imports src/a.c -> include/api.h", "imports src/m.c -> include/api.h"},
			[]string{"include/api2.h", "src/a.c", "src/m.c"}},
	}
	for _, s := range steps {
		clear(opened)
		s.do()
		g.apply(index(t, root, opts, hashes(g)))
		full := index(t, root, Options{}, nil)
		if got, want := render(g), render(full.Payloads); got != want {
			t.Errorf("%s: incremental graph differs from a full extraction:\n%s", s.name, diffLines(want, got))
		}
		edges := cfamilyEdges(g)
		for _, e := range s.want {
			if !slices.Contains(edges, e) {
				t.Errorf("%s: no edge %s", s.name, e)
			}
		}
		for _, e := range s.gone {
			if slices.Contains(edges, e) {
				t.Errorf("%s: edge %s still there", s.name, e)
			}
		}
		read := make([]string, 0, len(opened))
		for p := range opened {
			read = append(read, p)
		}
		sort.Strings(read)
		if withCache && !equalStrings(read, s.read) {
			t.Errorf("%s: read %v, want %v", s.name, read, s.read)
		}
	}
	if d := dangling(g); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}
}

// TestRun_CDependentsRecordMissing changes a C file the graph holds but
// whose declarations the cache lost: which names it dropped is unknown, so
// every C file that read a name is a dependent (here: the caller of the
// removed function, whose edge must go).
func TestRun_CDependentsRecordMissing(t *testing.T) {
	root := t.TempDir()
	for p, s := range cdepsTree {
		writeFile(t, root, p, []byte(s))
	}
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	var dc declCache
	if ok, err := readGob(opts.CacheDir, declCacheFile, &dc); !ok {
		t.Fatalf("no declarations cache: %v", err)
	}
	if _, ok := dc.Decls["src/a.c"]; !ok {
		t.Fatalf("no record of src/a.c in the cache")
	}
	delete(dc.Decls, "src/a.c")
	if err := writeGob(opts.CacheDir, declCacheFile, &dc); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "src/a.c", []byte("#include \"api.h\"\n\nint use_a(void) { return later(1) + CALL_IT(2); }\n"))
	g.apply(index(t, root, opts, hashes(g)))
	full := index(t, root, Options{}, nil)
	if got, want := render(g), render(full.Payloads); got != want {
		t.Errorf("incremental graph differs from a full extraction:\n%s", diffLines(want, got))
	}
	if e := "calls src/b.c::use_b -> src/a.c::helper_a"; slices.Contains(cfamilyEdges(g), e) {
		t.Errorf("edge %s still there", e)
	}
}
