package indexing

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// Environment of the child process of TestIndexer_KilledRunIsVisible.
const (
	killChildState  = "COS_TEST_KILL_STATE"
	killChildRoot   = "COS_TEST_KILL_ROOT"
	killChildMarker = "COS_TEST_KILL_MARKER"
)

// writeDocs writes n small Markdown files: more than one batch of
// extract.DefaultBatchFiles.
func writeDocs(tb testing.TB, n int) string {
	tb.Helper()
	root := tb.TempDir()
	for i := range n {
		body := fmt.Sprintf("# Doc %d\n\nSee [next](d%04d.md).\n", i, (i+1)%n)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("d%04d.md", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// health opens the state folder dir in this process and returns its
// health.
func health(tb testing.TB, dir string) state.Health {
	tb.Helper()
	ctx := context.Background()
	st, err := state.Open(ctx, state.Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close(ctx)
	var h state.Health
	if err := st.Read(ctx, func(v state.View) { h, err = v.Health(ctx) }); err != nil {
		tb.Fatal(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// TestIndexer_KilledRunChild is the child of
// TestIndexer_KilledRunIsVisible: it indexes, and after the first batch is
// committed says so and waits to be killed.
func TestIndexer_KilledRunChild(t *testing.T) {
	dir := os.Getenv(killChildState)
	if dir == "" {
		t.Skip("the child of TestIndexer_KilledRunIsVisible")
	}
	x, _ := openIndexer(t, dir, Options{})
	x.afterBatch = func() {
		_ = os.WriteFile(os.Getenv(killChildMarker), []byte("1"), 0o644)
		time.Sleep(time.Hour)
	}
	_, _ = x.index(context.Background(), os.Getenv(killChildRoot), nil)
}

// kill -9 part way through an index leaves a graph that says so: health
// shows the last run of that root as interrupted, not finished; the next
// run finishes it.
func TestIndexer_KilledRunIsVisible(t *testing.T) {
	root, dir := writeDocs(t, 600), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	marker := filepath.Join(t.TempDir(), "first-batch")
	cmd := exec.Command(os.Args[0], "-test.run=^TestIndexer_KilledRunChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildState+"="+dir, killChildRoot+"="+root, killChildMarker+"="+marker)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the child committed no batch in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	h := health(t, dir)
	if h.LastIndex == nil || h.LastIndex.State != state.IndexInterrupted || h.LastIndex.Root != root || h.LastIndex.Finished.Seq != 0 {
		t.Fatalf("last index after kill -9 = %+v, want %s interrupted", h.LastIndex, root)
	}

	// The next run indexes the rest and finishes.
	x, st := openIndexer(t, dir, Options{})
	rep, err := x.index(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesChanged == 0 || rep.FilesChanged == 600 {
		t.Fatalf("second run changed %d files, want the ones the first did not append", rep.FilesChanged)
	}
	var run projections.IndexRun
	var files int
	if err := st.WaitFor(context.Background(), rep.LastSeq); err != nil {
		t.Fatal(err)
	}
	if err := st.Read(context.Background(), func(v state.View) {
		run, _ = v.Graph.LastIndex()
		files = v.Graph.Counts().Files
	}); err != nil {
		t.Fatal(err)
	}
	if run.Finished.Seq == 0 || run.Error != "" || run.Root != root || files != 600 {
		t.Fatalf("after the second run: %+v, %d files", run, files)
	}
}

// A run that appends enough is snapshotted at its end; a snapshot that
// fails is reported, and the index stays committed. A run that appends
// nothing records no run.
func TestIndexer_SnapshotAtTheEnd(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	dir := t.TempDir()
	x, st := openIndexer(t, dir, Options{Roots: []string{root}})
	rep, err := x.IndexWith(context.Background(), root, RunOptions{SnapshotMinBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SnapshotSeq != rep.LastSeq || rep.SnapshotError != "" {
		t.Fatalf("snapshot seq %d (error %q), want the run's last seq %d", rep.SnapshotSeq, rep.SnapshotError, rep.LastSeq)
	}
	if _, err := os.Stat(filepath.Join(dir, projections.SnapshotDirName, fmt.Sprintf("snap-%020d.bin", rep.LastSeq))); err != nil {
		t.Fatal(err)
	}
	head := st.Position().Seq
	again, err := x.IndexWith(context.Background(), root, RunOptions{SnapshotMinBytes: 1})
	if err != nil || again.Events != 0 || again.SnapshotSeq != 0 || st.Position().Seq != head {
		t.Fatalf("no-change run: %+v %v, position %d → %d", again, err, head, st.Position().Seq)
	}

	// The snapshot folder replaced by a file: the snapshot fails, the
	// run does not.
	snaps := filepath.Join(dir, projections.SnapshotDirName)
	if err := os.RemoveAll(snaps); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snaps, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "new.go"), []byte("package main\n\nfunc New() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = x.IndexWith(context.Background(), root, RunOptions{SnapshotMinBytes: 1})
	if err != nil || rep.FilesChanged != 1 || rep.SnapshotError == "" || rep.SnapshotSeq != 0 {
		t.Fatalf("run with a failing snapshot: %+v, %v", rep, err)
	}
	h := health(t, dir)
	if h.LastIndex == nil || h.LastIndex.State != state.IndexFinished || h.LastIndex.Finished.Seq != rep.LastSeq {
		t.Fatalf("last index %+v, want finished at %d", h.LastIndex, rep.LastSeq)
	}
}
