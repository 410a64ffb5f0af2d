package worktree_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/cos-dev/cos/worktree"
)

// demo is the main tree: A calls B, C calls nothing.
var demo = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.22\n",
	"a.go":   "package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return 2 }\n",
	"d.go":   "package demo\n\nfunc D() int { return 4 }\n",
}

// fixture is a main tree indexed into its .cos, and a linked worktree
// "feat" of it whose C now calls B.
type fixture struct {
	main, wt string
	git      *testutil.Git
	base     *state.State // the main tree's server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	g := testutil.GitRepo(t, demo)
	f := &fixture{main: g.Root, git: g, wt: filepath.Join(t.TempDir(), "feat")}
	ctx := context.Background()
	st := openState(t, filepath.Join(f.main, ".cos"), false)
	ix, err := indexing.New(st, indexing.Options{Roots: []string{f.main}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexWith(ctx, f.main, indexing.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	f.base = st
	g.Run("worktree", "add", "-q", "-b", "feat", f.wt)
	if real, err := filepath.EvalSymlinks(f.wt); err == nil {
		f.wt = real
	}
	write(t, f.wt, "a.go", "package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return B() + 1 }\n")
	return f
}

// worktreeState detects the fixture's worktree and opens the main tree's
// state as a worktree server does (no snapshots).
func (f *fixture) worktreeState(t *testing.T) (worktree.Info, *state.State) {
	t.Helper()
	info, ok, err := worktree.Detect(context.Background(), f.wt)
	if err != nil || !ok {
		t.Fatalf("detect %s: %v (a worktree: %v)", f.wt, err, ok)
	}
	return info, openState(t, filepath.Join(f.main, ".cos"), true)
}

// service is the worktree mode of the fixture's worktree over the main
// tree's state.
func (f *fixture) service(t *testing.T) (*state.State, *worktree.Service) {
	t.Helper()
	info, wst := f.worktreeState(t)
	svc, err := worktree.NewService(context.Background(), wst, worktree.Options{Worktree: info})
	if err != nil {
		t.Fatal(err)
	}
	return wst, svc
}

func openState(t *testing.T, dir string, overlay bool) *state.State {
	t.Helper()
	st, err := state.Open(context.Background(), state.Options{Dir: dir, NATS: bus.ModeOff, NoSnapshots: overlay, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	return st
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// callersOf returns the labels of the nodes with a calls edge into the
// function named name, as st's graph holds them now.
func callersOf(t *testing.T, st *state.State, name string) []string {
	t.Helper()
	var out []string
	if err := st.Read(context.Background(), func(v state.View) {
		for _, n := range v.Graph.NodesByLabel(name) {
			if n.Kind != "function" {
				continue
			}
			for _, src := range v.Graph.Sources(n.UID, "calls") {
				if m, ok := v.Graph.Node(src); ok {
					out = append(out, m.Label)
				}
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func uidOf(t *testing.T, st *state.State, name string) string {
	t.Helper()
	var uid string
	_ = st.Read(context.Background(), func(v state.View) {
		for _, n := range v.Graph.NodesByLabel(name) {
			if n.Kind == "function" {
				uid = n.UID
			}
		}
	})
	if uid == "" {
		t.Fatalf("no function %s in the graph", name)
	}
	return uid
}

func logTypes(t *testing.T, st *state.State) (head uint64, types map[string]int) {
	t.Helper()
	types = map[string]int{}
	if err := st.Log().Read(context.Background(), 1, func(ev eventlog.Event) error {
		head = ev.Seq
		types[ev.Type]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return head, types
}

// A worktree server's reads see the worktree's version of a changed
// function (a new call edge), the main tree's server does not, and nothing
// of the overlay reaches the log; a file reverted to the main tree's
// content leaves the overlay.
func TestService_OverlayIsLocal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	info, ok, err := worktree.Detect(ctx, f.wt)
	if err != nil || !ok {
		t.Fatalf("Detect(%s) = %v, %v; want a linked worktree", f.wt, ok, err)
	}
	if info.Main != f.main || info.Name != "feat" || info.Folder != f.wt {
		t.Fatalf("Detect = %+v, want main %s, name feat", info, f.main)
	}
	if _, ok, _ := worktree.Detect(ctx, f.main); ok {
		t.Fatal("the main worktree was taken for a linked one")
	}
	headBefore, _ := logTypes(t, f.base)

	wst := openState(t, filepath.Join(f.main, ".cos"), true)
	svc, err := worktree.NewService(ctx, wst, worktree.Options{Worktree: info})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := callersOf(t, wst, "B"), []string{"A", "C"}; !slices.Equal(got, want) {
		t.Fatalf("worktree: callers of B = %v, want %v", got, want)
	}
	if got, want := callersOf(t, f.base, "B"), []string{"A"}; !slices.Equal(got, want) {
		t.Fatalf("main tree: callers of B = %v, want %v", got, want)
	}
	if got := svc.Overlay().Paths(); !slices.Equal(got, []string{"a.go"}) {
		t.Fatalf("overlay paths = %v, want [a.go]", got)
	}
	headAfter, _ := logTypes(t, f.base)
	if headAfter != headBefore {
		t.Fatalf("the overlay reached the log: head %d → %d", headBefore, headAfter)
	}

	// The main tree is indexed again (another file changes): the log's
	// a.go is applied by the worktree server's tailer, and the overlay
	// stays over it.
	write(t, f.main, "d.go", "package demo\n\nfunc D() int { return B() }\n")
	ix, err := indexing.New(f.base, indexing.Options{Roots: []string{f.main}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexWith(ctx, f.main, indexing.RunOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := callersOf(t, wst, "B"), []string{"A", "C", "D"}; !slices.Equal(got, want) {
		t.Fatalf("worktree after a main re-index: callers of B = %v, want %v (main's D, worktree's C)", got, want)
	}
	if got, want := callersOf(t, f.base, "B"), []string{"A", "D"}; !slices.Equal(got, want) {
		t.Fatalf("main tree after its re-index: callers of B = %v, want %v", got, want)
	}

	// Reverted: the worktree's a.go is the main tree's again.
	write(t, f.wt, "a.go", demo["a.go"])
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := svc.Overlay().Paths(); len(got) != 1 || got[0] != "d.go" {
		// d.go differs now: the worktree has the old one.
		t.Fatalf("overlay after reverting a.go = %v, want [d.go] (the main tree changed d.go)", got)
	}
	if got, want := callersOf(t, wst, "B"), []string{"A"}; !slices.Equal(got, want) {
		t.Fatalf("worktree after the revert: callers of B = %v, want %v", got, want)
	}
	// The worktree's state writes no snapshot: one would hold the overlay.
	before := snapshots(t, f.main)
	if _, err := wst.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if after := snapshots(t, f.main); !slices.Equal(before, after) {
		t.Fatalf("the worktree's state wrote a snapshot: %v → %v", before, after)
	}
}

func snapshots(t *testing.T, main string) []string {
	t.Helper()
	es, _ := os.ReadDir(filepath.Join(main, ".cos", "snapshots"))
	var out []string
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %d", e.Name(), fi.Size(), fi.ModTime().UnixNano()))
	}
	return out
}

// A claim through the worktree server leads to a task.footprint_derived
// event naming the worktree and the symbols its diff changed.
func TestService_ClaimDerivesFootprint(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wst, svc := f.service(t)
	r := tools.New(wst, nil, tools.Options{Worktree: svc})
	call := func(tool, args string) map[string]any {
		t.Helper()
		env := r.Call(ctx, tool, json.RawMessage(args), envelope.Options{})
		if !env.OK() {
			t.Fatalf("%s %s: %s", tool, args, env.JSON())
		}
		return env.Data()
	}
	// Indexing from the worktree would add it to the shared graph.
	if env := r.Call(ctx, "cos_graph_index", json.RawMessage(`{}`), envelope.Options{}); env.OK() || env.Err().Code != envelope.CodeReadOnly {
		t.Fatalf("cos_graph_index in a worktree: %s, want E_READ_ONLY", env.JSON())
	}
	call("cos_task_create", `{"title":"make C call B"}`)
	call("cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1"}`)
	if got := svc.Status().Tasks; !slices.Equal(got, []string{"TASK-001"}) {
		t.Fatalf("followed tasks = %v", got)
	}
	n, err := svc.Footprints().Update(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Update = %d, %v; want 1 event", n, err)
	}
	var fd tasks.FootprintDerived
	found := 0
	if err := wst.Log().Read(ctx, 1, func(ev eventlog.Event) error {
		if ev.Type == tasks.TypeFootprintDerived && ev.Stream == tasks.FootprintStreamOf("TASK-001") {
			found++
			return json.Unmarshal(ev.Data, &fd)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if found != 1 {
		t.Fatalf("%d footprint events, want 1", found)
	}
	cUID := uidOf(t, wst, "C")
	if fd.Worktree != "feat" || fd.Assignee != "agent-1" || !slices.Equal(fd.Files, []string{"a.go"}) || !slices.Equal(fd.Symbols, []string{cUID}) {
		t.Fatalf("footprint = %+v, want worktree feat, agent-1, files [a.go], symbols [%s]", fd, cUID)
	}
	// Nothing changed: no second event.
	if n, err := svc.Footprints().Update(ctx); err != nil || n != 0 {
		t.Fatalf("second Update = %d, %v; want none", n, err)
	}
	// The worktree changes D too: a new footprint.
	write(t, f.wt, "d.go", "package demo\n\nfunc D() int { return 5 }\n")
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.Footprints().Update(ctx); err != nil || n != 1 {
		t.Fatalf("Update after editing D = %d, %v; want 1", n, err)
	}
	// Released: no longer followed.
	call("cos_task_release", `{"task_id":"TASK-001","assignee":"agent-1"}`)
	if n, err := svc.Footprints().Update(ctx); err != nil || n != 0 {
		t.Fatalf("Update after release = %d, %v; want none", n, err)
	}
	if got := svc.Status().Tasks; len(got) != 0 {
		t.Fatalf("followed after release: %v", got)
	}
}

// A worktree's first sync starts from the main tree's extract cache: it
// applies the changed file (and what depends on it), not every file of
// the tree again.
func TestOverlay_FirstSyncAppliesTheChangedFiles(t *testing.T) {
	files := maps.Clone(demo)
	files["util/u.go"] = "package util\n\nfunc U() int { return 5 }\n"
	files["util/v.go"] = "package util\n\nfunc V() int { return U() }\n"
	g := testutil.GitRepo(t, files)
	ctx := context.Background()
	st := openState(t, filepath.Join(g.Root, ".cos"), false)
	ix, err := indexing.New(st, indexing.Options{Roots: []string{g.Root}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexWith(ctx, g.Root, indexing.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "feat")
	g.Run("worktree", "add", "-q", "-b", "feat", wt)
	write(t, wt, "a.go", "package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return B() + 1 }\n")
	info, ok, err := worktree.Detect(ctx, wt)
	if err != nil || !ok {
		t.Fatalf("Detect(%s) = %v, %v", wt, ok, err)
	}
	ov, err := worktree.NewOverlay(openState(t, filepath.Join(g.Root, ".cos"), true), worktree.Options{Worktree: info})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ov.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Applied, "a.go") || slices.Contains(res.Applied, "util/u.go") || slices.Contains(res.Applied, "util/v.go") {
		t.Fatalf("first sync applied %v, want a.go and nothing of package util", res.Applied)
	}
	if got := ov.Paths(); !slices.Equal(got, []string{"a.go"}) {
		t.Fatalf("overlay paths = %v, want [a.go]", got)
	}
}

// A footprint is derived from the worktree as it is on disk, not from an
// overlay that has not caught up yet (the watcher's sync still running):
// a new function is among its symbols without an explicit Sync first.
func TestFootprints_DeriveReadsTheDisk(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wst, svc := f.service(t)
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, f.wt, "d.go", "package demo\n\nfunc D() int { return 4 }\n\nfunc E() int { return 5 }\n")
	fd, err := svc.Footprints().Derive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{uidOf(t, wst, "C"), uidOf(t, wst, "E")}
	slices.Sort(want)
	if !slices.Equal(fd.Files, []string{"a.go", "d.go"}) || !slices.Equal(fd.Symbols, want) {
		t.Fatalf("derived files %v, symbols %v; want [a.go d.go], %v", fd.Files, fd.Symbols, want)
	}
}

// A graph read in a worktree of a main tree never indexed finds nothing
// and says why (index the main tree), not only "no node matches".
func TestService_MainNotIndexed_ReadSaysWhy(t *testing.T) {
	g := testutil.GitRepo(t, demo)
	wt := filepath.Join(t.TempDir(), "feat")
	g.Run("worktree", "add", "-q", "-b", "feat", wt)
	ctx := context.Background()
	info, _, err := worktree.Detect(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	wst := openState(t, filepath.Join(g.Root, ".cos"), true)
	svc, err := worktree.NewService(ctx, wst, worktree.Options{Worktree: info})
	if err != nil {
		t.Fatal(err)
	}
	r := tools.New(wst, nil, tools.Options{Worktree: svc})
	env := r.Call(ctx, "cos_graph_resolve", json.RawMessage(`{"q":"A"}`), envelope.Options{})
	if env.OK() || env.Err().Code != envelope.CodeNotFound || !strings.Contains(env.Err().Message, "not indexed") ||
		!strings.Contains(env.Err().Message, g.Root) {
		t.Fatalf("resolve in a worktree of a main tree never indexed: %s; want E_NOT_FOUND saying %s is not indexed", env.JSON(), g.Root)
	}
}

// A worktree whose folder was deleted under a running server is said to
// be gone, and the overlay keeps what it held: the files are not read as
// removed.
func TestOverlay_WorktreeGone(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	info, wst := f.worktreeState(t)
	ov, err := worktree.NewOverlay(wst, worktree.Options{Worktree: info})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ov.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	held := ov.Paths()
	if got := callersOf(t, wst, "B"); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("callers of B in the worktree = %v, want [A C]", got)
	}
	if err := os.RemoveAll(f.wt); err != nil {
		t.Fatal(err)
	}
	if _, err := ov.Sync(ctx); !errors.Is(err, worktree.ErrWorktreeGone) || !strings.Contains(err.Error(), f.wt) {
		t.Fatalf("sync of a deleted worktree: %v, want ErrWorktreeGone naming %s", err, f.wt)
	}
	if got := ov.Paths(); !slices.Equal(got, held) {
		t.Fatalf("overlay after the worktree was deleted = %v, want %v", got, held)
	}
	if got := callersOf(t, wst, "B"); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("callers of B after the worktree was deleted = %v, want [A C] as last read", got)
	}
}

// The search index of a worktree server is its own: fed from a graph with
// the worktree's files over it, it must not be left in a slot of the
// state folder that the next process reuses. Here the main tree adds a
// function to a file the worktree changed too; after the worktree server
// has followed that index and closed, a new process of the main tree
// still finds the function by the words of its name (the search index,
// not the graph's exact labels).
func TestService_SearchIndexStaysPrivate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wst, svc := f.service(t)
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, f.main, "a.go", demo["a.go"]+"\nfunc AddedInMain() int { return 5 }\n")
	ix, err := indexing.New(f.base, indexing.Options{Roots: []string{f.main}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexWith(ctx, f.main, indexing.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := callersOf(t, wst, "B"); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("the worktree server after the main index: callers of B = %v, want [A C]", got)
	}
	if err := wst.Close(ctx); err != nil {
		t.Fatal(err)
	}
	next := openState(t, filepath.Join(f.main, ".cos"), false)
	env := tools.New(next, nil, tools.Options{}).Call(ctx, "cos_graph_resolve", json.RawMessage(`{"q":"added in main"}`), envelope.Options{})
	if !env.OK() || !strings.Contains(string(env.JSON()), "code:function:a.go::AddedInMain") {
		t.Fatalf("a process of the main tree after the worktree server closed: resolve \"added in main\" (a search by words) = %s", env.JSON())
	}
}
