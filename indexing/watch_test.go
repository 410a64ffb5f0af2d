package indexing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// graphDigest is the graph's content: every file's hash, every node and
// every edge with its lines. It is the state hash less what differs
// between two state folders by construction (the seq and time of the last
// index run, each file's extraction time).
func graphDigest(tb testing.TB, st *state.State) string {
	tb.Helper()
	var lines []string
	if err := st.Read(context.Background(), func(v state.View) {
		for p, h := range v.Graph.FileHashes() {
			lines = append(lines, "file "+p+" "+h)
		}
		v.Graph.Nodes(func(n graph.Node) bool {
			lines = append(lines, fmt.Sprintf("node %s %s %s %s %d %d", n.UID, n.Kind, n.Label, n.Path, n.Line, n.EndLine))
			for _, e := range v.Graph.Out(n.UID) {
				lines = append(lines, fmt.Sprintf("edge %s %s %s %d", e.Source, e.Target, e.Type, e.Line))
			}
			return true
		})
	}); err != nil {
		tb.Fatal(err)
	}
	sort.Strings(lines)
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			tb.Fatalf("duplicate in the graph: %s", lines[i])
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// freshDigest indexes root into a new state folder and returns its digest.
func freshDigest(tb testing.TB, root string) string {
	tb.Helper()
	x, st := openIndexer(tb, tb.TempDir(), Options{Roots: []string{root}})
	if _, err := x.index(context.Background(), root, nil); err != nil {
		tb.Fatal(err)
	}
	return graphDigest(tb, st)
}

// startWatch runs x.Watch until the test ends and returns a counter of
// finished runs.
func startWatch(tb testing.TB, x *Indexer, o WatchOptions) *atomic.Int64 {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var runs atomic.Int64
	prev := o.OnRun
	o.OnRun = func(r WatchRun) {
		if r.Err != nil {
			tb.Logf("watch run failed: %v", r.Err)
		}
		runs.Add(1)
		if prev != nil {
			prev(r)
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := x.Watch(ctx, o); err != nil {
			tb.Errorf("Watch: %v", err)
		}
	}()
	tb.Cleanup(func() { cancel(); wg.Wait() })
	return &runs
}

// waitFor polls cond every 10 ms until it holds (returning how long it
// took) or timeout passes (failing the test with what).
func waitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) time.Duration {
	tb.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > timeout {
			tb.Fatalf("after %v: %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func fileHash(tb testing.TB, st *state.State, rel string) string {
	tb.Helper()
	var h string
	if err := st.Read(context.Background(), func(v state.View) { h = v.Graph.FileHashes()[rel] }); err != nil {
		tb.Fatal(err)
	}
	return h
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// watchedRepo makes a git repository of files, indexes it into a state
// folder and starts a watcher whose first run has finished.
func watchedRepo(t *testing.T, files map[string]string) (*testutil.Git, *Indexer, *state.State) {
	t.Helper()
	g := testutil.GitRepo(t, files)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	runs := startWatch(t, x, WatchOptions{})
	waitFor(t, 5*time.Second, "the watcher's first run", func() bool { return runs.Load() >= 1 })
	if on, root := x.Watching(); !on || root != g.Root {
		t.Fatalf("Watching() = %v %q, want true %q", on, root, g.Root)
	}
	return g, x, st
}

// An edit is in the graph within a second of the write, with no index
// call: ten lines added above a function move it ten lines down.
func TestWatch_EditVisibleWithinASecond(t *testing.T) {
	g, _, st := watchedRepo(t, map[string]string{"a.py": "def f():\n    return 1\n", "b.py": "from a import f\n\ndef g():\n    f()\n"})
	for i := range 5 {
		content := strings.Repeat("# pad\n", 10*(i+1)) + "def f():\n    return 1\n"
		g.Write("a.py", content)
		took := waitFor(t, time.Second, "the edit of a.py is not in the graph", func() bool { return fileHash(t, st, "a.py") == sha(content) })
		t.Logf("edit %d visible after %v", i, took)
		var line int
		_ = st.Read(context.Background(), func(v state.View) {
			v.Graph.Nodes(func(n graph.Node) bool {
				if n.Path == "a.py" && n.Label == "f" {
					line = n.Line
				}
				return true
			})
		})
		if want := 10*(i+1) + 1; line != want {
			t.Fatalf("f is on line %d in the graph, want %d", line, want)
		}
	}
}

// Editor temp files, atomic saves, renames, folders created, renamed and
// deleted, a file replaced by a folder and a create-then-delete inside one
// burst: the graph ends as a fresh index of the final tree.
func TestWatch_EditorSequences(t *testing.T) {
	g, _, st := watchedRepo(t, map[string]string{
		"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 2\n",
		"pkg/c.py": "def c():\n    return 3\n", "pkg/d.py": "from pkg.c import c\n\ndef d():\n    c()\n",
		"old/e.py": "def e():\n    return 5\n", "becomes_dir": "text\n",
		".gitignore": "ignored/\n*.log\n",
	})
	abs := func(rel string) string { return filepath.Join(g.Root, filepath.FromSlash(rel)) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"vim write (4913 probe, backup by rename, new file, backup removed)", func() {
			g.Write("4913", "")
			must(os.Remove(abs("4913")))
			g.Write(".a.py.swp", "swap")
			must(os.Rename(abs("a.py"), abs("a.py~")))
			g.Write("a.py", "def a():\n    return 10\n\ndef a2():\n    return a()\n")
			must(os.Remove(abs("a.py~")))
			must(os.Remove(abs(".a.py.swp")))
		}},
		{"atomic save by rename", func() {
			g.Write(".b.py.tmp123", "def b():\n    return 20\n")
			must(os.Rename(abs(".b.py.tmp123"), abs("b.py")))
		}},
		{"emacs lock link and backup", func() {
			must(os.Symlink("user@host.123", abs("pkg/.#c.py")))
			g.Write("pkg/c.py", "def c():\n    return 30\n\ndef c2():\n    return 31\n")
			must(os.Remove(abs("pkg/.#c.py")))
		}},
		{"create then delete in one burst", func() {
			g.Write("flash.py", "def flash():\n    return 0\n")
			must(os.Remove(abs("flash.py")))
		}},
		{"new folder with files, then renamed", func() {
			g.Write("newpkg/sub/f.py", "def f():\n    return 6\n")
			g.Write("newpkg/g.py", "from newpkg.sub.f import f\n\ndef g():\n    f()\n")
			time.Sleep(300 * time.Millisecond)
			must(os.Rename(abs("newpkg"), abs("renamed")))
			g.Write("renamed/sub/h.py", "def h():\n    return 7\n")
		}},
		{"folder deleted", func() { must(os.RemoveAll(abs("old"))) }},
		{"file replaced by a folder", func() {
			must(os.Remove(abs("becomes_dir")))
			g.Write("becomes_dir/inner.py", "def inner():\n    return 8\n")
		}},
		{"ignored files", func() {
			g.Write("ignored/x.py", "def x():\n    return 9\n")
			g.Write("debug.log", "log\n")
		}},
	}
	for _, s := range steps {
		s.do()
		want := freshDigest(t, g.Root)
		took := waitFor(t, 3*time.Second, s.name+": the graph differs from a fresh index", func() bool { return graphDigest(t, st) == want })
		t.Logf("%s: converged after %v", s.name, took)
	}
	// Nothing arrives late (an ignored file indexed after all).
	want := graphDigest(t, st)
	time.Sleep(DefaultWatchMaxDelay + 400*time.Millisecond)
	if got := graphDigest(t, st); got != want {
		t.Fatal("the graph changed after it had converged")
	}
}

// A branch switch touching hundreds of files converges to a fresh index
// of the checkout, both ways.
func TestWatch_BranchSwitch(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("m%02d/f%03d.py", i%20, i)] = fmt.Sprintf("def f%d():\n    return %d\n", i, i)
	}
	g := testutil.GitRepo(t, files)
	g.Run("checkout", "-q", "-b", "other")
	for i := range 300 {
		rel := fmt.Sprintf("m%02d/f%03d.py", i%20, i)
		switch {
		case i%3 == 0:
			g.Write(rel, fmt.Sprintf("# changed\ndef f%d():\n    return %d\n", i, -i))
		case i%7 == 0:
			_ = os.Remove(filepath.Join(g.Root, filepath.FromSlash(rel)))
		}
	}
	for i := range 100 {
		g.Write(fmt.Sprintf("n%02d/g%03d.py", i%10, i), fmt.Sprintf("def g%d():\n    return %d\n", i, i))
	}
	g.Run("add", "-A")
	g.Run("commit", "-q", "-m", "other")
	g.Run("checkout", "-q", "main")

	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	runs := startWatch(t, x, WatchOptions{})
	waitFor(t, 5*time.Second, "the watcher's first run", func() bool { return runs.Load() >= 1 })
	for _, branch := range []string{"other", "main"} {
		g.Run("checkout", "-q", branch)
		want := freshDigest(t, g.Root)
		took := waitFor(t, 10*time.Second, "checkout "+branch+": the graph differs from a fresh index", func() bool { return graphDigest(t, st) == want })
		t.Logf("checkout %s: converged after %v", branch, took)
	}
}

// Two processes' indexers on one state folder: exactly one watches; when
// it stops the other takes over within about a second and picks up the
// next edit.
func TestWatch_ElectionFailover(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{"a.py": "def a():\n    return 1\n"})
	dir := t.TempDir()
	a, st := openIndexer(t, dir, Options{Roots: []string{g.Root}})
	b, _ := openIndexer(t, dir, Options{Roots: []string{g.Root}})
	if _, err := a.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	ctxA, stopA := context.WithCancel(context.Background())
	doneA := make(chan error, 1)
	go func() { doneA <- a.Watch(ctxA, WatchOptions{}) }()
	waitFor(t, 2*time.Second, "a does not watch", func() bool { on, _ := a.Watching(); return on })
	startWatch(t, b, WatchOptions{})
	time.Sleep(time.Second)
	if on, _ := b.Watching(); on {
		t.Fatal("both indexers watch")
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("a.Watch: %v", err)
	}
	took := waitFor(t, 2*time.Second, "b did not take over", func() bool { on, root := b.Watching(); return on && root == g.Root })
	t.Logf("b took over after %v", took)
	g.Write("a.py", "def a():\n    return 2\n")
	waitFor(t, 3*time.Second, "the edit after the take-over is not in the graph", func() bool {
		return fileHash(t, st, "a.py") == sha("def a():\n    return 2\n")
	})
}

// Bad options are refused before anything is watched.
func TestWatch_BadOptions(t *testing.T) {
	x, _ := openIndexer(t, t.TempDir(), Options{})
	for _, o := range []WatchOptions{{Quiet: -1}, {MaxDelay: -time.Second}, {MaxPaths: -1}, {ElectRetry: -1}} {
		if err := x.Watch(context.Background(), o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
}

// Before any index the watcher waits, and starts on the first one.
func TestWatch_WaitsForAFirstIndex(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{"a.py": "def a():\n    return 1\n"})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	startWatch(t, x, WatchOptions{RootPoll: 100 * time.Millisecond})
	waitFor(t, 2*time.Second, "not elected", func() bool { on, _ := x.Watching(); return on })
	if _, root := x.Watching(); root != "" {
		t.Fatalf("watching %q before any index", root)
	}
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Second, "the first index is not watched", func() bool { _, root := x.Watching(); return root == g.Root })
	time.Sleep(200 * time.Millisecond)
	g.Write("a.py", "def a():\n    return 3\n")
	waitFor(t, 2*time.Second, "the edit is not in the graph", func() bool { return fileHash(t, st, "a.py") == sha("def a():\n    return 3\n") })
}
