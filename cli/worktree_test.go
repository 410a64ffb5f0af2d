package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// cos call started in a linked worktree, with no state folder given,
// answers from the main tree's state folder with the worktree's version
// of a changed function, says so in cos_health, and appends nothing;
// the same call in the main tree does not see the change.
// indexedWorktree is a git repository whose main tree is indexed into its
// .cos (stateDir), with a linked worktree wt on branch feat.
func indexedWorktree(t *testing.T) (g *testutil.Git, stateDir, wt string) {
	t.Helper()
	g = testutil.GitRepo(t, map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"a.go":   "package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return 2 }\n",
	})
	stateDir = filepath.Join(g.Root, ".cos")
	if code, _, errs := run(t, stateDir, "index", g.Root); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	wt = filepath.Join(t.TempDir(), "feat")
	g.Run("worktree", "add", "-q", "-b", "feat", wt)
	return g, stateDir, wt
}

func TestCall_Worktree_ReadsItsChangedFiles(t *testing.T) {
	g, stateDir, wt := indexedWorktree(t)
	if err := os.WriteFile(filepath.Join(wt, "a.go"), []byte("package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return B() + 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	headBefore := logHead(t, stateDir)
	call := func(dir string, args ...string) (map[string]any, string) {
		t.Helper()
		cmd := cosProcess(t, append([]string{"call"}, args...)...)
		cmd.Dir = dir
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, "COS_STATE_DIR=") })
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("cos call %v in %s: %v\n%s\n%s", args, dir, err, out, errb.String())
		}
		var env struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("cos call %v: %v: %s", args, err, out)
		}
		return env.Data, errb.String()
	}
	refs := `{"uid": "code:function:a.go::B", "kinds": ["calls"]}`
	inWT, _ := call(wt, "--nats", "off", "cos_graph_references", refs)
	inMain, _ := call(g.Root, "--nats", "off", "cos_graph_references", refs)
	if got := callerLabels(inWT); !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("callers of B in the worktree = %v, want [A C]; answer %v", got, inWT)
	}
	if got := callerLabels(inMain); !slices.Equal(got, []string{"A"}) {
		t.Fatalf("callers of B in the main tree = %v, want [A]; answer %v", got, inMain)
	}
	health, _ := call(wt, "--nats", "off", "cos_health")
	w, _ := health["worktree"].(map[string]any)
	if w["name"] != "feat" || w["files"] != float64(1) {
		t.Fatalf("cos_health worktree = %v, want name feat, files 1", health["worktree"])
	}
	if h := logHead(t, stateDir); h != headBefore {
		t.Fatalf("worktree reads appended to the log: head %s → %s", headBefore, h)
	}

	// A claim made in the worktree records the task's footprint: the
	// worktree's branch and the symbol its diff changed.
	call(wt, "--nats", "off", "cos_task_create", `{"title": "C calls B"}`)
	call(wt, "--nats", "off", "cos_task_claim", `{"task_id": "TASK-001", "assignee": "agent-1"}`)
	st, err := state.Open(context.Background(), state.Options{Dir: stateDir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close(context.Background()) }()
	var fds []tasks.FootprintDerived
	if err := st.Log().Read(context.Background(), 1, func(ev eventlog.Event) error {
		if ev.Type == tasks.TypeFootprintDerived && ev.Stream == tasks.FootprintStreamOf("TASK-001") {
			var fd tasks.FootprintDerived
			if err := json.Unmarshal(ev.Data, &fd); err != nil {
				return err
			}
			fds = append(fds, fd)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(fds) != 1 || fds[0].Worktree != "feat" || fds[0].Assignee != "agent-1" ||
		!slices.Equal(fds[0].Symbols, []string{"code:function:a.go::C"}) {
		t.Fatalf("footprint events = %+v, want one naming feat, agent-1 and code:function:a.go::C", fds)
	}
}

// callerLabels returns the sorted labels of the calls edges' sources a
// references answer lists.
func callerLabels(data map[string]any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if l, ok := x["label"].(string); ok && x["type"] == "calls" {
				out = append(out, l)
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(data)
	slices.Sort(out)
	return slices.Compact(out)
}

// logHead is the seq of the last event of the state folder's log.
func logHead(t *testing.T, stateDir string) string {
	t.Helper()
	code, out, errs := run(t, stateDir, "log", "head")
	if code != 0 {
		t.Fatalf("log head: %d %s", code, errs)
	}
	return strings.TrimSpace(out)
}

// cos serve started in a linked worktree watches it: a function changed
// while it serves is read at once by its next graph read, and a task
// claimed through it gets its footprint recorded within seconds.
func TestServe_Worktree_WatchesAndDerivesFootprint(t *testing.T) {
	t.Setenv("COS_STATE_DIR", "")
	_, stateDir, wt := indexedWorktree(t)
	s := startStdioProcessIn(t, "worktree server", wt, "serve", "--nats", "off", "--stdio")
	refs := `{"uid": "code:function:a.go::B", "kinds": ["calls"]}`
	callers := func() []string {
		env := s.call("cos_graph_references", refs)
		if !env.OK {
			t.Fatalf("references: %+v", env.Error)
		}
		return callerLabels(env.Data)
	}
	if got := callers(); !slices.Equal(got, []string{"A"}) {
		t.Fatalf("callers of B before the edit = %v, want [A]", got)
	}
	if !strings.Contains(s.errText(), "worktree mode") {
		t.Errorf("stderr does not say worktree mode:\n%s", s.errText())
	}
	if env := s.call("cos_task_create", `{"title": "C calls B"}`); !env.OK {
		t.Fatalf("create: %+v", env.Error)
	}
	if env := s.call("cos_task_claim", `{"task_id": "TASK-001", "assignee": "agent-1"}`); !env.OK {
		t.Fatalf("claim: %+v", env.Error)
	}
	if err := os.WriteFile(filepath.Join(wt, "a.go"), []byte("package demo\n\nfunc B() int { return 1 }\n\nfunc A() int { return B() }\n\nfunc C() int { return B() + 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for got := callers(); !slices.Equal(got, []string{"A", "C"}); got = callers() {
		if time.Now().After(deadline) {
			t.Fatalf("callers of B after the edit = %v, want [A C]; stderr:\n%s", got, s.errText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		env := s.call("cos_health", `{}`)
		if w, _ := env.Data["worktree"].(map[string]any); w["files"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cos_health worktree = %v, want files 1", env.Data["worktree"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		fds := footprintEvents(t, stateDir, "TASK-001")
		if len(fds) > 0 && slices.Equal(fds[len(fds)-1].Symbols, []string{"code:function:a.go::C"}) {
			if fds[len(fds)-1].Worktree != "feat" {
				t.Fatalf("footprint worktree = %q, want feat", fds[len(fds)-1].Worktree)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("footprint events = %+v, want the last naming code:function:a.go::C; stderr:\n%s", fds, s.errText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// footprintEvents reads the task.footprint_derived events of task id
// from the state folder's log.
func footprintEvents(t *testing.T, stateDir, id string) []tasks.FootprintDerived {
	t.Helper()
	lg, err := state.OpenLog(context.Background(), stateDir, state.LogOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lg.Close(context.Background()) }()
	var fds []tasks.FootprintDerived
	if err := lg.Read(context.Background(), 1, func(ev eventlog.Event) error {
		if ev.Type == tasks.TypeFootprintDerived && ev.Stream == tasks.FootprintStreamOf(id) {
			var fd tasks.FootprintDerived
			if err := json.Unmarshal(ev.Data, &fd); err != nil {
				return err
			}
			fds = append(fds, fd)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return fds
}

// cos index in a linked worktree, with no state folder given, is refused
// and names the main worktree (it wrote a ./.cos there that cos serve and
// cos call in the worktree never read); with --state-dir it indexes.
func TestIndex_Worktree_RefusedWithoutStateDir(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"a.go":   "package demo\n\nfunc A() int { return 1 }\n",
	})
	wt := filepath.Join(t.TempDir(), "feat")
	g.Run("worktree", "add", "-q", "-b", "feat", wt)
	index := func(args ...string) (string, error) {
		cmd := cosProcess(t, append([]string{"index", "--nats", "off"}, args...)...)
		cmd.Dir = wt
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, "COS_STATE_DIR=") })
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		return errb.String(), err
	}
	errs, err := index()
	if err == nil || !strings.Contains(errs, "linked git worktree") || !strings.Contains(errs, g.Root) {
		t.Fatalf("cos index in a worktree: err %v, stderr %q; want a refusal naming %s", err, errs, g.Root)
	}
	if _, err := os.Stat(filepath.Join(wt, ".cos")); !os.IsNotExist(err) {
		t.Fatalf("the refused index left %s/.cos (%v)", wt, err)
	}
	own := filepath.Join(t.TempDir(), "own")
	if errs, err := index("--state-dir", own); err != nil {
		t.Fatalf("cos index --state-dir in a worktree: %v\n%s", err, errs)
	}
}

// Commands other than serve, call and index, run in a linked worktree
// with no state folder given, read the main tree's state: the log head of
// the worktree is the main tree's.
func TestLogHead_Worktree_ReadsTheMainState(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"a.go":   "package demo\n\nfunc A() int { return 1 }\n",
	})
	head := func(dir string) string {
		cmd := cosProcess(t, "log", "head", "--json")
		cmd.Dir = dir
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, "COS_STATE_DIR=") })
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("cos log head in %s: %v", dir, err)
		}
		return strings.TrimSpace(string(out))
	}
	idx := cosProcess(t, "index", "--nats", "off", "--no-progress", ".")
	idx.Dir = g.Root
	idx.Env = slices.DeleteFunc(idx.Env, func(e string) bool { return strings.HasPrefix(e, "COS_STATE_DIR=") })
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("cos index: %v\n%s", err, out)
	}
	wt := filepath.Join(t.TempDir(), "feat")
	g.Run("worktree", "add", "-q", "-b", "feat", wt)
	main, inWT := head(g.Root), head(wt)
	if main == "" || !strings.Contains(main, `"seq":`) || strings.Contains(main, `"seq":0`) {
		t.Fatalf("cos log head in the main tree: %s", main)
	}
	if inWT != main {
		t.Fatalf("cos log head in the worktree: %s, in the main tree %s", inWT, main)
	}
	if _, err := os.Stat(filepath.Join(wt, ".cos")); !os.IsNotExist(err) {
		t.Fatalf("cos log head made %s/.cos (%v)", wt, err)
	}
}
