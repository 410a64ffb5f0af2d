package extract_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

// runIndexExtracted is runIndex that also returns every file the run
// extracted again, emitted or not (through Options.Reemit, asked about
// each re-extracted file whose payload did not change), with the ones it
// emitted.
func runIndexExtracted(t *testing.T, root, cacheDir string, previous map[string]string) (extraction, []string) {
	t.Helper()
	x := extraction{payloads: map[string]graph.FileExtracted{}}
	var mu sync.Mutex
	same := map[string]bool{}
	o := extract.Options{CacheDir: cacheDir, Reemit: func(p string) bool {
		mu.Lock()
		defer mu.Unlock()
		same[p] = true
		return false
	}}
	st, err := extract.Run(context.Background(), root, o, previous,
		func(batch []graph.FileExtracted, removed []string) error {
			mu.Lock()
			defer mu.Unlock()
			for _, p := range batch {
				x.payloads[p.Path] = p
			}
			x.removed = append(x.removed, removed...)
			return nil
		})
	if err != nil {
		t.Fatalf("extract.Run(%s): %v", root, err)
	}
	x.stats = st
	all := append(slices.Collect(maps.Keys(same)), x.paths()...)
	sort.Strings(all)
	return x, slices.Compact(all)
}

// mergeRun returns the graph of graph files after an incremental run:
// base with the run's payloads in place of the files it emitted, less the
// files it removed.
func mergeRun(base map[string]graph.FileExtracted, run extraction) map[string]graph.FileExtracted {
	out := maps.Clone(base)
	for _, p := range run.removed {
		delete(out, p)
	}
	maps.Copy(out, run.payloads)
	return out
}

// sameGraph reports the files whose nodes or edges differ between two
// graphs of files.
func sameGraph(t *testing.T, got, want map[string]graph.FileExtracted) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s: missing from the incremental graph", p)
			continue
		}
		gj, _ := json.Marshal(struct {
			N []graph.Node
			E []graph.Edge
		}{g.Nodes, g.Edges})
		wj, _ := json.Marshal(struct {
			N []graph.Node
			E []graph.Edge
		}{want[p].Nodes, want[p].Edges})
		if string(gj) != string(wj) {
			t.Errorf("%s differs from a fresh index:\n got %s\nwant %s", p, gj, wj)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: in the incremental graph, not in a fresh index", p)
		}
	}
}

// TestRun_GoTypesIncremental_InterfaceEditReachesImplementersOnly: an
// edit of an interface re-extracts the interface's package, its
// importers and the packages declaring a type with every method name of
// the interface (before or after the edit), and no other (not the
// importers of a package whose test alone imports it); after each edit
// the graph equals a fresh index of the edited tree.
func TestRun_GoTypesIncremental_InterfaceEditReachesImplementersOnly(t *testing.T) {
	root := writeModule(t, map[string]string{
		"iface/iface.go": "package iface\n\ntype Closer interface{ Close() error }\n\ntype Namer interface{ Name() string }\n",
		"a/a.go":         "package a\n\ntype File struct{}\n\nfunc (f *File) Close() error { return nil }\n\nfunc (f *File) Flush() error { return nil }\n",
		"b/b.go":         "package b\n\ntype Named struct{}\n\nfunc (Named) Name() string { return \"\" }\n",
		"c/c.go":         "package c\n\nimport \"example.com/m/iface\"\n\nfunc Shut(c iface.Closer) error { return c.Close() }\n",
		"d/d.go":         "package d\n\nfunc D() {}\n",
		"d/d_test.go":    "package d\n\ntype fake struct{}\n\nfunc (fake) Close() error { return nil }\n\nfunc (fake) Flush() error { return nil }\n",
		"e/e.go":         "package e\n\nimport \"example.com/m/a\"\n\ntype Wrapped struct{ a.File }\n",
		"f/f.go":         "package f\n\ntype Half struct{}\n\nfunc (Half) Close() error { return nil }\n",
		// g's test alone imports iface: g is extracted again, not h.
		"g/g.go":      "package g\n\nfunc G() int { return 1 }\n",
		"g/g_test.go": "package g\n\nimport \"example.com/m/iface\"\n\nvar _ iface.Namer\n",
		"h/h.go":      "package h\n\nimport \"example.com/m/g\"\n\nfunc H() int { return g.G() }\n",
	})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	graphNow := first.payloads
	hashes := first.hashes(nil)
	steps := []struct {
		name        string
		content     string
		extracted   []string // want: exactly these files extracted again
		implements  string   // an implements edge the step must leave ("" none)
		implementIn string
	}{
		{"Closer gains Flush",
			"package iface\n\ntype Closer interface {\n\tClose() error\n\tFlush() error\n}\n\ntype Namer interface{ Name() string }\n",
			[]string{"a/a.go", "c/c.go", "d/d.go", "d/d_test.go", "e/e.go", "f/f.go", "g/g.go", "g/g_test.go", "iface/iface.go"},
			"code:class:e/e.go::Wrapped -> code:class:iface/iface.go::Closer", "e/e.go"},
		{"a new interface Flusher",
			"package iface\n\ntype Closer interface {\n\tClose() error\n\tFlush() error\n}\n\ntype Namer interface{ Name() string }\n\ntype Flusher interface{ Flush() error }\n",
			[]string{"a/a.go", "c/c.go", "d/d.go", "d/d_test.go", "e/e.go", "g/g.go", "g/g_test.go", "iface/iface.go"},
			"code:class:a/a.go::File -> code:class:iface/iface.go::Flusher", "a/a.go"},
	}
	for _, s := range steps {
		writeFixtureFile(t, root, "iface/iface.go", s.content)
		run, extracted := runIndexExtracted(t, root, cache, hashes)
		hashes = run.hashes(hashes)
		graphNow = mergeRun(graphNow, run)
		if !slices.Equal(extracted, s.extracted) {
			t.Errorf("%s: extracted %v again, want %v", s.name, extracted, s.extracted)
		}
		if s.implements != "" && !edgesOf(extraction{payloads: graphNow}, s.implementIn, graph.EdgeImplements)[s.implements] {
			t.Errorf("%s: %s missing", s.name, s.implements)
		}
		fresh := runIndex(t, root, t.TempDir(), nil)
		sameGraph(t, graphNow, fresh.payloads)
	}
}
