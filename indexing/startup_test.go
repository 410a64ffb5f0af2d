package indexing

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// notFoundReason is x.NotFoundReason in a view of st.
func notFoundReason(tb testing.TB, x *Indexer, st *state.State) string {
	tb.Helper()
	var why string
	if err := st.Read(context.Background(), func(v state.View) { why, _ = x.NotFoundReason(v) }); err != nil {
		tb.Fatal(err)
	}
	return why
}

// TestIndexAtStart_ProgressThenIndexed: a start index of a folder the
// graph holds no index of runs; held after its first committed batch, it
// shows as running with its file counts and a not-found says so; once it
// ends the folder is Indexed and nothing more is said.
func TestIndexAtStart_ProgressThenIndexed(t *testing.T) {
	g := testutil.GitRepo(t, testutil.DemoRepo)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if why := notFoundReason(t, x, st); !strings.Contains(why, "the graph is empty: no folder has been indexed yet") ||
		!strings.Contains(why, `cos_graph_index {"path": "`+g.Root+`"}`) || !strings.Contains(why, "`cos index "+g.Root+"`") {
		t.Fatalf("empty graph: %q", why)
	}
	if x.Indexed(g.Root) {
		t.Fatal("Indexed before any run")
	}
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	x.afterBatch = func() { once.Do(func() { close(reached); <-release }) }
	done := make(chan struct{})
	go func() { defer close(done); x.IndexAtStart(context.Background()) }()
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		t.Fatal("the start index appended no batch")
	}
	run, ok := x.Starting()
	if !ok || run.State != StartRunning || run.Root != g.Root || run.FilesChanged != len(testutil.DemoRepo) || run.Message == "" {
		t.Fatalf("Starting during the run = %+v, %v", run, ok)
	}
	if why := notFoundReason(t, x, st); !strings.Contains(why, "the index of "+g.Root+" is running (") {
		t.Fatalf("during the run: %q", why)
	}
	close(release)
	<-done
	if run, ok := x.Starting(); ok {
		t.Fatalf("Starting after the run = %+v", run)
	}
	if !x.Indexed(g.Root) {
		t.Fatal("not Indexed after the start index")
	}
	if why := notFoundReason(t, x, st); why != "" {
		t.Fatalf("after the run: %q", why)
	}
}

// TestIndexAtStart_SkipsIndexedFolder: a folder the graph holds an index
// of is not indexed again at start, and a run asked UnlessIndexed does
// nothing.
func TestIndexAtStart_SkipsIndexedFolder(t *testing.T) {
	g := testutil.GitRepo(t, testutil.DemoRepo)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	ctx := context.Background()
	if _, err := x.IndexWith(ctx, g.Root, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	seq := func() (n uint64) {
		if err := st.Read(ctx, func(v state.View) { n = v.Pos.Seq }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	head := seq()
	reported := false
	x.afterBatch = func() { t.Error("a batch was appended") }
	x.IndexAtStart(ctx)
	_, err := x.IndexWith(ctx, g.Root, RunOptions{UnlessIndexed: true, Report: func(Progress) { reported = true }})
	if !errors.Is(err, ErrAlreadyIndexed) || reported {
		t.Fatalf("UnlessIndexed on an indexed folder: %v, reported %v", err, reported)
	}
	if got := seq(); got != head {
		t.Fatalf("seq %d after, want %d: something was appended", got, head)
	}
}

// TestIndexAtStart_WorkingDirectory: without roots the working directory
// is indexed at start only when it is in a git work tree and the graph
// records no index at all.
func TestIndexAtStart_WorkingDirectory(t *testing.T) {
	plain := t.TempDir()
	g := testutil.GitRepo(t, testutil.DemoRepo)
	x, _ := openIndexer(t, t.TempDir(), Options{})
	ctx := context.Background()
	t.Chdir(plain)
	if r := x.startRoots(ctx); len(r) != 0 {
		t.Fatalf("outside git: %v, want none", r)
	}
	t.Chdir(g.Root)
	if r := x.startRoots(ctx); len(r) != 1 || r[0] != g.Root {
		t.Fatalf("in a work tree: %v, want [%s]", r, g.Root)
	}
	if _, err := x.IndexWith(ctx, plain, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := x.startRoots(ctx); len(r) != 0 {
		t.Fatalf("after another folder was indexed: %v, want none", r)
	}
}

// TestIndexAtStart_FailureShown: a root that cannot be indexed (its folder
// does not exist) is not silently skipped: StartStatus reports it failed
// with the error, a not-found names it, and a later successful start run
// of the folder clears it.
func TestIndexAtStart_FailureShown(t *testing.T) {
	missing := t.TempDir() + "/not-there"
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{missing}})
	x.IndexAtStart(context.Background())
	if _, ok := x.Starting(); ok {
		t.Fatal("Starting after the run ended")
	}
	run, ok := x.StartStatus()
	if !ok || run.State != StartFailed || run.Root != missing || run.Error == "" {
		t.Fatalf("StartStatus = %+v, %v", run, ok)
	}
	if why := notFoundReason(t, x, st); !strings.Contains(why, "indexing "+missing+" at start failed (") {
		t.Fatalf("not-found reason: %q", why)
	}
	g := testutil.GitRepo(t, testutil.DemoRepo)
	x.start.fail(StartRun{Root: g.Root, State: StartFailed, Error: "earlier"})
	x.opts.Roots = []string{g.Root}
	x.IndexAtStart(context.Background())
	if run, ok := x.StartStatus(); ok && run.Root == g.Root {
		t.Fatalf("a failure survived the folder's successful start run: %+v", run)
	}
	// Any successful run of the folder ends its failure, not only one at
	// start.
	x.start.fail(StartRun{Root: g.Root, State: StartFailed, Error: "earlier"})
	if _, err := x.IndexWith(context.Background(), g.Root, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if run, ok := x.StartStatus(); ok && run.Root == g.Root {
		t.Fatalf("a failure survived a successful index of the folder: %+v", run)
	}
}
