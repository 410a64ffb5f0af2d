package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
)

// deriveFootprint appends a task.footprint_derived for id, as the server of
// the holder's work tree does, and returns its seq.
func deriveFootprint(t testing.TB, s *testServer, id string, fd tasks.FootprintDerived) uint64 {
	t.Helper()
	p, err := tasks.FootprintDerivedPayload(fd)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.st.Append(context.Background(), eventlog.AppendRequest{Stream: tasks.FootprintStreamOf(id), Events: []eventlog.Payload{p}})
	if err != nil {
		t.Fatal(err)
	}
	return recs[0].LastSeq
}

// refOf decodes data.task of a record answer.
func refOf(t testing.TB, e envOf) evidence.TaskRef {
	t.Helper()
	raw, err := json.Marshal(e.Data["task"])
	if err != nil {
		t.Fatal(err)
	}
	var r evidence.TaskRef
	if err := json.Unmarshal(raw, &r); err != nil || r.TaskID == "" {
		t.Fatalf("no task reference in %v: %v", e.Data, err)
	}
	return r
}

// TestSuperviseRecordOutput_TaskReference: a record made for a task points
// at the code the task's work touched, read at a seq that time travel
// answers; the bundle and its export show it, and the bundle's tasks keep
// the latest reference per task.
func TestSuperviseRecordOutput_TaskReference(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	task := createTask(t, s, `{"title":"split the parser"}`)
	okEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"ann"}`, task.ID)), "claim")
	first := tasks.FootprintDerived{Assignee: "ann", Worktree: "feat-parser", Base: "b1", Head: "h1",
		Files: []string{"parse/lex.go"}, Symbols: []string{"code:function:parse/lex.go:Lex", "code:function:parse/lex.go:Next"}}
	fpSeq := deriveFootprint(t, s, task.ID, first)

	e := okEnv(t, call(t, s, "cos_supervise_record_output", fmt.Sprintf(
		`{"session_id":"pm","role":"implementer","output":{"summary":"lexer split","files":["parse/lex.go"]},"task_id":%q}`, task.ID)), "record")
	ref := refOf(t, e)
	seq := uint64(e.Data["seq"].(float64))
	if ref.TaskID != task.ID || ref.Seq != fpSeq || ref.Seq >= seq || ref.Assignee != "ann" {
		t.Fatalf("reference %+v (record at %d, footprint at %d)", ref, seq, fpSeq)
	}
	// The board folds the footprint stream: the reference is the derived footprint.
	if ref.From != evidence.FromDerived || ref.Worktree != first.Worktree || ref.Base != first.Base || ref.Head != first.Head ||
		!slices.Equal(ref.Files, first.Files) || !slices.Equal(ref.Symbols, first.Symbols) {
		t.Fatalf("reference %+v, want the derived footprint %+v", ref, first)
	}
	if evs := streamEvents(t, s, evidence.Stream("pm")); len(evs) != 1 || evs[0].Seq != seq {
		t.Fatalf("evidence stream holds %d events", len(evs))
	}

	// The ground moves after the record: the task is renamed and its
	// footprint grows. The reference still answers the task as it was.
	okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"title":"split the parser and the printer"}}`, task.ID)), "rename")
	second := first
	second.Head, second.Files = "h2", []string{"parse/lex.go", "print/print.go"}
	second.Symbols = []string{"code:function:parse/lex.go:Lex", "code:function:parse/lex.go:Next", "code:function:print/print.go:Print"}
	deriveFootprint(t, s, task.ID, second)

	then := taskOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q,"at":%d}`, task.ID, ref.Seq)), "get at the reference"))
	now := taskOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, task.ID)), "get now"))
	if then.Title != "split the parser" || now.Title == then.Title || then.Assignee != ref.Assignee {
		t.Fatalf("at %d: %q (%s), now %q", ref.Seq, then.Title, then.Assignee, now.Title)
	}
	if then.Footprint == nil || now.Footprint == nil || !slices.Equal(then.Footprint.Symbols, ref.Symbols) || !slices.Equal(now.Footprint.Symbols, second.Symbols) {
		t.Fatalf("footprint at %d: %+v, now %+v; reference %v", ref.Seq, then.Footprint, now.Footprint, ref.Symbols)
	}

	// A second record for the task: its reference is the latest in tasks.
	e2 := okEnv(t, call(t, s, "cos_supervise_record_output", fmt.Sprintf(
		`{"session_id":"pm","kind":"discovery","output":{"summary":"printer shares the lexer"},"task_id":%q}`, task.ID)), "second record")
	ref2 := refOf(t, e2)
	if ref2.Seq <= ref.Seq || ref2.Seq >= uint64(e2.Data["seq"].(float64)) {
		t.Fatalf("second reference %+v after %+v", ref2, ref)
	}
	if !slices.Equal(ref2.Symbols, second.Symbols) || ref2.Head != "h2" {
		t.Fatalf("second reference symbols %v, want %v", ref2.Symbols, second.Symbols)
	}
	// A record without task_id names no task.
	plain := okEnv(t, call(t, s, "cos_supervise_record_output", `{"session_id":"pm","kind":"backtrack","output":{"reason":"x"}}`), "plain")
	if _, ok := plain.Data["task"]; ok {
		t.Fatalf("a record without task_id answered a reference: %v", plain.Data)
	}

	b := bundleOf(t, okEnv(t, call(t, s, "cos_evidence_bundle", `{"session_id":"pm"}`), "bundle").Data["bundle"])
	if got := b.Roles["implementer"][0].Task; got == nil || canonJSON(t, got) != canonJSON(t, ref) {
		t.Fatalf("implementer entry reference %+v, want %+v", got, ref)
	}
	if got := b.Discoveries[0].Task; got == nil || canonJSON(t, got) != canonJSON(t, ref2) {
		t.Fatalf("discovery entry reference %+v, want %+v", got, ref2)
	}
	if b.Backtracks[0].Task != nil {
		t.Fatalf("backtrack entry has a reference: %+v", b.Backtracks[0].Task)
	}
	if len(b.Tasks) != 1 || canonJSON(t, b.Tasks[task.ID]) != canonJSON(t, ref2) {
		t.Fatalf("bundle tasks %+v, want %s → %+v", b.Tasks, task.ID, ref2)
	}
	// The task's history lists the records that reference it.
	h := okEnv(t, call(t, s, "cos_history", fmt.Sprintf(`{"task_id":%q}`, task.ID)), "history")
	var cited []float64
	for _, it := range h.Data["events"].([]any) {
		if m := it.(map[string]any); m["stream"] == evidence.Stream("pm") {
			cited = append(cited, m["seq"].(float64))
		}
	}
	if !slices.Equal(cited, []float64{e2.Data["seq"].(float64), float64(seq)}) {
		t.Fatalf("task history cites evidence at %v, want %v and %d", cited, e2.Data["seq"], seq)
	}
	raw, err := os.ReadFile(plain.Data["export_path"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if exported := bundleOf(t, json.RawMessage(raw)); canonJSON(t, exported) != canonJSON(t, b) {
		t.Fatalf("export differs from the bundle:\n%s\n%s", raw, canonJSON(t, b))
	}
}

// TestSuperviseRecordOutput_TaskReferenceRefused: an unknown or malformed
// task_id is refused and appends nothing.
func TestSuperviseRecordOutput_TaskReferenceRefused(t *testing.T) {
	s := openServer(t, "")
	createTask(t, s, `{"title":"a"}`)
	before := len(allEvents(t, s))
	e := failEnv(t, call(t, s, "cos_supervise_record_output",
		`{"session_id":"s","kind":"discovery","output":{"summary":"x"},"task_id":"TASK-404"}`), "E_NOT_FOUND", "unknown task")
	if e.Error.Details["field"] != "task_id" {
		t.Errorf("details %v", e.Error.Details)
	}
	failEnv(t, call(t, s, "cos_supervise_record_output",
		`{"session_id":"s","kind":"discovery","output":{"summary":"x"},"task_id":"parser"}`), "E_ARGUMENT", "malformed task id")
	if n := len(allEvents(t, s)); n != before {
		t.Fatalf("refused records appended %d events", n-before)
	}
	failEnv(t, call(t, s, "cos_evidence_bundle", `{"session_id":"s"}`), "E_NOT_FOUND", "no bundle")
}

// TestSuperviseRecordOutput_TaskReferenceResend: a resend of a request id
// replays the committed record, reference included, even after the task's
// footprint moved on; the same id for another task is refused.
func TestSuperviseRecordOutput_TaskReferenceResend(t *testing.T) {
	s := openServer(t, "")
	a, other := createTask(t, s, `{"title":"a"}`), createTask(t, s, `{"title":"b"}`)
	okEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"ann"}`, a.ID)), "claim")
	args := fmt.Sprintf(`{"session_id":"s","kind":"discovery","output":{"summary":"x"},"task_id":%q,"request_id":"ev-7"}`, a.ID)
	first := okEnv(t, call(t, s, "cos_supervise_record_output", args), "first")
	deriveFootprint(t, s, a.ID, tasks.FootprintDerived{Assignee: "ann", Worktree: "w", Symbols: []string{"code:function:a.go:A"}})
	okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"title":"a2"}}`, a.ID)), "rename")
	again := okEnv(t, call(t, s, "cos_supervise_record_output", args), "resend")
	if again.Data["replayed"] != true || again.Data["seq"] != first.Data["seq"] || canonJSON(t, refOf(t, again)) != canonJSON(t, refOf(t, first)) {
		t.Fatalf("resend %v, first %v", again.Data, first.Data)
	}
	failEnv(t, call(t, s, "cos_supervise_record_output", fmt.Sprintf(
		`{"session_id":"s","kind":"discovery","output":{"summary":"x"},"task_id":%q,"request_id":"ev-7"}`, other.ID)), "E_REQUEST_REUSE", "another task")
	if evs := streamEvents(t, s, evidence.Stream("s")); len(evs) != 1 {
		t.Fatalf("evidence stream holds %d events, want 1", len(evs))
	}
}

func TestTaskRefFrom(t *testing.T) {
	derived := tasks.Task{ID: "TASK-007", Assignee: "ann", Footprint: &tasks.Footprint{Seq: 4, FootprintDerived: tasks.FootprintDerived{
		Assignee: "ann", Worktree: "feat", Base: "b", Head: "h", Files: []string{"b.go", "a.go"},
		Symbols: []string{"code:function:b.go:B", "code:function:a.go:A"}}}}
	r := taskRefFrom(derived, 9, []string{"code:function:z.go:Z"})
	if r.TaskID != "TASK-007" || r.Seq != 9 || r.Assignee != "ann" || r.From != evidence.FromDerived || r.Worktree != "feat" ||
		r.Base != "b" || r.Head != "h" || !slices.Equal(r.Files, []string{"a.go", "b.go"}) ||
		!slices.Equal(r.Symbols, []string{"code:function:a.go:A", "code:function:b.go:B"}) || r.Truncated {
		t.Fatalf("derived reference %+v", r)
	}
	if derived.Footprint.Files[0] != "b.go" {
		t.Fatal("NewTaskRef sorted the task's own slice")
	}

	touched := tasks.Task{ID: "TASK-008", Touches: []string{"a/**"}}
	r = taskRefFrom(touched, 3, []string{"code:function:a/x.go:X", "code:function:a/w.go:W", "code:function:a/x.go:X"})
	if r.From != evidence.FromTouches || r.Assignee != "" || len(r.Files) != 0 || r.Files == nil ||
		!slices.Equal(r.Symbols, []string{"code:function:a/w.go:W", "code:function:a/x.go:X"}) {
		t.Fatalf("touches reference %+v", r)
	}
	if r := taskRefFrom(touched, 3, nil); r.Symbols == nil || len(r.Symbols) != 0 {
		t.Fatalf("empty reference %+v: symbols must be []", r)
	}

	if tasks.MaxDerivedSymbols != evidence.MaxRefSymbols || tasks.MaxDerivedFiles != evidence.MaxRefFiles {
		t.Fatal("a reference's limits differ from a derived footprint's")
	}
	many := make([]string, tasks.MaxDerivedSymbols+5)
	for i := range many {
		many[i] = fmt.Sprintf("code:function:a.go:F%05d", i)
	}
	if r := taskRefFrom(touched, 3, many); len(r.Symbols) != tasks.MaxDerivedSymbols || !r.Truncated {
		t.Fatalf("%d symbols, truncated %v", len(r.Symbols), r.Truncated)
	}
}
