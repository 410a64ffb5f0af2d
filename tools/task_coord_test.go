package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// coordRepo is two Go files: Login in a.go calls Helper in b.go.
var coordRepo = map[string]string{
	"go.mod": "module demo\n\ngo 1.22\n",
	"a.go":   "package demo\n\n// Login logs in.\nfunc Login() int { return Helper() + 1 }\n",
	"b.go":   "package demo\n\n// Helper helps.\nfunc Helper() int { return 1 }\n",
	"c.go":   "package demo\n\n// Apart calls nothing.\nfunc Apart() int { return 3 }\n",
}

// coordServer indexes coordRepo and returns the server and the repo root.
func coordServer(t *testing.T) (*testServer, string) {
	t.Helper()
	root := idxWriteRepo(t, coordRepo)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, `{}`)
	return s, root
}

// overlapsIn decodes data.overlaps (or the object's "overlaps") of an answer.
func overlapsIn(t testing.TB, v any) []query.Overlap {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var o []query.Overlap
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("overlaps: %v\n%s", err, b)
	}
	return o
}

// coordOf decodes data.coordination of cos_task_get.
func coordOf(t testing.TB, e envOf) coordAnswer {
	t.Helper()
	b, err := json.Marshal(e.Data["coordination"])
	if err != nil {
		t.Fatal(err)
	}
	var c coordAnswer
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("coordination: %v\n%s", err, b)
	}
	return c
}

func TestTaskCoord_WritesAnswerOverlaps_GetAtReproducesThem(t *testing.T) {
	s, _ := coordServer(t)
	e := okEnv(t, call(t, s, "cos_task_create", `{"title":"Login","touches":["a.go"]}`), "create 1")
	if o, ok := e.Data["overlaps"].([]any); !ok || len(o) != 0 {
		t.Fatalf("first task's overlaps = %#v, want []", e.Data["overlaps"])
	}
	if got := taskOf(t, e).Touches; !reflect.DeepEqual(got, []string{"a.go"}) {
		t.Fatalf("touches = %v", got)
	}
	e = okEnv(t, call(t, s, "cos_task_create", `{"title":"Helper"}`), "create 2")
	if o := overlapsIn(t, e.Data["overlaps"]); len(o) != 0 {
		t.Fatalf("a task without touches overlaps %+v", o)
	}
	claim := okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-002","assignee":"agent-2","touches":["b.go"]}`), "claim 2")
	claimSeq := uint64(claim.Data["seq"].(float64))
	got := overlapsIn(t, claim.Data["overlaps"])
	if len(got) != 1 || got[0].TaskID != "TASK-001" || got[0].Closeness != query.CloseCaller || got[0].Depth != 1 {
		t.Fatalf("claim's overlaps = %+v, want TASK-001 as a caller at depth 1", got)
	}
	if sh := got[0].Shared; len(sh) == 0 || sh[0].UID != "code:function:a.go::Login" || sh[0].Direction != query.DirTheirsOnYou {
		t.Fatalf("shared = %+v, want Login depending on yours", sh)
	}
	if tk := taskOf(t, claim); !reflect.DeepEqual(tk.Touches, []string{"b.go"}) || tk.Assignee != "agent-2" {
		t.Fatalf("claimed task = %+v", tk)
	}

	// The overlap ends: TASK-001 is cancelled.
	okEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-001","patch":{"status":"cancelled"}}`), "cancel 1")
	live := coordOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-002"}`), "get live"))
	if len(live.Overlaps) != 0 {
		t.Fatalf("live overlaps after the cancel = %+v", live.Overlaps)
	}
	if live.Footprint.SymbolCount != 1 || !reflect.DeepEqual(live.Footprint.Symbols, []string{"code:function:b.go::Helper"}) ||
		!reflect.DeepEqual(live.Footprint.Touches, []string{"b.go"}) || live.ReachCount != 1 {
		t.Fatalf("footprint = %+v, reach %d", live.Footprint, live.ReachCount)
	}
	// At the claim's seq, cos_task_get answers what the claim answered.
	past := coordOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":"TASK-002","at":%d}`, claimSeq)), "get at"))
	if !reflect.DeepEqual(past.Overlaps, got) {
		t.Fatalf("get at %d: overlaps %+v, the claim answered %+v", claimSeq, past.Overlaps, got)
	}
}

func TestTaskCoord_BoardOverlappingFilter(t *testing.T) {
	s, _ := coordServer(t)
	createTask(t, s, `{"title":"Login","touches":["a.go"]}`)
	createTask(t, s, `{"title":"Apart","touches":["c.go"]}`)
	createTask(t, s, `{"title":"Helper","touches":["code:function:b.go::Helper"]}`)
	createTask(t, s, `{"title":"No code"}`)
	rowsOf := func(e envOf) map[string][]string {
		out := map[string][]string{}
		for _, r := range e.Data["rows"].([]any) {
			row := r.(map[string]any)
			var ids []string
			for _, id := range asList(row["overlaps"]) {
				ids = append(ids, id.(string))
			}
			out[row["task_id"].(string)] = ids
		}
		return out
	}
	all := rowsOf(okEnv(t, call(t, s, "cos_task_board", `{}`), "board"))
	want := map[string][]string{"TASK-001": {"TASK-003"}, "TASK-002": nil, "TASK-003": {"TASK-001"}, "TASK-004": nil}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("board overlaps = %v, want %v", all, want)
	}
	// One row a page: the overlapping walk skips TASK-002 and ends after TASK-003.
	e := okEnv(t, call(t, s, "cos_task_board", `{"overlapping":true,"limit":1}`), "overlapping page 1")
	if got := rowsOf(e); len(got) != 1 || got["TASK-001"] == nil || e.Data["total"].(float64) != 2 {
		t.Fatalf("page 1 = %v, total %v", got, e.Data["total"])
	}
	cur := e.Data["next_cursor"].(string)
	failEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"limit":1,"cursor":%q}`, cur)), "STALE_CURSOR", "cursor of another filter")
	// Garbage is malformed, not stale, with or without overlapping.
	failEnv(t, call(t, s, "cos_task_board", `{"overlapping":true,"cursor":"garbage!!"}`), "E_CURSOR", "garbage cursor, overlapping")
	failEnv(t, call(t, s, "cos_task_board", `{"cursor":"o.garbage!!"}`), "E_CURSOR", "marked garbage cursor")
	e = okEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"overlapping":true,"limit":1,"cursor":%q}`, cur)), "page 2")
	if got := rowsOf(e); len(got) != 1 || got["TASK-003"] == nil {
		t.Fatalf("page 2 = %v", got)
	}
	if next, _ := e.Data["next_cursor"].(string); next != "" {
		e = okEnv(t, call(t, s, "cos_task_board", fmt.Sprintf(`{"overlapping":true,"limit":1,"cursor":%q}`, next)), "page 3")
		if got := rowsOf(e); len(got) != 0 || e.Data["next_cursor"] != "" {
			t.Fatalf("page 3 = %v, next %v", got, e.Data["next_cursor"])
		}
	}
}

// asList returns v as a list (nil for anything else).
func asList(v any) []any { l, _ := v.([]any); return l }

func TestTaskCoord_ChangedUnderYou(t *testing.T) {
	s, root := coordServer(t)
	createTask(t, s, `{"title":"Login","touches":["a.go"]}`)
	okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1"}`), "claim")
	before := coordOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-001"}`), "get"))
	if before.ChangedUnderYou.Total != 0 || len(before.ChangedUnderYou.Notices) != 0 {
		t.Fatalf("changes before any edit = %+v", before.ChangedUnderYou)
	}
	// Login's own body changes under the task (its line span too: the
	// change is seen with or without symbol hashes).
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package demo\n\n// Login logs in.\nfunc Login() int {\n\treturn Helper() + 2\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idxReport(t, s, `{}`)
	after := coordOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-001"}`), "get after"))
	n := after.ChangedUnderYou
	if n.Total != 1 || len(n.Notices) != 1 || n.Notices[0].Kind != query.NoticeIndex || n.Notices[0].Path != "a.go" ||
		!strings.Contains(fmt.Sprint(n.Notices[0].Changed), "code:function:a.go::Login") {
		t.Fatalf("changed_under_you = %+v", n)
	}

	// Another task's work tree comes to change Login: a task notice.
	createTask(t, s, `{"title":"Apart","touches":["c.go"]}`)
	p, err := tasks.FootprintDerivedPayload(tasks.FootprintDerived{Assignee: "agent-2", Worktree: "wt-2",
		Files: []string{"a.go"}, Symbols: []string{"code:function:a.go::Login"}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := state.AppendOne(context.Background(), s.Log(), eventlog.AppendRequest{Stream: tasks.FootprintStreamOf("TASK-002"),
		Events: []eventlog.Payload{p}})
	if err != nil {
		t.Fatal(err)
	}
	got := coordOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-001"}`), "get after the footprint"))
	n = got.ChangedUnderYou
	if n.Total != 2 || n.Notices[0].Kind != query.NoticeTask || n.Notices[0].TaskID != "TASK-002" || n.Notices[0].Seq != rec.LastSeq {
		t.Fatalf("changed_under_you after TASK-002's footprint = %+v (footprint at seq %d)", n, rec.LastSeq)
	}
	// The board counts what cos_task_get lists, for every row.
	board := okEnv(t, call(t, s, "cos_task_board", `{}`), "board")
	for _, r := range board.Data["rows"].([]any) {
		row := r.(map[string]any)
		id := row["task_id"].(string)
		get := coordOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, id)), "get "+id))
		if c, _ := row["changes"].(float64); int(c) != get.ChangedUnderYou.Total {
			t.Errorf("%s: board counts %v changes, cos_task_get %d", id, row["changes"], get.ChangedUnderYou.Total)
		}
	}
}

func TestTaskCoord_TouchesRefused(t *testing.T) {
	s := openServer(t, "")
	many := make([]string, 257)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.go", i)
	}
	b, _ := json.Marshal(many)
	for _, args := range []string{
		`{"title":"x","touches":["a.go",""]}`,
		`{"title":"x","touches":` + string(b) + `}`,
		`{"title":"x","touches":["` + strings.Repeat("a", 1025) + `"]}`,
	} {
		e := call(t, s, "cos_task_create", args)
		if e.OK || !strings.Contains(e.Error.Message, "touches") {
			t.Fatalf("create %.60s…: ok=%v %s", args, e.OK, e.Error.Message)
		}
	}
	if evs := streamEvents(t, s, "task:TASK-001"); len(evs) != 0 {
		t.Fatalf("a refused create appended %d events", len(evs))
	}
}

func TestTaskCoord_TouchesChangeByReclaimAndPatch(t *testing.T) {
	s, _ := coordServer(t)
	createTask(t, s, `{"title":"Login","touches":["a.go"]}`)
	claim := okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1"}`), "claim")
	claimedSeq := taskOf(t, claim).ClaimedSeq
	// The holder claims again with other touches: they are recorded, the
	// claim stays where it was.
	again := okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1","touches":["b.go"]}`), "claim again")
	if tk := taskOf(t, again); !reflect.DeepEqual(tk.Touches, []string{"b.go"}) || tk.ClaimedSeq != claimedSeq || tk.Assignee != "agent-1" {
		t.Fatalf("after a claim again with touches: %+v (claimed at %d)", tk, claimedSeq)
	}
	// The same touches again write nothing.
	same := okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1","touches":["b.go"]}`), "claim same")
	if seq, _ := same.Data["seq"].(float64); seq != 0 {
		t.Fatalf("a claim again with the same touches appended at seq %v", seq)
	}
	if o, ok := same.Data["overlaps"].([]any); !ok || len(o) != 0 {
		t.Fatalf("noop claim overlaps = %#v, want []", same.Data["overlaps"])
	}
	// patch.touches of a claimed task is its holder's to change (or
	// another's with force); it replaces them; a second task on b.go now
	// overlaps.
	failEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-001","assignee":"agent-2","patch":{"touches":["c.go"]}}`), "E_CLAIMED", "touches changed by another")
	okEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-001","assignee":"agent-1","patch":{"touches":["a.go","b.go"]}}`), "patch touches")
	e := okEnv(t, call(t, s, "cos_task_create", `{"title":"Helper","touches":["code:function:b.go::Helper"]}`), "create 2")
	if got := overlapsIn(t, e.Data["overlaps"]); len(got) != 1 || got[0].TaskID != "TASK-001" || got[0].Closeness != query.CloseSameSymbol {
		t.Fatalf("create's overlaps = %+v, want TASK-001 sharing Helper", got)
	}
	failEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-001","patch":{"touches":["/abs/x.go"]}}`), "E_ARGUMENT", "absolute touches")
	// A claim with an empty list is refused rather than ignored.
	failEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-001","assignee":"agent-1","touches":[]}`), "E_ARGUMENT", "claim with touches []")
}

// A footprint that meets many tasks lists the closest overlapsListed of
// them and counts them all, so the answer stays within the envelope.
func TestTaskCoord_ManyOverlapsListedClosestFirst(t *testing.T) {
	s, _ := coordServer(t)
	n := overlapsListed + 3
	for i := range n {
		createTask(t, s, fmt.Sprintf(`{"title":"t%d","touches":["a.go"]}`, i))
	}
	e := okEnv(t, call(t, s, "cos_task_create", `{"title":"wide","touches":["*.go"]}`), "create wide")
	if got := overlapsIn(t, e.Data["overlaps"]); len(got) != overlapsListed || e.Data["overlap_count"] != float64(n) {
		t.Fatalf("create: %d overlaps listed, overlap_count %v; want %d of %d", len(got), e.Data["overlap_count"], overlapsListed, n)
	}
	if e.Data["meta"].(map[string]any)["truncated"] != false {
		t.Fatalf("create answer was trimmed: %v", e.Data["meta"])
	}
	id := taskOf(t, e).ID
	c := coordOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, id)), "get wide"))
	if len(c.Overlaps) != overlapsListed || c.OverlapCount != n || c.Overlaps[0].TaskID != "TASK-001" {
		t.Fatalf("get: %d overlaps listed (first %s), overlap_count %d; want %d of %d", len(c.Overlaps), c.Overlaps[0].TaskID, c.OverlapCount, overlapsListed, n)
	}
	one := okEnv(t, call(t, s, "cos_task_create", `{"title":"alone"}`), "create alone")
	if _, ok := one.Data["overlap_count"]; ok {
		t.Fatalf("overlap_count given without overlaps: %v", one.Data)
	}
}
