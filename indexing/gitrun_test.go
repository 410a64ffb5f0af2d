package indexing

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// gitRepo makes a git repository of the demo tree with one commit.
func gitRepo(t *testing.T) (root string, git func(args ...string) string) {
	t.Helper()
	g := testutil.GitRepo(t, testutil.DemoRepo)
	return g.Root, g.Run
}

func lastRun(t *testing.T, st *state.State, seq uint64) projections.IndexRun {
	t.Helper()
	ctx := context.Background()
	if err := st.WaitFor(ctx, seq); err != nil {
		t.Fatal(err)
	}
	var run projections.IndexRun
	var ok bool
	if err := st.Read(ctx, func(v state.View) { run, ok = v.Graph.LastIndex() }); err != nil || !ok {
		t.Fatalf("no index run recorded (%v)", err)
	}
	return run
}

// Each run records the commit it indexed and whether the tree was dirty;
// a commit of what was indexed is recorded by the next run even though no
// file changed, and a run over the same commit and tree appends nothing.
func TestIndexer_RunRecordsCommit(t *testing.T) {
	root, git := gitRepo(t)
	ctx := context.Background()
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	rep, err := x.index(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	head := git("rev-parse", "HEAD")
	run := lastRun(t, st, rep.LastSeq)
	if run.Commit != head || run.Dirty || run.FilesSeen != len(testutil.DemoRepo) || run.Targeted != 0 || rep.Commit != head {
		t.Fatalf("first run = %+v (report commit %q), want commit %s, clean, %d files", run, rep.Commit, head, len(testutil.DemoRepo))
	}

	// An edit: the run is dirty.
	name := firstKey(testutil.DemoRepo)
	if err := os.WriteFile(filepath.Join(root, name), []byte(testutil.DemoRepo[name]+"\n// more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = x.index(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run = lastRun(t, st, rep.LastSeq); run.Commit != head || !run.Dirty || run.FilesChanged == 0 {
		t.Fatalf("run after an edit = %+v, want commit %s and dirty", run, head)
	}

	// The edit committed: no file changes, but the base is a new commit.
	git("commit", "-q", "-am", "second")
	second := git("rev-parse", "HEAD")
	rep, err = x.index(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 0 || rep.LastSeq == 0 {
		t.Fatalf("run after a commit: %+v, want no file event and a recorded run", rep)
	}
	if run = lastRun(t, st, rep.LastSeq); run.Commit != second || run.Dirty || run.Finished.Seq == 0 || run.Finished.Seq != rep.LastSeq {
		t.Fatalf("run after a commit = %+v, want commit %s, clean, finished at %d", run, second, rep.LastSeq)
	}

	// Same commit, same tree: nothing appended.
	before := st.Position().Seq
	rep, err = x.index(ctx, root, nil)
	if err != nil || rep.LastSeq != 0 || st.Position().Seq != before {
		t.Fatalf("no-change run appended: %+v (head %d → %d) %v", rep, before, st.Position().Seq, err)
	}

	// The snapshot round-trips the commit.
	if _, err := st.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	_, st2 := openIndexer(t, st.Dir(), Options{Roots: []string{root}})
	if run2 := lastRun(t, st2, 0); run2 != run {
		t.Fatalf("after reopening from the snapshot: %+v, want %+v", run2, run)
	}
}

func firstKey(m map[string]string) string {
	best := ""
	for k := range m {
		if strings.HasSuffix(k, ".go") && (best == "" || k < best) {
			best = k
		}
	}
	return best
}
