package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// hubCall runs a tool as the Hub does (no budget: Tool.HubOnly tools too).
func hubCall(t testing.TB, s *testServer, tool, args string) envOf {
	t.Helper()
	env := s.r.Call(context.Background(), tool, json.RawMessage(args), envelope.Options{NoBudget: true})
	var e envOf
	if err := json.Unmarshal(env.JSON(), &e); err != nil {
		t.Fatalf("%s: envelope is not JSON: %v\n%s", tool, err, env.JSON())
	}
	return e
}

// TestEvidenceTask lists the records made for a task across sessions,
// newest first and paged, and none of another task's.
func TestEvidenceTask(t *testing.T) {
	s := openServer(t, "")
	a := createTask(t, s, `{"title":"split the parser"}`)
	b := createTask(t, s, `{"title":"other"}`)
	record := func(session, extra, task string) uint64 {
		t.Helper()
		args := fmt.Sprintf(`{"session_id":%q,%s}`, session, extra)
		if task != "" {
			args = fmt.Sprintf(`{"session_id":%q,%s,"task_id":%q}`, session, extra, task)
		}
		e := okEnv(t, call(t, s, "cos_supervise_record_output", args), "record "+args)
		return uint64(e.Data["seq"].(float64))
	}
	s1 := record("s-one", `"role":"planner","output":{"summary":"plan","steps":["a"]}`, a.ID)
	record("s-one", `"kind":"backtrack","output":{"reason":"not for a task"}`, "")
	record("s-two", `"kind":"discovery","output":{"summary":"b's"}`, b.ID)
	s3 := record("s-two", `"kind":"discovery","output":{"summary":"shared lexer"}`, a.ID)
	s4 := record("s-three", `"kind":"backtrack","output":{"reason":"wrong lexer"}`, a.ID)

	e := okEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q}`, a.ID)), "evidence of a")
	recs := e.Data["records"].([]any)
	if len(recs) != 3 || e.Data["total"] != 3.0 || e.Data["sessions"] != 3.0 || e.Data["next_cursor"] != "" {
		t.Fatalf("evidence of %s: %v", a.ID, e.Data)
	}
	want := []struct {
		seq         uint64
		session, sl string
	}{{s4, "s-three", "backtracks"}, {s3, "s-two", "discoveries"}, {s1, "s-one", "planner"}}
	for i, w := range want {
		r := recs[i].(map[string]any)
		ref, _ := r["task"].(map[string]any)
		if uint64(r["seq"].(float64)) != w.seq || r["session_id"] != w.session || r["slot"] != w.sl || ref["task_id"] != a.ID || r["output"] == nil {
			t.Fatalf("record %d = %v, want seq %d in %s/%s", i, r, w.seq, w.session, w.sl)
		}
	}

	// Paged: two, then the last one, by the cursor.
	p1 := okEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q,"limit":2}`, a.ID)), "page 1")
	cur, _ := p1.Data["next_cursor"].(string)
	if got := p1.Data["records"].([]any); len(got) != 2 || cur == "" {
		t.Fatalf("page 1: %v", p1.Data)
	}
	p2 := okEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q,"limit":2,"cursor":%q}`, a.ID, cur)), "page 2")
	if got := p2.Data["records"].([]any); len(got) != 1 || uint64(got[0].(map[string]any)["seq"].(float64)) != s1 || p2.Data["next_cursor"] != "" {
		t.Fatalf("page 2: %v", p2.Data)
	}
	// Another task's cursor is not this listing's.
	failEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q,"cursor":%q}`, b.ID, cur)), "STALE_CURSOR", "cursor of another task")

	// As of the first record, only it.
	at := okEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q,"at":%d}`, a.ID, s1)), "at")
	if got := at.Data["records"].([]any); len(got) != 1 || at.Data["total"] != 1.0 {
		t.Fatalf("at seq %d: %v", s1, at.Data)
	}

	// A task with none: an empty list; an unknown or malformed id: refused.
	c := createTask(t, s, `{"title":"quiet"}`)
	none := okEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q}`, c.ID)), "none")
	if got, ok := none.Data["records"].([]any); !ok || len(got) != 0 || none.Data["total"] != 0.0 {
		t.Fatalf("evidence of a task with none: %v", none.Data)
	}
	failEnv(t, hubCall(t, s, "cos_evidence_task", `{"task_id":"TASK-999"}`), "E_NOT_FOUND", "unknown task")
	failEnv(t, hubCall(t, s, "cos_evidence_task", `{"task_id":"nope"}`), "E_ARGUMENT", "bad id")
	failEnv(t, hubCall(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q,"limit":501}`, a.ID)), "E_ARGUMENT", "limit")

	// An agent never sees it.
	if e := call(t, s, "cos_evidence_task", fmt.Sprintf(`{"task_id":%q}`, a.ID)); e.OK || e.Error.Code != "E_UNKNOWN_TOOL" {
		t.Fatalf("with an agent budget: %+v", e)
	}
}
