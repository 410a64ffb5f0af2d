package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
)

// historyRow is one event of a cos_history answer as a test reads it.
type historyRow struct {
	Seq       uint64 `json:"seq"`
	Type      string `json:"type"`
	Stream    string `json:"stream"`
	RequestID string `json:"request_id"`
	Summary   string `json:"summary"`
	Actor     struct {
		PID           int    `json:"pid"`
		Host          string `json:"host"`
		Client        string `json:"client"`
		ClientVersion string `json:"client_version"`
		Session       string `json:"session"`
	} `json:"actor"`
}

// historyOf runs cos_history and returns its events and next_cursor.
func historyOf(t testing.TB, s *testServer, args string) ([]historyRow, string) {
	t.Helper()
	e := okEnv(t, call(t, s, "cos_history", args), "cos_history "+args)
	b, err := json.Marshal(e.Data["events"])
	if err != nil {
		t.Fatal(err)
	}
	var rows []historyRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	next, _ := e.Data["next_cursor"].(string)
	return rows, next
}

func openHistoryServer(t testing.TB, dir string, roots ...string) *testServer {
	t.Helper()
	s, err := openTestServer(context.Background(), testOptions{StateDir: dir, Roots: roots, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHistory_TaskFromTwoClients updates one task from two clients (each a
// ctx carrying its caller, as the MCP transport sets it) and reads its
// history: newest first, each event with its client and session and what
// the patch changed; pages with a cursor; a cursor goes stale when the
// task changes; the history survives a restart.
func TestHistory_TaskFromTwoClients(t *testing.T) {
	dir := t.TempDir()
	s := openHistoryServer(t, dir)
	defer func() { _ = s.Close() }()
	ctxA := WithCaller(context.Background(), "claude-code", "1.0.3", "sess-A")
	ctxB := WithCaller(context.Background(), "cursor", "0.9", "sess-B")
	run := func(ctx context.Context, tool, args string) envOf {
		t.Helper()
		var e envOf
		if err := json.Unmarshal(s.Call(ctx, tool, []byte(args)).JSON(), &e); err != nil {
			t.Fatal(err)
		}
		return okEnv(t, e, tool+" "+args)
	}
	run(ctxA, "cos_task_create", `{"title": "fix login", "request_id": "create-1"}`)
	run(ctxA, "cos_task_create", `{"title": "other task"}`)
	statuses := []string{"in_progress", "review", "in_progress", "review", "done"}
	prev := "todo"
	for i, st := range statuses {
		ctx := ctxA
		if i%2 == 1 {
			ctx = ctxB
		}
		run(ctx, "cos_task_update", `{"task_id": "TASK-001", "patch": {"status": "`+st+`"}}`)
		_ = prev
		prev = st
	}
	run(ctxB, "cos_task_claim", `{"task_id": "TASK-001", "assignee": "agent-7"}`)
	run(ctxA, "cos_task_update", `{"task_id": "TASK-002", "patch": {"status": "in_progress"}}`)

	rows, next := historyOf(t, s, `{"task_id": "TASK-001"}`)
	if next != "" {
		t.Errorf("one page holds all: next_cursor %q", next)
	}
	if len(rows) != 7 {
		t.Fatalf("got %d events, want 7 (create, 5 updates, claim): %+v", len(rows), rows)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].Seq >= rows[i-1].Seq {
			t.Fatalf("not newest first: %d then %d", rows[i-1].Seq, rows[i].Seq)
		}
	}
	want := []struct{ typ, client, session, summary string }{
		{tasks.TypeClaimed, "cursor", "sess-B", "claimed by agent-7"},
		{tasks.TypeUpdated, "claude-code", "sess-A", "status: review → done"},
		{tasks.TypeUpdated, "cursor", "sess-B", "status: in_progress → review"},
		{tasks.TypeUpdated, "claude-code", "sess-A", "status: review → in_progress"},
		{tasks.TypeUpdated, "cursor", "sess-B", "status: in_progress → review"},
		{tasks.TypeUpdated, "claude-code", "sess-A", "status: todo → in_progress"},
		{tasks.TypeCreated, "claude-code", "sess-A", `created "fix login"`},
	}
	for i, w := range want {
		r := rows[i]
		if r.Type != w.typ || r.Actor.Client != w.client || r.Actor.Session != w.session || !strings.Contains(r.Summary, w.summary) {
			t.Errorf("event %d: got %s by %s/%s %q, want %s by %s/%s %q", i, r.Type, r.Actor.Client, r.Actor.Session, r.Summary, w.typ, w.client, w.session, w.summary)
		}
		if r.Actor.PID != os.Getpid() || r.Actor.Host == "" || r.Stream != "task:TASK-001" {
			t.Errorf("event %d: actor pid %d host %q stream %q", i, r.Actor.PID, r.Actor.Host, r.Stream)
		}
	}
	if rows[6].RequestID != "create-1" || rows[0].Actor.ClientVersion != "0.9" {
		t.Errorf("request_id %q, client_version %q", rows[6].RequestID, rows[0].Actor.ClientVersion)
	}

	// Filters: actor, types, since/until.
	if got, _ := historyOf(t, s, `{"task_id": "TASK-001", "actor": "sess-B"}`); len(got) != 3 {
		t.Errorf("actor sess-B: %d events, want 3", len(got))
	}
	if got, _ := historyOf(t, s, `{"task_id": "TASK-001", "actor": "cursor", "types": ["task.claimed"]}`); len(got) != 1 {
		t.Errorf("actor cursor, types task.claimed: %d events, want 1", len(got))
	}
	// Prefix forms, as cos log --type and /api/events take them.
	if got, _ := historyOf(t, s, `{"task_id": "TASK-001", "types": ["task.*"]}`); len(got) != len(rows) {
		t.Errorf("types task.*: %d events, want %d", len(got), len(rows))
	}
	if got, _ := historyOf(t, s, `{"task_id": "TASK-001", "types": ["graph.*", "task.claimed"]}`); len(got) != 1 {
		t.Errorf("types graph.*, task.claimed: %d events, want 1", len(got))
	}
	if got, _ := historyOf(t, s, fmt.Sprintf(`{"task_id": "TASK-001", "since": %d, "until": "%d"}`, rows[5].Seq, rows[1].Seq)); len(got) != 5 {
		t.Errorf("since/until by seq: %d events, want 5", len(got))
	}
	if got, _ := historyOf(t, s, `{"stream": "task:TASK-002"}`); len(got) != 2 {
		t.Errorf("stream task:TASK-002: %d events, want 2", len(got))
	}
	if got, _ := historyOf(t, s, `{"limit": 500}`); len(got) != 9 {
		t.Errorf("whole log: %d events, want 9", len(got))
	}

	// Paging: 3 + 3 + 1, no overlap, same order.
	var paged []historyRow
	cursor := ""
	for page := 0; ; page++ {
		args := `{"task_id": "TASK-001", "limit": 3}`
		if cursor != "" {
			args = `{"task_id": "TASK-001", "limit": 3, "cursor": "` + cursor + `"}`
		}
		got, next := historyOf(t, s, args)
		paged = append(paged, got...)
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatal("paging does not end")
		}
		cursor = next
	}
	if len(paged) != 7 {
		t.Fatalf("paged %d events, want 7", len(paged))
	}
	for i := range paged {
		if paged[i].Seq != rows[i].Seq {
			t.Fatalf("page order: event %d is seq %d, want %d", i, paged[i].Seq, rows[i].Seq)
		}
	}

	// A cursor of another question, a malformed one, and one made stale by a
	// newer event of the task; a change to another task leaves it good.
	_, cursor = historyOf(t, s, `{"task_id": "TASK-001", "limit": 2}`)
	failEnv(t, call(t, s, "cos_history", `{"task_id": "TASK-002", "limit": 2, "cursor": "`+cursor+`"}`), "STALE_CURSOR", "another task's cursor")
	failEnv(t, call(t, s, "cos_history", `{"task_id": "TASK-001", "limit": 2, "cursor": "not-a-cursor"}`), "E_CURSOR", "malformed cursor")
	run(ctxA, "cos_task_update", `{"task_id": "TASK-002", "patch": {"status": "done"}}`)
	okEnv(t, call(t, s, "cos_history", `{"task_id": "TASK-001", "limit": 2, "cursor": "`+cursor+`"}`), "cursor after another task changed")
	run(ctxB, "cos_task_update", `{"task_id": "TASK-001", "patch": {"title": "fix login on mobile"}}`)
	// The walk goes on below its seq; the newer event is counted in meta.
	e := okEnv(t, call(t, s, "cos_history", `{"task_id": "TASK-001", "limit": 2, "cursor": "`+cursor+`"}`), "cursor after the task changed")
	if evs := e.Data["events"].([]any); len(evs) != 2 || evs[0].(map[string]any)["seq"] != float64(paged[2].Seq) ||
		e.Data["meta"].(map[string]any)["events_since_walk"] != float64(2) {
		t.Errorf("page after the task changed: %v", e.Data)
	}
	rows, _ = historyOf(t, s, `{"task_id": "TASK-001", "limit": 1}`)
	if len(rows) != 1 || rows[0].Summary != `title: "fix login" → "fix login on mobile"` {
		t.Errorf("title patch summary: %+v", rows)
	}

	// A restart builds the index again from the log.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openHistoryServer(t, dir)
	again, _ := historyOf(t, s, `{"task_id": "TASK-001"}`)
	if len(again) != 8 || again[0].Summary != rows[0].Summary || again[7].Actor.Session != "sess-A" {
		t.Errorf("after restart: %d events, newest %q", len(again), again[0].Summary)
	}
}

// TestHistory_BadArguments: every bad argument is E_ARGUMENT naming the
// field, and nothing is written.
func TestHistory_BadArguments(t *testing.T) {
	s := openHistoryServer(t, t.TempDir())
	defer func() { _ = s.Close() }()
	okEnv(t, call(t, s, "cos_task_create", `{"title": "a"}`), "create")
	for _, tc := range []struct{ args, field, says string }{
		{`{"task_id": "TASK-001", "uid": "code:function:a.go::run"}`, "task_id and uid", "at most one"},
		{`{"stream": "graph", "path": "a.go"}`, "stream and path", "at most one"},
		{`{"task_id": "task one"}`, "task_id", "TASK-"},
		{`{"since": "yesterday"}`, "since", "RFC 3339"},
		{`{"until": "2026-13-01T00:00:00Z"}`, "until", "RFC 3339"},
		{`{"since": 0}`, "since", "≥ 1"},
		{`{"since": -4}`, "since", "≥ 1"},
		{`{"since": true}`, "since", "a seq"},
		{`{"since": 9, "until": 3}`, "since", "at or before until"},
		{`{"since": "2026-05-02T00:00:00Z", "until": "2026-05-01T00:00:00Z"}`, "since", "at or before until"},
		{`{"limit": 0}`, "limit", ""},
		{`{"limit": 501}`, "limit", ""},
		{`{"types": ["Task Updated"]}`, "types", "task.updated"},
		{`{"types": ["task*"]}`, "types", `ending in ".*"`},
		{`{"actor": ""}`, "actor", ""},
	} {
		e := failEnv(t, call(t, s, "cos_history", tc.args), "E_ARGUMENT", tc.args)
		if f, _ := e.Error.Details["field"].(string); !strings.HasPrefix(f, strings.Fields(tc.field)[0]) || !strings.Contains(e.Error.Message, tc.says) {
			t.Errorf("%s: field %q message %q; want field %q saying %q", tc.args, f, e.Error.Message, tc.field, tc.says)
		}
	}
	h, _ := s.tailer.StateHash()
	if pos := s.tailer.Position().Seq; pos != 1 {
		t.Errorf("log at %d after bad calls, want 1 (hash %x)", pos, h[:4])
	}
}

// TestHistory_PathAndUID indexes a file, edits it (one function added, one
// removed, one changed) and indexes again: the path's history says which
// nodes came and went, and each node's history has the extractions that
// touched it.
func TestHistory_PathAndUID(t *testing.T) {
	root := t.TempDir()
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package a\n\nfunc run() { helper() }\n\nfunc helper() {}\n\nfunc old() {}\n")
	s := openHistoryServer(t, t.TempDir(), root)
	defer func() { _ = s.Close() }()
	ctx := WithCaller(context.Background(), "indexer-agent", "2", "sess-I")
	index := func() {
		t.Helper()
		var e envOf
		if err := json.Unmarshal(s.Call(ctx, "cos_graph_index", []byte(`{"path": `+graphJSON(t, root)+`}`)).JSON(), &e); err != nil {
			t.Fatal(err)
		}
		okEnv(t, e, "index")
	}
	index()
	write("package a\n\nfunc run() {\n\thelper()\n\tfresh()\n}\n\nfunc helper() {}\n\nfunc fresh() {}\n")
	index()

	rows, _ := historyOf(t, s, `{"path": "a.go", "types": ["graph.file_extracted"]}`)
	if len(rows) < 2 {
		t.Fatalf("path history: %+v", rows)
	}
	got := rows[0].Summary
	for _, want := range []string{"a.go (", "+1 node (fresh)", "-1 node (old)", "1 node changed (run)", "edges"} {
		if !strings.Contains(got, want) {
			t.Errorf("re-extraction summary %q lacks %q", got, want)
		}
	}
	if !strings.Contains(rows[len(rows)-1].Summary, "first extraction: ") {
		t.Errorf("first extraction summary: %q", rows[len(rows)-1].Summary)
	}
	if rows[0].Actor.Client != "indexer-agent" || rows[0].Actor.Session != "sess-I" {
		t.Errorf("index run actor: %+v", rows[0].Actor)
	}
	old, _ := historyOf(t, s, `{"uid": "code:function:a.go::old"}`)
	fresh, _ := historyOf(t, s, `{"uid": "code:function:a.go::fresh"}`)
	helper, _ := historyOf(t, s, `{"uid": "code:function:a.go::helper"}`)
	if len(old) != 2 || len(fresh) != 1 || len(helper) != 1 {
		t.Errorf("uid histories: old %d (want 2: added, removed), fresh %d (want 1), helper %d (want 1: unchanged since added)", len(old), len(fresh), len(helper))
	}
	e := okEnv(t, call(t, s, "cos_history", `{"path": "nowhere.go"}`), "unknown path")
	if b, _ := json.Marshal(e.Data["meta"]); !strings.Contains(string(b), "no event touched path nowhere.go") {
		t.Errorf("unknown path: meta %s", b)
	}
}

// BenchmarkHistory_Task1000 measures the first page of the history of a
// task with 1,000 events in a log of 10,000 (ten such tasks), through the
// runner: freshness check, index lookup and envelope. It reports the
// index's heap per event.
func BenchmarkHistory_Task1000(b *testing.B) {
	ctx := context.Background()
	s := openHistoryServer(b, b.TempDir())
	defer func() { _ = s.Close() }()
	const taskCount, perTask = 10, 1000
	var reqs []eventlog.AppendRequest
	for i := 1; i <= taskCount; i++ {
		p, _ := tasks.CreatedPayload(tasks.Created{Title: fmt.Sprintf("task %d", i), Priority: "P2", Status: "todo"})
		reqs = append(reqs, eventlog.AppendRequest{Stream: fmt.Sprintf("task:TASK-%03d", i), Expect: eventlog.NoStream(), Events: []eventlog.Payload{p}})
	}
	if _, err := s.st.Append(ctx, reqs...); err != nil {
		b.Fatal(err)
	}
	statuses := []string{"in_progress", "review", "todo"}
	for round := 1; round < perTask; round++ {
		reqs = reqs[:0]
		for i := 1; i <= taskCount; i++ {
			st := statuses[round%3]
			p, _ := tasks.UpdatedPayload(tasks.Patch{Status: &st})
			reqs = append(reqs, eventlog.AppendRequest{Stream: fmt.Sprintf("task:TASK-%03d", i), Events: []eventlog.Payload{p}})
		}
		if _, err := s.st.Append(ctx, reqs...); err != nil {
			b.Fatal(err)
		}
	}
	okEnv(b, call(b, s, "cos_task_board", `{}`), "board") // the projections catch up first: not timed below
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	first := call(b, s, "cos_history", `{"task_id": "TASK-005"}`) // builds the index from the log
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if !first.OK {
		b.Fatalf("%s %s", first.Error.Code, first.Error.Message)
	}
	perEvent := float64(after.HeapAlloc-before.HeapAlloc) / float64(taskCount*perTask)
	b.ResetTimer()
	for b.Loop() {
		e := call(b, s, "cos_history", `{"task_id": "TASK-005"}`)
		if !e.OK || len(e.Data["events"].([]any)) != historyLimitDefault {
			b.Fatalf("page: %v", e.Data)
		}
	}
	b.ReportMetric(perEvent, "heap_B/event")
	b.ReportMetric(float64(build.Microseconds())/1000, "first_call_building_index_ms")
}

// TestHistory_BuildWhileWriting: the first cos_history call builds the
// index from the log while other goroutines keep writing; every event is
// in it exactly once, in order.
func TestHistory_BuildWhileWriting(t *testing.T) {
	s := openHistoryServer(t, t.TempDir())
	defer func() { _ = s.Close() }()
	okEnv(t, call(t, s, "cos_task_create", `{"title": "busy"}`), "create")
	for i := range 300 {
		st := []string{"in_progress", "review"}[i%2]
		p, _ := tasks.UpdatedPayload(tasks.Patch{Status: &st})
		if _, err := s.st.Append(context.Background(), eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{p}}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id": "TASK-001", "patch": {"title": "busy %d"}}`, i)), "update")
		}
	}()
	for range 20 {
		historyOf(t, s, `{"task_id": "TASK-001", "limit": 5}`)
	}
	<-done
	var all []historyRow
	cursor := ""
	for {
		args := `{"task_id": "TASK-001", "limit": 500}`
		if cursor != "" {
			args = `{"task_id": "TASK-001", "limit": 500, "cursor": "` + cursor + `"}`
		}
		rows, next := historyOf(t, s, args)
		all = append(all, rows...)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(all) != 401 {
		t.Fatalf("%d events, want 401", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq != all[i-1].Seq-1 {
			t.Fatalf("event %d: seq %d after %d: a gap or a duplicate", i, all[i].Seq, all[i-1].Seq)
		}
	}
	if !strings.Contains(all[0].Summary, `"busy 98" → "busy 99"`) {
		t.Errorf("newest: %q", all[0].Summary)
	}
}
