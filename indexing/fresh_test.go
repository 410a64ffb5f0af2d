package indexing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// freshTree writes files into a folder and sets every modification time an
// hour back, so that the stat cache's records are not racy.
func freshTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := testutil.WriteTree(tb, files)
	root, _ = filepath.EvalSymlinks(root)
	old := time.Now().Add(-time.Hour)
	for p := range files {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

func staleOf(tb testing.TB, st *state.State, f *Freshness, held bool, paths ...string) []string {
	tb.Helper()
	var (
		c   Check
		err error
	)
	if rerr := st.Read(context.Background(), func(v state.View) {
		if held {
			c, err = f.StaleHeld(v, paths)
		} else {
			c, err = f.Stale(v, paths)
		}
	}); rerr != nil {
		tb.Fatal(rerr)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return c.Stale
}

func TestFreshness_Stale(t *testing.T) {
	ctx := context.Background()
	root := freshTree(t, map[string]string{"a.go": "package m\n\nfunc A() {}\n", "b.go": "package m\n\nfunc B() {}\n", "c.go": "package m\n"})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	f := NewFreshness(st)

	var none Check
	var err error
	st.View(func(v state.View) { none, err = f.Stale(v, []string{"a.go"}) })
	if !errors.Is(err, ErrNoIndexRun) || none.Stale != nil {
		t.Fatalf("before any index: %+v, %v; want ErrNoIndexRun", none, err)
	}
	// b.go was written just before the index read it: its record is
	// within the racy window.
	justNow := time.Now()
	if err := os.Chtimes(filepath.Join(root, "b.go"), justNow, justNow); err != nil {
		t.Fatal(err)
	}
	if _, err := x.index(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	all := []string{"a.go", "b.go", "c.go", "../x.go", "/etc/passwd", "d.go"}
	if got := staleOf(t, st, f, false, all...); len(got) != 0 {
		t.Fatalf("just indexed: stale %v", got)
	}

	// A new modification time over the same content is not a change.
	now := time.Now()
	if err := os.Chtimes(filepath.Join(root, "a.go"), now, now); err != nil {
		t.Fatal(err)
	}
	// The racy case: new content of the same size, written with the
	// modification time the record holds, within the racy window of the
	// record — size and time prove nothing, the hash does.
	recorded, err := os.Stat(filepath.Join(root, "b.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package m\n\nfunc X() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(root, "b.go"), recorded.ModTime(), recorded.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "c.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d.go"), []byte("package m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := staleOf(t, st, f, false, all...), []string{"b.go", "c.go", "d.go"}; !slices.Equal(got, want) {
		t.Errorf("Stale = %v, want %v (b changed within the racy window, c gone, d new)", got, want)
	}
	if got, want := staleOf(t, st, f, true, all...), []string{"b.go", "c.go"}; !slices.Equal(got, want) {
		t.Errorf("StaleHeld = %v, want %v (d is not the graph's)", got, want)
	}

	// Re-indexed, every file is fresh again (the extractor sees b.go's
	// racy change too); the stat cache is read anew.
	if _, err := x.index(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	if got := staleOf(t, st, f, false, all...); len(got) != 0 {
		t.Errorf("after the re-index: stale %v", got)
	}

	var scan Scan
	var tg Target
	var ok bool
	if err := st.Read(ctx, func(v state.View) { tg, ok = f.Target(v) }); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatal("no target after an index")
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package m\n\nfunc A2() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if scan, err = f.Scan(ctx, tg, 20); err != nil {
		t.Fatal(err)
	}
	if scan.Changed != 1 || !slices.Equal(scan.Paths, []string{"a.go"}) || scan.Git || scan.CommitsAheadUnknown == "" {
		t.Errorf("Scan = %+v, want a.go changed, outside git", scan)
	}
}

// BenchmarkFreshness_Stale20 is the check a graph read adds: 20 files the
// answer names, nothing changed (the stat path).
func BenchmarkFreshness_Stale20(b *testing.B) {
	files := map[string]string{}
	var paths []string
	for i := range 20 {
		p := fmt.Sprintf("f%02d.go", i)
		files[p] = fmt.Sprintf("package m\n\nfunc F%02d() {}\n", i)
		paths = append(paths, p)
	}
	root := freshTree(b, files)
	x, st := openIndexer(b, b.TempDir(), Options{Roots: []string{root}})
	if _, err := x.index(context.Background(), root, nil); err != nil {
		b.Fatal(err)
	}
	f := NewFreshness(st)
	if got := staleOf(b, st, f, true, paths...); len(got) != 0 {
		b.Fatalf("stale %v", got)
	}
	b.ResetTimer()
	for b.Loop() {
		st.View(func(v state.View) {
			if c, err := f.StaleHeld(v, paths); err != nil || len(c.Stale) != 0 || c.Checked != 20 {
				b.Fatal(c, err)
			}
		})
	}
}
