package indexing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// openIndexer opens a state folder (no bus) and an Indexer over it with
// opts, closing the state at cleanup.
func openIndexer(tb testing.TB, dir string, opts Options) (*Indexer, *state.State) {
	tb.Helper()
	st, err := state.Open(context.Background(), state.Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close(context.Background()) })
	x, err := New(st, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return x, st
}

func TestOptions_ValidateExcludes(t *testing.T) {
	for _, x := range []string{"", ".", "..", "a/b", `a\b`, "*", "gen?", "[x]"} {
		if err := (Options{Exclude: []string{x}}).Validate(); !errors.Is(err, ErrOptions) {
			t.Errorf("exclude %q: %v, want ErrOptions", x, err)
		}
	}
	if err := (Options{Exclude: []string{"generated", "node_modules"}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// A run appends one event per file; a second run of an unchanged tree
// appends nothing; the indexed root is recorded.
func TestIndexer_IndexThenNoChange(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	root, _ = filepath.EvalSymlinks(root)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	rep, err := x.index(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesChanged != len(testutil.DemoRepo) || rep.Events != len(testutil.DemoRepo) || rep.Root != root {
		t.Fatalf("first run: %+v", rep)
	}
	if got := x.IndexedRoot(); got != root {
		t.Fatalf("IndexedRoot = %q, want %q", got, root)
	}
	head := st.Position()
	again, err := x.index(context.Background(), root, nil)
	if err != nil || again.Events != 0 || again.FilesChanged != 0 {
		t.Fatalf("second run: %+v %v", again, err)
	}
	if err := st.WaitFor(context.Background(), rep.LastSeq); err != nil || st.Position().Seq != max(head.Seq, rep.LastSeq) {
		t.Fatalf("position %d after a no-change run, want %d (%v)", st.Position().Seq, rep.LastSeq, err)
	}
}

// Two indexers on one state folder take turns: the graph ends with each
// file once, and the second run appends nothing.
func TestIndexer_RunsTakeTurns(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	dir := t.TempDir()
	a, st := openIndexer(t, dir, Options{Roots: []string{root}})
	b, _ := openIndexer(t, dir, Options{Roots: []string{root}})
	var wg sync.WaitGroup
	reps := make([]Report, 2)
	errs := make([]error, 2)
	for i, x := range []*Indexer{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = x.index(context.Background(), root, nil)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if total := reps[0].Events + reps[1].Events; total != len(testutil.DemoRepo) {
		t.Fatalf("the two runs appended %d + %d events, want %d in all", reps[0].Events, reps[1].Events, len(testutil.DemoRepo))
	}
	var files int
	if err := st.Read(context.Background(), func(v state.View) { files = len(v.Graph.FileHashes()) }); err != nil {
		t.Fatal(err)
	}
	if files != len(testutil.DemoRepo) {
		t.Fatalf("graph holds %d files, want %d", files, len(testutil.DemoRepo))
	}
}

// A path outside every approved root, or reached through a symlink that
// leaves them, is E_PATH; a file where a folder is wanted too.
func TestIndexer_ApprovedPath(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	x, _ := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	real, _ := filepath.EvalSymlinks(root)
	if got, err := x.ApprovedPath(""); err != nil || got != real {
		t.Fatalf("ApprovedPath(\"\") = %q, %v; want the root %q", got, err, real)
	}
	if got, err := x.ApprovedPath("util"); err != nil || got != filepath.Join(real, "util") {
		t.Fatalf("ApprovedPath(util) = %q, %v", got, err)
	}
	for _, p := range []string{"../", outside, "escape", "main.go", "missing"} {
		_, err := x.ApprovedPath(p)
		var ee *envelope.Error
		if !errors.As(err, &ee) || ee.Code != envelope.CodePath {
			t.Errorf("ApprovedPath(%q) = %v, want E_PATH", p, err)
		}
	}
	if _, err := x.ApprovedFile("main.go"); err != nil {
		t.Errorf("ApprovedFile(main.go): %v", err)
	}
}

// A point-in-time state cannot be indexed into.
func TestIndexer_ReadOnlyState(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	dir := t.TempDir()
	x, _ := openIndexer(t, dir, Options{Roots: []string{root}})
	if _, err := x.index(context.Background(), root, nil); err != nil {
		t.Fatal(err)
	}
	past, err := state.Open(context.Background(), state.Options{Dir: dir, At: &projections.Until{Seq: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer past.Close(context.Background())
	px, err := New(past, Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = px.index(context.Background(), root, nil)
	var ee *envelope.Error
	if !errors.As(err, &ee) || ee.Code != envelope.CodeReadOnly {
		t.Fatalf("Index on a point-in-time state = %v, want E_READ_ONLY", err)
	}
}
