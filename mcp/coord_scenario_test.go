package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// The coordination scenario: four agents, each with `cos serve` in its
// own git worktree of a real repository (cobra, from the module cache),
// share one board and one graph. Two pairs of tasks overlap — one through
// a shared function named at claim time, one through a function and a
// caller of it changed in two worktrees — and the other pairs are
// disjoint. Every overlap is warned (at the claim, or as a change under
// the task told to its subscriber within 2 s of the commit that made it),
// disjoint work is warned of nothing, and a read at the seq of each
// warning (time travel, as `cos replay` rebuilds it) answers the same.

const (
	scenFlagGroup = "code:function:flag_groups.go::Command.MarkFlagsMutuallyExclusive"
	scenStrip     = "code:function:command.go::stripFlags"
	scenFind      = "code:function:command.go::Command.Find"
	// scenNoticeBound is the latency the issue sets from the commit of a
	// change to the notification of the task it lands under.
	scenNoticeBound = 2 * time.Second
)

// scenOverlap is the part of an overlap the scenario checks.
type scenOverlap struct {
	TaskID    string `json:"task_id"`
	Closeness string `json:"closeness"`
	Depth     int    `json:"depth"`
	Shared    []struct {
		UID       string `json:"uid"`
		Direction string `json:"direction"`
	} `json:"shared"`
}

// scenNotice is the part of a changed_under_you notice the scenario checks.
type scenNotice struct {
	Seq     uint64 `json:"seq"`
	Kind    string `json:"kind"`
	TaskID  string `json:"task_id"`
	Path    string `json:"path"`
	Changed []struct {
		UID string `json:"uid"`
	} `json:"changed"`
}

// scenCoord is cos_task_get's coordination.
type scenCoord struct {
	Footprint struct {
		Symbols []string `json:"symbols"`
		Derived *struct {
			Worktree string   `json:"worktree"`
			Symbols  []string `json:"symbols"`
			Seq      uint64   `json:"seq"`
		} `json:"derived"`
	} `json:"footprint"`
	Overlaps        []scenOverlap `json:"overlaps"`
	ChangedUnderYou struct {
		Notices []scenNotice `json:"notices"`
		Total   int          `json:"total"`
	} `json:"changed_under_you"`
}

func TestScenario_FourWorktreesWarnedOfOverlaps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four servers on a real repository")
	}
	base := t.TempDir()
	g := scenRepo(t)
	main := g.Root
	state := filepath.Join(main, ".cos")
	scenRun(t, main, cosBin, "index", "--nats", "off", ".")

	agents := []string{"agent-a", "agent-b", "agent-c", "agent-d"}
	wts := map[string]string{}
	for _, a := range agents {
		wts[a] = filepath.Join(base, "wt-"+a)
		g.Run("worktree", "add", "-q", "-b", "work-"+a, wts[a])
	}
	for i, a := range agents {
		out := liveCosCall(t, state, "cos_task_create", fmt.Sprintf(`{"title":"work of %s"}`, a))
		if !strings.Contains(string(out), fmt.Sprintf(`"task_id":"TASK-%03d"`, i+1)) {
			t.Fatalf("create: %s", out)
		}
	}
	cl := map[string]*liveClient{}
	for _, a := range agents {
		cl[a] = liveStartIn(t, wts[a], "serve", "--nats", "off", "--index=false")
	}

	// Pair 1, warned at claim: A and B name the same function (B by its
	// file).
	claimA := scenClaim(t, cl["agent-a"], "TASK-001", "agent-a", []string{scenFlagGroup})
	if len(claimA.overlaps) != 0 {
		t.Fatalf("the first claim was warned of %+v", claimA.overlaps)
	}
	claimB := scenClaim(t, cl["agent-b"], "TASK-002", "agent-b", []string{"flag_groups.go"})
	scenWantOverlap(t, "claim of TASK-002", claimB.overlaps, "TASK-001", "same_symbol", scenFlagGroup)
	claimC := scenClaim(t, cl["agent-c"], "TASK-003", "agent-c", nil)
	claimD := scenClaim(t, cl["agent-d"], "TASK-004", "agent-d", nil)
	if len(claimC.overlaps)+len(claimD.overlaps) != 0 {
		t.Fatalf("claims without a footprint were warned: %+v %+v", claimC.overlaps, claimD.overlaps)
	}

	// Pair 2, warned as it happens: C changes stripFlags in its worktree,
	// D changes Command.Find, which calls it.
	scenSubscribe(t, cl["agent-c"], "cos://task/TASK-003")
	scenEdit(t, wts["agent-c"], "command.go", "func stripFlags(args []string, c *Command) []string {\n",
		"\tif len(args) == 0 { // agent C\n\t\treturn args\n\t}\n")
	cCoord := scenWaitCoord(t, cl["agent-c"], "TASK-003", func(c scenCoord) bool {
		return c.Footprint.Derived != nil && slices.Contains(c.Footprint.Derived.Symbols, scenStrip)
	}, "TASK-003's footprint derived from agent C's worktree holds stripFlags")
	if got := cCoord.Footprint.Derived.Symbols; len(got) != 1 {
		t.Errorf("TASK-003's derived footprint %v, want stripFlags alone", got)
	}
	sinceD := time.Now()
	scenEdit(t, wts["agent-d"], "command.go", "func (c *Command) Find(args []string) (*Command, []string, error) {\n",
		"\tif c == nil { // agent D\n\t\treturn nil, args, nil\n\t}\n")
	dCoord := scenWaitCoord(t, cl["agent-d"], "TASK-004", func(c scenCoord) bool {
		return c.Footprint.Derived != nil && slices.Contains(c.Footprint.Derived.Symbols, scenFind)
	}, "TASK-004's footprint derived from agent D's worktree holds Command.Find")
	scenWantOverlap(t, "TASK-004", dCoord.Overlaps, "TASK-003", "caller", scenFind)
	noteD, ok := cl["agent-c"].waitNote(sinceD, "notifications/resources/updated", "cos://task/TASK-003", 15*time.Second)
	if !ok {
		t.Fatalf("agent C was not told that TASK-004 changed a caller of its code; stderr:\n%s", cl["agent-c"].stderr())
	}
	lat := scenLatency(t, cl["agent-c"], "cos://task/TASK-003", scenEventTime(t, state, dCoord.Footprint.Derived.Seq))
	t.Logf("worktree change → notice of the task it lands under: %v after the footprint's commit (bound %v), %v after agent D saved the file",
		lat, scenNoticeBound, noteD.At.Sub(sinceD).Round(time.Millisecond))
	if lat > scenNoticeBound {
		t.Errorf("the notice came %v after the commit, more than %v", lat, scenNoticeBound)
	}
	cCoord = scenGet(t, cl["agent-c"], "TASK-003", nil)
	scenWantOverlap(t, "TASK-003", cCoord.Overlaps, "TASK-004", "caller", scenFind)
	if !scenHasNotice(cCoord, "task", "TASK-004", scenFind) {
		t.Errorf("TASK-003's changed_under_you %+v does not name TASK-004's change of Command.Find", cCoord.ChangedUnderYou)
	}

	// A pull into the main tree changes pair 1's function: both tasks are
	// told, A within 2 s of the index that committed it.
	scenSubscribe(t, cl["agent-a"], "cos://task/TASK-001")
	sinceMain := time.Now()
	scenEdit(t, main, "flag_groups.go", "func (c *Command) MarkFlagsMutuallyExclusive(flagNames ...string) {\n",
		"\tif len(flagNames) == 0 { // a pull\n\t\treturn\n\t}\n")
	g.Run("commit", "-qam", "upstream change")
	scenRun(t, main, cosBin, "index", "--nats", "off", ".")
	_, ok = cl["agent-a"].waitNote(sinceMain, "notifications/resources/updated", "cos://task/TASK-001", 15*time.Second)
	if !ok {
		t.Fatalf("agent A was not told of the index that changed its function; stderr:\n%s", cl["agent-a"].stderr())
	}
	for _, id := range []string{"TASK-001", "TASK-002"} {
		c := scenGet(t, cl["agent-a"], id, nil)
		if !scenHasNotice(c, "index", "", scenFlagGroup) {
			t.Fatalf("%s's changed_under_you %+v does not name the index of flag_groups.go", id, c.ChangedUnderYou)
		}
		if id == "TASK-001" {
			n := c.ChangedUnderYou.Notices[0]
			lat = scenLatency(t, cl["agent-a"], "cos://task/TASK-001", scenEventTime(t, state, n.Seq))
			t.Logf("main-tree index → notice: %v (bound %v)", lat, scenNoticeBound)
			if lat > scenNoticeBound {
				t.Errorf("the notice came %v after the index committed, more than %v", lat, scenNoticeBound)
			}
		}
	}

	// Disjoint work is warned of nothing.
	for _, id := range []string{"TASK-001", "TASK-002", "TASK-003", "TASK-004"} {
		c := scenGet(t, cl["agent-a"], id, nil)
		pair := map[string]string{"TASK-001": "TASK-002", "TASK-002": "TASK-001", "TASK-003": "TASK-004", "TASK-004": "TASK-003"}[id]
		for _, o := range c.Overlaps {
			if o.TaskID != pair {
				t.Errorf("%s is warned of %s, whose work is disjoint: %+v", id, o.TaskID, o)
			}
		}
		for _, n := range c.ChangedUnderYou.Notices {
			if n.Kind == "task" && n.TaskID != pair {
				t.Errorf("%s is told of %s, whose work is disjoint: %+v", id, n.TaskID, n)
			}
		}
	}

	// A read at the seq of each warning answers it again.
	for _, w := range []struct {
		id   string
		seq  uint64
		want []scenOverlap
	}{{"TASK-002", claimB.seq, claimB.overlaps}, {"TASK-004", dCoord.Footprint.Derived.Seq, dCoord.Overlaps}} {
		out := liveCosCall(t, state, "cos_task_get", fmt.Sprintf(`{"task_id":%q,"at":%d}`, w.id, w.seq))
		var env struct {
			Data struct {
				Coordination scenCoord `json:"coordination"`
			} `json:"data"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		if g, h := scenJSON(env.Data.Coordination.Overlaps), scenJSON(w.want); g != h {
			t.Errorf("%s at seq %d: overlaps %s, but %s was answered then", w.id, w.seq, g, h)
		}
	}
	for _, a := range agents {
		if _, err := os.Stat(filepath.Join(wts[a], ".cos")); err == nil {
			t.Errorf("the server in %s's worktree made a state folder of its own", a)
		}
	}
}

// scenRepo commits cobra's module source to a fresh git repository, its
// dependencies downloaded when the module proxy answers (without them
// cobra is read by syntax, and the scenario still holds).
func scenRepo(t *testing.T) *testutil.Git {
	t.Helper()
	g := testutil.GitRepo(t, map[string]string{})
	dir := g.Root
	src, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/spf13/cobra").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/spf13/cobra: %v", err)
	}
	if err := os.CopyFS(dir, os.DirFS(strings.TrimSpace(string(src)))); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "-C", dir, "mod", "download").CombinedOutput(); err != nil {
		t.Logf("go mod download in the cobra copy: %v\n%s", err, out)
	}
	g.Run("add", "-A")
	g.Run("commit", "-qm", "cobra")
	return g
}

func scenRun(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// scenEdit inserts body right after the line after in dir/file.
func scenEdit(t *testing.T, dir, file, after, body string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, after) != 1 {
		t.Fatalf("%s: %q is not there once", file, after)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(s, after, after+body, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

type scenClaimed struct {
	seq      uint64
	overlaps []scenOverlap
}

func scenClaim(t *testing.T, c *liveClient, id, who string, touches []string) scenClaimed {
	t.Helper()
	args := map[string]any{"task_id": id, "assignee": who}
	if touches != nil {
		args["touches"] = touches
	}
	b, _ := json.Marshal(args)
	text := c.toolText("cos_task_claim", string(b))
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			Seq      uint64        `json:"seq"`
			Overlaps []scenOverlap `json:"overlaps"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil || !env.OK || env.Data.Overlaps == nil {
		t.Fatalf("claim of %s: %v %s", id, err, text)
	}
	return scenClaimed{seq: env.Data.Seq, overlaps: env.Data.Overlaps}
}

func scenGet(t *testing.T, c *liveClient, id string, _ any) scenCoord {
	t.Helper()
	text := c.toolText("cos_task_get", fmt.Sprintf(`{"task_id":%q}`, id))
	var env struct {
		OK   bool `json:"ok"`
		Data struct {
			Coordination *scenCoord `json:"coordination"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil || !env.OK || env.Data.Coordination == nil {
		t.Fatalf("cos_task_get %s: %v %s", id, err, text)
	}
	return *env.Data.Coordination
}

func scenWaitCoord(t *testing.T, c *liveClient, id string, ok func(scenCoord) bool, what string) scenCoord {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := scenGet(t, c, id, nil)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("not seen in 20 s: %s; last %+v; stderr:\n%s", what, got, c.stderr())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func scenSubscribe(t *testing.T, c *liveClient, uri string) {
	t.Helper()
	var r map[string]any
	c.result(c.request("resources/subscribe", map[string]any{"uri": uri}), &r)
}

func scenWantOverlap(t *testing.T, what string, got []scenOverlap, task, closeness, uid string) {
	t.Helper()
	for _, o := range got {
		if o.TaskID != task {
			continue
		}
		if o.Closeness != closeness {
			t.Errorf("%s: overlap with %s is %s, want %s: %+v", what, task, o.Closeness, closeness, o)
		}
		for _, s := range o.Shared {
			if s.UID == uid {
				return
			}
		}
		t.Errorf("%s: overlap with %s does not share %s: %+v", what, task, uid, o)
		return
	}
	t.Errorf("%s: no overlap with %s in %+v", what, task, got)
}

func scenHasNotice(c scenCoord, kind, task, uid string) bool {
	for _, n := range c.ChangedUnderYou.Notices {
		if n.Kind != kind || (task != "" && n.TaskID != task) {
			continue
		}
		for _, s := range n.Changed {
			if s.UID == uid {
				return true
			}
		}
	}
	return false
}

// scenEventTime is the commit time of the event at seq, as `cos replay`
// rebuilds the state there.
func scenEventTime(t *testing.T, state string, seq uint64) time.Time {
	t.Helper()
	out, err := exec.Command(cosBin, "replay", "--state-dir", state, "--until", fmt.Sprint(seq)).Output()
	if err != nil {
		t.Fatalf("cos replay --until %d: %v", seq, err)
	}
	var r struct {
		Position struct {
			Seq  uint64    `json:"seq"`
			Time time.Time `json:"time"`
		} `json:"position"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Position.Seq != seq {
		t.Fatalf("cos replay --until %d: %v %s", seq, err, out)
	}
	return r.Position.Time
}

// scenLatency waits for the first notification of uri after the commit
// time at (a notification before it was caused by something else) and
// returns how long after the commit it came.
func scenLatency(t *testing.T, c *liveClient, uri string, at time.Time) time.Duration {
	t.Helper()
	note, ok := c.waitNote(at, "notifications/resources/updated", uri, 15*time.Second)
	if !ok {
		t.Fatalf("no notification of %s after the commit at %v; stderr:\n%s", uri, at, c.stderr())
	}
	return note.At.Sub(at)
}

func scenJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
