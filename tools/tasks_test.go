package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/state"
)

// okEnv fails the test unless e is a success envelope.
func okEnv(t testing.TB, e envOf, what string) envOf {
	t.Helper()
	if !e.OK {
		t.Fatalf("%s: %s %s: %s", what, e.Error.Code, e.Error.Category, e.Error.Message)
	}
	return e
}

// failEnv fails the test unless e is a failure with code.
func failEnv(t testing.TB, e envOf, code, what string) envOf {
	t.Helper()
	if e.OK || e.Error.Code != code {
		t.Fatalf("%s: want %s, got ok=%v %s: %s", what, code, e.OK, e.Error.Code, e.Error.Message)
	}
	return e
}

// taskOf decodes data.task of a task answer.
func taskOf(t testing.TB, e envOf) tasks.Task {
	t.Helper()
	b, err := json.Marshal(e.Data["task"])
	if err != nil {
		t.Fatal(err)
	}
	var task tasks.Task
	if err := json.Unmarshal(b, &task); err != nil {
		t.Fatalf("data.task: %v\n%s", err, b)
	}
	return task
}

// streamEvents returns the events of one stream, read from the log.
func streamEvents(t testing.TB, s *testServer, stream string) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	if err := s.Log().Read(context.Background(), 1, func(ev eventlog.Event) error {
		if ev.Stream == stream {
			out = append(out, ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func createTask(t testing.TB, s *testServer, args string) tasks.Task {
	t.Helper()
	return taskOf(t, okEnv(t, call(t, s, "cos_task_create", args), "create "+args))
}

func TestTaskCreate_AnswersTheTaskReadBack(t *testing.T) {
	s := openServer(t, "")
	e := okEnv(t, call(t, s, "cos_task_create", `{"title":"Fix login","description":"redirect loop","priority":"high",
		"labels":["auth"],"signals":{"dimensions":2,"complexity":"COMPLICATED","domain":["meta"]}}`), "create")
	got := taskOf(t, e)
	evs := streamEvents(t, s, "task:TASK-001")
	if len(evs) != 1 {
		t.Fatalf("stream task:TASK-001 holds %d events, want 1", len(evs))
	}
	if got.ID != "TASK-001" || got.Title != "Fix login" || got.Description != "redirect loop" || got.Priority != "high" ||
		got.Status != tasks.StatusTodo || len(got.Labels) != 1 || got.Labels[0] != "auth" {
		t.Fatalf("task = %+v", got)
	}
	if got.Revision != 1 || got.Hash != evs[0].Hash {
		t.Fatalf("revision/hash = %d/%s, want 1/%s (the entity hash)", got.Revision, got.Hash, evs[0].Hash)
	}
	if got.Signals == nil || got.Signals.ScopeSize != tasks.DefaultScopeSize || got.Signals.Novelty != tasks.DefaultNovelty {
		t.Fatalf("signals not normalised: %+v", got.Signals)
	}
	meta := e.Data["meta"].(map[string]any)
	if meta["layer"] != "tasks" || meta["log_seq"].(float64) != float64(evs[0].Seq) {
		t.Fatalf("meta = %v", meta)
	}
	if second := createTask(t, s, `{"title":"next"}`); second.ID != "TASK-002" {
		t.Fatalf("second id = %s", second.ID)
	}
}

func TestTaskCreate_RelationsAreChecked(t *testing.T) {
	s := openServer(t, "")
	a := createTask(t, s, `{"title":"a"}`)
	cases := []struct {
		name, args, code, field string
	}{
		{"unknown depends_on", `{"title":"b","depends_on":["TASK-404"]}`, "E_NOT_FOUND", "depends_on"},
		{"unknown parent", `{"title":"b","parent":"TASK-404"}`, "E_NOT_FOUND", "parent"},
		{"malformed dependency id", `{"title":"b","depends_on":["task one"]}`, "E_ARGUMENT", ""},
		{"bad priority", `{"title":"b","priority":"urgent"}`, "E_ARGUMENT", "priority"},
		{"empty title", `{"title":""}`, "E_ARGUMENT", "title"},
	}
	for _, c := range cases {
		e := failEnv(t, call(t, s, "cos_task_create", c.args), c.code, c.name)
		if c.field != "" && e.Error.Details["field"] != c.field {
			t.Errorf("%s: details.field = %v, want %s (%s)", c.name, e.Error.Details["field"], c.field, e.Error.Message)
		}
	}
	b := createTask(t, s, fmt.Sprintf(`{"title":"b","depends_on":[%q],"parent":%q}`, a.ID, a.ID))
	if len(b.DependsOn) != 1 || b.DependsOn[0] != a.ID || b.Parent != a.ID {
		t.Fatalf("b = %+v", b)
	}
	if n := len(s.board.All()); n != 2 {
		t.Fatalf("refused creates wrote tasks: board holds %d", n)
	}
}

func TestTaskUpdate_CycleIsRefusedNamingIt(t *testing.T) {
	s := openServer(t, "")
	a := createTask(t, s, `{"title":"a"}`)
	b := createTask(t, s, fmt.Sprintf(`{"title":"b","depends_on":[%q]}`, a.ID))
	c := createTask(t, s, fmt.Sprintf(`{"title":"c","depends_on":[%q]}`, b.ID))
	e := failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"depends_on":[%q]}}`, a.ID, c.ID)), "E_ARGUMENT", "cycle")
	want := strings.Join([]string{a.ID, c.ID, b.ID, a.ID}, " → ")
	if !strings.Contains(e.Error.Message, want) || e.Error.Details["field"] != "depends_on" {
		t.Fatalf("cycle message %q lacks %q (details %v)", e.Error.Message, want, e.Error.Details)
	}
	failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"depends_on":[%q]}}`, a.ID, a.ID)), "E_ARGUMENT", "self cycle")
	if got := streamEvents(t, s, tasks.StreamOf(a.ID)); len(got) != 1 {
		t.Fatalf("refused updates wrote %d events", len(got)-1)
	}
}

func TestTaskUpdate_CAS(t *testing.T) {
	s := openServer(t, "")
	task := createTask(t, s, `{"title":"a"}`)
	up := func(extra string) envOf {
		return call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"in_progress"}%s}`, task.ID, extra))
	}
	moved := taskOf(t, okEnv(t, up(`,"base_revision":1,"expected_hash":"`+task.Hash+`"`), "update at the read revision"))
	if moved.Revision != 2 || moved.Status != tasks.StatusInProgress || moved.Hash == task.Hash {
		t.Fatalf("after update: %+v", moved)
	}
	for _, c := range []struct{ name, extra string }{
		{"stale revision", `,"base_revision":1`},
		{"stale hash", `,"expected_hash":"` + task.Hash + `"`},
		{"stale both", `,"base_revision":1,"expected_hash":"` + task.Hash + `"`},
	} {
		e := failEnv(t, up(c.extra), "STALE_REVISION", c.name)
		if e.Error.Category != "conflict" || e.Error.Details["current_revision"].(float64) != 2 || e.Error.Details["current_hash"] != moved.Hash {
			t.Fatalf("%s: %+v", c.name, e.Error)
		}
	}
	failEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-404","patch":{"status":"done"}}`), "E_NOT_FOUND", "unknown task")
	failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{}}`, task.ID)), "E_ARGUMENT", "empty patch")
	failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"finished"}}`, task.ID)), "E_ARGUMENT", "bad status")
	if got := streamEvents(t, s, tasks.StreamOf(task.ID)); len(got) != 2 {
		t.Fatalf("stream holds %d events, want 2", len(got))
	}
}

func TestTaskClaim_HolderIdempotentOthersConflict(t *testing.T) {
	s := openServer(t, "")
	task := createTask(t, s, `{"title":"a"}`)
	claim := func(who string) envOf {
		return call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":%q}`, task.ID, who))
	}
	won := taskOf(t, okEnv(t, claim("alice"), "first claim"))
	if won.Assignee != "alice" || won.Revision != 2 {
		t.Fatalf("claimed: %+v", won)
	}
	again := okEnv(t, claim("alice"), "claim again")
	if got := taskOf(t, again); got.Revision != 2 || got.Hash != won.Hash || again.Data["seq"].(float64) != 0 {
		t.Fatalf("re-claim by the holder wrote: %+v (seq %v)", got, again.Data["seq"])
	}
	e := failEnv(t, claim("bob"), "E_CLAIMED", "claim by another")
	if e.Error.Category != "conflict" || !strings.Contains(e.Error.Message, `"alice"`) || e.Error.Details["holder"] != "alice" {
		t.Fatalf("conflict: %+v", e.Error)
	}
	failEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-404","assignee":"bob"}`), "E_NOT_FOUND", "unknown task")
	failEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":""}`, task.ID)), "E_ARGUMENT", "empty assignee")
	if got := streamEvents(t, s, tasks.StreamOf(task.ID)); len(got) != 2 {
		t.Fatalf("stream holds %d events, want 2", len(got))
	}
}

// TestTaskClaim_ConcurrentInOneProcess: of N goroutines claiming one task
// through one server, exactly one wins. (Across processes:
// TestMultiProcess_ClaimOneWinner.)
func TestTaskClaim_ConcurrentInOneProcess(t *testing.T) {
	s := openServer(t, "")
	const n = 8
	for round := range 5 {
		task := createTask(t, s, `{"title":"contended"}`)
		results := make(chan envOf, n)
		for i := range n {
			go func() {
				results <- call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"agent-%d"}`, task.ID, i))
			}()
		}
		checkOneWinner(t, round, collectEnvs(results, n))
	}
}

func collectEnvs(ch chan envOf, n int) []envOf {
	out := make([]envOf, n)
	for i := range out {
		out[i] = <-ch
	}
	return out
}

// checkOneWinner asserts one success and a conflict naming the winner for
// every other claimer.
func checkOneWinner(t testing.TB, round int, res []envOf) {
	t.Helper()
	var winners []string
	for _, e := range res {
		if e.OK {
			winners = append(winners, taskOf(t, e).Assignee)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("round %d: %d winners %v", round, len(winners), winners)
	}
	for _, e := range res {
		if e.OK {
			continue
		}
		if e.Error.Category != "conflict" || e.Error.Details["holder"] != winners[0] {
			t.Fatalf("round %d: loser got %s %s: %s (winner %s)", round, e.Error.Category, e.Error.Code, e.Error.Message, winners[0])
		}
	}
}

func TestTaskWrites_RequestID(t *testing.T) {
	s := openServer(t, "")
	first := okEnv(t, call(t, s, "cos_task_create", `{"title":"once","request_id":"rq-1"}`), "first")
	again := okEnv(t, call(t, s, "cos_task_create", `{"title":"once","request_id":"rq-1"}`), "resend")
	if !sameTask(taskOf(t, again), taskOf(t, first)) {
		t.Fatalf("resend answered another task:\n%+v\n%+v", taskOf(t, again), taskOf(t, first))
	}
	if again.Data["replayed"] != true || again.Data["seq"] != first.Data["seq"] {
		t.Fatalf("resend: replayed=%v seq=%v, first seq=%v", again.Data["replayed"], again.Data["seq"], first.Data["seq"])
	}
	if n := len(s.board.All()); n != 1 {
		t.Fatalf("board holds %d tasks after a resend, want 1", n)
	}
	e := failEnv(t, call(t, s, "cos_task_create", `{"title":"changed","request_id":"rq-1"}`), "E_REQUEST_REUSE", "reuse")
	if e.Error.Category != "conflict" {
		t.Fatalf("reuse category %s", e.Error.Category)
	}
	for _, tool := range []string{"cos_task_create", "cos_task_update", "cos_task_claim"} {
		args := `{"title":"x","request_id":""}`
		switch tool {
		case "cos_task_update":
			args = `{"task_id":"TASK-001","patch":{"status":"done"},"request_id":""}`
		case "cos_task_claim":
			args = `{"task_id":"TASK-001","assignee":"a","request_id":""}`
		}
		e := failEnv(t, call(t, s, tool, args), "E_REQUEST_ID", tool+" empty request_id")
		if !strings.Contains(e.Error.Message, "Nonempty request_id required") || e.Error.Details["field"] != "request_id" {
			t.Fatalf("%s: %+v", tool, e.Error)
		}
	}
	// An update under a request id replays too, even though the task moved.
	task := taskOf(t, first)
	upd := fmt.Sprintf(`{"task_id":%q,"patch":{"status":"review"},"base_revision":%d,"request_id":"rq-2"}`, task.ID, task.Revision)
	u1 := okEnv(t, call(t, s, "cos_task_update", upd), "update")
	u2 := okEnv(t, call(t, s, "cos_task_update", upd), "update resend")
	if u2.Data["replayed"] != true || u1.Data["seq"] != u2.Data["seq"] {
		t.Fatalf("update resend not replayed: %v %v", u1.Data, u2.Data)
	}
	if got := streamEvents(t, s, tasks.StreamOf(task.ID)); len(got) != 2 {
		t.Fatalf("stream holds %d events, want 2", len(got))
	}
}

func sameTask(a, b tasks.Task) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestTaskBoard_FiltersAndCursors(t *testing.T) {
	s := openServer(t, "")
	for i := range 7 {
		label := "even"
		if i%2 == 1 {
			label = "odd"
		}
		createTask(t, s, fmt.Sprintf(`{"title":"t%d","labels":[%q]}`, i, label))
	}
	walk := func(args string) []string {
		var ids []string
		cursor := ""
		for {
			a := args
			if cursor != "" {
				a = strings.TrimSuffix(args, "}") + `,"cursor":"` + cursor + `"}`
			}
			e := okEnv(t, call(t, s, "cos_task_board", a), "board "+a)
			if e.Data["meta"].(map[string]any)["layer"] != "tasks" {
				t.Fatalf("meta.layer = %v", e.Data["meta"])
			}
			for _, r := range e.Data["rows"].([]any) {
				ids = append(ids, r.(map[string]any)["task_id"].(string))
			}
			cursor, _ = e.Data["next_cursor"].(string)
			if cursor == "" {
				return ids
			}
		}
	}
	if got := walk(`{"limit":3}`); strings.Join(got, ",") != "TASK-001,TASK-002,TASK-003,TASK-004,TASK-005,TASK-006,TASK-007" {
		t.Fatalf("walk = %v", got)
	}
	if got := walk(`{"label":"odd","limit":2}`); strings.Join(got, ",") != "TASK-002,TASK-004,TASK-006" {
		t.Fatalf("odd walk = %v", got)
	}
	okEnv(t, call(t, s, "cos_task_claim", `{"task_id":"TASK-003","assignee":"carol"}`), "claim")
	if got := walk(`{"assignee":"carol"}`); len(got) != 1 || got[0] != "TASK-003" {
		t.Fatalf("assignee walk = %v", got)
	}
	failEnv(t, call(t, s, "cos_task_board", `{"cursor":"not-a-cursor"}`), "E_CURSOR", "malformed cursor")
	failEnv(t, call(t, s, "cos_task_board", `{"limit":0}`), "E_ARGUMENT", "limit 0")
	failEnv(t, call(t, s, "cos_task_board", `{"status":"open"}`), "E_ARGUMENT", "bad status")

	first := okEnv(t, call(t, s, "cos_task_board", `{"limit":2}`), "first page")
	cur := first.Data["next_cursor"].(string)
	okEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-003","patch":{"title":"renamed"}}`), "update a listed task")
	okEnv(t, call(t, s, "cos_task_update", `{"task_id":"TASK-004","patch":{"status":"done"}}`), "update a listed task")
	// The page is read at the walk's seq: the tasks as they were then.
	next := okEnv(t, call(t, s, "cos_task_board", `{"limit":2,"cursor":"`+cur+`"}`), "page after listed tasks changed")
	rows := next.Data["rows"].([]any)
	if len(rows) != 2 || rows[0].(map[string]any)["title"] == "renamed" || rows[1].(map[string]any)["status"] == "done" ||
		next.Data["walk_log_seq"] != first.Data["walk_log_seq"] {
		t.Fatalf("page after listed tasks changed: %v", next.Data)
	}
	if m := next.Data["meta"].(map[string]any); m["events_since_walk"] != float64(2) || m["at_seq"] != first.Data["walk_log_seq"] {
		t.Fatalf("page after listed tasks changed: meta %v", m)
	}
	failEnv(t, call(t, s, "cos_task_board", `{"limit":2,"label":"odd","cursor":"`+cur+`"}`), "STALE_CURSOR", "cursor of another filter")
}

// TestTaskBoard_PageFitsTheBudget: a page whose rows would not fit the
// envelope is shortened, never trimmed, so a walk still returns every task.
func TestTaskBoard_PageFitsTheBudget(t *testing.T) {
	s := openServer(t, "")
	const n = 60
	long := strings.Repeat("é", 190) // 190 tokens each: 60 rows overflow 32,000
	for i := range n {
		createTask(t, s, fmt.Sprintf(`{"title":"%s %02d"}`, long[:len(long)-4], i))
	}
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		args := `{"limit":200}`
		if cursor != "" {
			args = `{"limit":200,"cursor":"` + cursor + `"}`
		}
		e := okEnv(t, call(t, s, "cos_task_board", args), "page")
		if e.Data["meta"].(map[string]any)["truncated"] != false {
			t.Fatalf("page was trimmed by the envelope: %v", e.Data["meta"])
		}
		if m := e.Data["meta"].(map[string]any); pages == 0 && (m["page_cut"] != "budget" || m["page_budget_chars"] != 32000.0) {
			t.Fatalf("first page, cut by the budget: meta %v", m)
		}
		pages++
		for _, r := range e.Data["rows"].([]any) {
			seen[r.(map[string]any)["task_id"].(string)] = true
		}
		if cursor, _ = e.Data["next_cursor"].(string); cursor == "" {
			break
		}
	}
	if len(seen) != n || pages < 2 {
		t.Fatalf("walk saw %d of %d tasks in %d pages", len(seen), n, pages)
	}
}

func TestTaskGet(t *testing.T) {
	s := openServer(t, "")
	task := createTask(t, s, `{"title":"a","description":"long text"}`)
	got := taskOf(t, okEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-001"}`), "get"))
	if !sameTask(got, task) {
		t.Fatalf("get = %+v, create answered %+v", got, task)
	}
	failEnv(t, call(t, s, "cos_task_get", `{"task_id":"TASK-002"}`), "E_NOT_FOUND", "missing")
	failEnv(t, call(t, s, "cos_task_get", `{"task_id":"7"}`), "E_ARGUMENT", "malformed id")
}

func TestTaskTools_ModuleGate(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	if err := state.SetModule(dir, "tasks", false); err != nil {
		t.Fatal(err)
	}
	for tool, args := range map[string]string{"cos_task_create": `{"title":"x"}`, "cos_task_board": `{}`, "cos_analyze_task": tasks.SignalsExample} {
		e := call(t, s, tool, args)
		if e.OK || e.Error.Category != "module_disabled" || !strings.Contains(e.Error.Message, "cos module enable tasks") {
			t.Fatalf("%s with tasks disabled: %+v", tool, e)
		}
	}
	if len(s.board.All()) != 0 {
		t.Fatal("a disabled module wrote")
	}
}

// signalWrongForms are the "common wrong form" rows of the TaskSignals
// table in docs/uids.md: the field, the wrong value, and the legal values
// the message must list.
var signalWrongForms = []struct {
	field, value, got string
	legal             []string
}{
	{"dimensions", `["mcp-tooling", "workflow"]`, `["mcp-tooling","workflow"]`, []string{"integer ≥ 1"}},
	{"domain", `"meta"`, `"meta"`, []string{"list of strings"}},
	{"complexity", `"complex"`, `"complex"`, []string{`"CLEAR"`, `"COMPLICATED"`, `"COMPLEX"`, `"CHAOTIC"`, `"CONFUSION"`}},
	{"scope_size", `"big"`, `"big"`, []string{`"trivial"`, `"small"`, `"medium"`, `"large"`, `"recursive"`}},
	{"action", `"analyze"`, `"analyze"`, []string{`"create"`, `"modify"`, `"debug"`, `"research"`, `"review"`, `"deploy"`, `"refactor"`, `"document"`, `"audit"`, `"unknown"`}},
	{"urgency", `"high"`, `"high"`, []string{`"normal"`, `"elevated"`, `"incident"`}},
	{"novelty", `"high"`, `"high"`, []string{"0.0", "1.0"}},
}

// signalsWith returns minimal valid signals (tasks.SignalsExample without
// its title) with field set to the raw JSON value.
func signalsWith(t testing.TB, field, value string) string {
	t.Helper()
	m := map[string]json.RawMessage{"dimensions": json.RawMessage(`2`), "complexity": json.RawMessage(`"COMPLICATED"`), "domain": json.RawMessage(`["meta"]`)}
	m[field] = json.RawMessage(value)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTaskSignals_SeedWrongFormsThroughTheTools(t *testing.T) {
	s := openServer(t, "")
	for _, wf := range signalWrongForms {
		sig := signalsWith(t, wf.field, wf.value)
		quoted, _ := json.Marshal(sig)
		sigNoBraces := strings.TrimSuffix(strings.TrimPrefix(sig, "{"), "}")
		forms := []struct{ how, tool, args, field string }{
			{"signals_json object", "cos_analyze_task", `{"task_title":"Fix auth bug","signals_json":` + sig + `}`, wf.field},
			{"signals_json string", "cos_analyze_task", `{"task_title":"Fix auth bug","signals_json":` + string(quoted) + `}`, wf.field},
			{"top-level fields", "cos_analyze_task", `{"task_title":"Fix auth bug",` + sigNoBraces + `}`, wf.field},
			{"create signals", "cos_task_create", `{"title":"Fix auth bug","signals":` + sig + `}`, "signals." + wf.field},
		}
		for _, f := range forms {
			name := wf.field + " via " + f.how
			e := failEnv(t, call(t, s, f.tool, f.args), "E_ARGUMENT", name)
			msg := e.Error.Message
			for _, part := range append([]string{f.field, wf.got, tasks.SignalsExample}, wf.legal...) {
				if !strings.Contains(msg, part) {
					t.Errorf("%s: message lacks %q:\n%s", name, part, msg)
				}
			}
			if e.Error.Details["field"] != f.field {
				t.Errorf("%s: details.field = %v, want %s", name, e.Error.Details["field"], f.field)
			}
			if fields, _ := e.Error.Details["fields"].([]any); len(fields) != 1 {
				t.Errorf("%s: %d field errors, want exactly one: %s", name, len(fields), msg)
			}
		}
	}
	if len(s.board.All()) != 0 {
		t.Fatalf("a create with wrong signals wrote %d tasks", len(s.board.All()))
	}
}

func TestAnalyzeTask_NormalisesAndCallsRoles(t *testing.T) {
	s := openServer(t, "")
	cases := []struct {
		name, args string
		roles      []string
	}{
		{"seed minimal call", tasks.SignalsExample, nil},
		{"signals_json string", `{"task_title":"Fix auth bug","signals_json":"{\"dimensions\":1,\"complexity\":\"CLEAR\",\"domain\":[\"meta\"],\"action\":\"debug\",\"scope_size\":\"small\"}"}`, nil},
		{"research", `{"task_title":"Survey","signals_json":{"dimensions":1,"complexity":"COMPLEX","domain":["x"],"action":"research"}}`, nil},
	}
	for _, c := range cases {
		e := okEnv(t, call(t, s, "cos_analyze_task", c.args), c.name)
		var want tasks.Analysis
		// The tool's answer must be the domain's analysis of the same input.
		var in map[string]json.RawMessage
		_ = json.Unmarshal([]byte(c.args), &in)
		title := ""
		_ = json.Unmarshal(in["task_title"], &title)
		raw := in["signals_json"]
		if raw == nil {
			delete(in, "task_title")
			raw, _ = json.Marshal(in)
		}
		want, err := tasks.AnalyzeTask(title, raw)
		if err != nil {
			t.Fatalf("%s: domain: %v", c.name, err)
		}
		gotSig, wantSig := canonJSON(t, e.Data["signals"]), canonJSON(t, want.Signals)
		gotRoles, wantRoles := canonJSON(t, e.Data["roles"]), canonJSON(t, want.Roles)
		if string(gotSig) != string(wantSig) || string(gotRoles) != string(wantRoles) {
			t.Fatalf("%s:\n got %s %s\nwant %s %s", c.name, gotSig, gotRoles, wantSig, wantRoles)
		}
		if len(want.Roles) == 0 || want.Signals.ScopeSize == "" {
			t.Fatalf("%s: vacuous analysis %+v", c.name, want)
		}
	}
	failEnv(t, call(t, s, "cos_analyze_task", `{"task_title":"x","signals_json":{"dimensions":1},"complexity":"CLEAR"}`), "E_ARGUMENT", "both places")
}

// cos_analyze_task's schema and its behaviour agree: task_title is the one
// required argument; the signals left out take their defaults.
func TestAnalyzeTask_SchemaAgreesWithBehaviour(t *testing.T) {
	s := openServer(t, "")
	var schema struct {
		Required []string `json:"required"`
	}
	for _, tl := range s.Tools() {
		if tl.Name == "cos_analyze_task" {
			if err := json.Unmarshal(tl.InputSchema(), &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(schema.Required) != 1 || schema.Required[0] != "task_title" {
		t.Fatalf("required = %v, want [task_title]", schema.Required)
	}
	e := okEnv(t, call(t, s, "cos_analyze_task", `{"task_title":"x","dimensions":2}`), "no domain")
	sig := e.Data["signals"].(map[string]any)
	if d, ok := sig["domain"].([]any); !ok || len(d) != 0 || sig["complexity"] != tasks.DefaultComplexity || sig["dimensions"] != float64(2) {
		t.Errorf("signals = %v, want domain [], complexity %s, dimensions 2", sig, tasks.DefaultComplexity)
	}
	okEnv(t, call(t, s, "cos_analyze_task", `{"task_title":"x"}`), "title only")
	failEnv(t, call(t, s, "cos_analyze_task", `{"domain":["auth"]}`), "E_ARGUMENT", "no title")
}

// canonJSON encodes v with object keys sorted (through a generic decode).
func canonJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(g)
	return string(b)
}

func TestTaskRelease_OnlyTheHolder(t *testing.T) {
	s := openServer(t, "")
	task := createTask(t, s, `{"title":"a"}`)
	args := func(who string) string { return fmt.Sprintf(`{"task_id":%q,"assignee":%q}`, task.ID, who) }
	free := okEnv(t, call(t, s, "cos_task_release", args("alice")), "release of a free task")
	if got := taskOf(t, free); got.Revision != 1 || free.Data["seq"].(float64) != 0 {
		t.Fatalf("releasing a free task wrote: %+v", got)
	}
	okEnv(t, call(t, s, "cos_task_claim", args("alice")), "claim")
	e := failEnv(t, call(t, s, "cos_task_release", args("bob")), "E_CLAIMED", "release by another")
	if e.Error.Details["holder"] != "alice" || e.Error.Category != "conflict" {
		t.Fatalf("release by another: %+v", e.Error)
	}
	got := taskOf(t, okEnv(t, call(t, s, "cos_task_release", args("alice")), "release by the holder"))
	if got.Assignee != "" || got.Revision != 3 {
		t.Fatalf("after release: %+v", got)
	}
	if got := taskOf(t, okEnv(t, call(t, s, "cos_task_claim", args("bob")), "claim after release")); got.Assignee != "bob" {
		t.Fatalf("claim after release: %+v", got)
	}
	failEnv(t, call(t, s, "cos_task_release", `{"task_id":"TASK-404","assignee":"bob"}`), "E_NOT_FOUND", "unknown task")
}

func BenchmarkTaskCreate(b *testing.B) {
	s := openServer(b, "")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if e := call(b, s, "cos_task_create", fmt.Sprintf(`{"title":"bench %d","labels":["x"]}`, i)); !e.OK {
			b.Fatal(e.Error.Message)
		}
	}
}

func BenchmarkTaskClaim_Contended(b *testing.B) {
	s := openServer(b, "")
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		task := createTask(b, s, `{"title":"c"}`)
		res := make(chan envOf, 4)
		for g := range 4 {
			go func() {
				res <- claimNoT(s, fmt.Sprintf(`{"task_id":%q,"assignee":"g%d"}`, task.ID, g))
			}()
		}
		won := 0
		for range 4 {
			if (<-res).OK {
				won++
			}
		}
		if won != 1 {
			b.Fatalf("%d winners", won)
		}
	}
}

// claimNoT calls cos_task_claim without a testing.TB, for goroutines of a
// benchmark.
func claimNoT(s *testServer, args string) envOf {
	var e envOf
	_ = json.Unmarshal(s.Call(context.Background(), "cos_task_claim", json.RawMessage(args)).JSON(), &e)
	return e
}

func BenchmarkTaskBoard_Page(b *testing.B) {
	s := openServer(b, "")
	for i := range 1000 {
		createTask(b, s, fmt.Sprintf(`{"title":"task %d","labels":["l%d"]}`, i, i%5))
	}
	b.ResetTimer()
	for b.Loop() {
		if e := call(b, s, "cos_task_board", `{"label":"l3","limit":50}`); !e.OK {
			b.Fatal(e.Error.Message)
		}
	}
}

// checkCycleRace asserts the outcome of two concurrent updates that would
// together close the cycle x → y → x: exactly one wins, the other is
// refused naming the cycle, and the board holds no cycle. The loser is a
// conflict (STALE_REVISION) when it had checked before the winner
// committed, and E_ARGUMENT when the winner had already committed when it
// read; it reports which.
func checkCycleRace(t testing.TB, s *testServer, round int, x, y string, res []envOf) (raced bool) {
	t.Helper()
	won := 0
	for _, e := range res {
		if e.OK {
			won++
			continue
		}
		raced = e.Error.Code == "STALE_REVISION"
		if !(raced && e.Error.Category == "conflict" || e.Error.Code == "E_ARGUMENT") || e.Error.Retryable ||
			!strings.Contains(e.Error.Message, x) || !strings.Contains(e.Error.Message, y) || e.Error.Details["cycle"] == nil {
			t.Fatalf("round %d: loser got %s %s (retryable %v): %s %v", round, e.Error.Category, e.Error.Code,
				e.Error.Retryable, e.Error.Message, e.Error.Details)
		}
	}
	if won != 1 {
		t.Fatalf("round %d: %d of 2 conflicting updates won, want exactly 1", round, won)
	}
	tx := taskOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, x)), "get x"))
	ty := taskOf(t, okEnv(t, call(t, s, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, y)), "get y"))
	if len(tx.DependsOn)+len(ty.DependsOn) != 1 {
		t.Fatalf("round %d: board holds %s → %v and %s → %v", round, x, tx.DependsOn, y, ty.DependsOn)
	}
	return raced
}

// TestTaskUpdate_ConcurrentCycle_InOneProcess: two goroutines of one server
// update X → Y and Y → X at once, 40 rounds; exactly one wins every round.
func TestTaskUpdate_ConcurrentCycle_InOneProcess(t *testing.T) {
	s := openServer(t, "")
	conflicts := 0
	for round := range 40 {
		x := createTask(t, s, `{"title":"x"}`).ID
		y := createTask(t, s, `{"title":"y"}`).ID
		results := make(chan envOf, 2)
		start := make(chan struct{})
		for _, pair := range [][2]string{{x, y}, {y, x}} {
			go func() {
				<-start
				results <- call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"depends_on":[%q]}}`, pair[0], pair[1]))
			}()
		}
		close(start)
		if checkCycleRace(t, s, round, x, y, collectEnvs(results, 2)) {
			conflicts++
		}
	}
	t.Logf("40 rounds, one winner each; %d losers lost the race inside the write (conflict)", conflicts)
}

// TestTaskUpdate_ConcurrentCycle_AcrossProcesses: two processes update
// X → Y and Y → X at once, 40 rounds; exactly one wins every round and the
// loser's conflict names the cycle.
func TestTaskUpdate_ConcurrentCycle_AcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	kids := startChildren(t, dir, 2)
	conflicts := 0
	for round := range 40 {
		x := createTask(t, s, `{"title":"x"}`).ID
		y := createTask(t, s, `{"title":"y"}`).ID
		out := runAtOnce(t, kids, [][]childCall{
			{cc("cos_task_update", `{"task_id":%q,"patch":{"depends_on":[%q]}}`, x, y)},
			{cc("cos_task_update", `{"task_id":%q,"patch":{"depends_on":[%q]}}`, y, x)},
		})
		if checkCycleRace(t, s, round, x, y, []envOf{out[0][0], out[1][0]}) {
			conflicts++
		}
	}
	t.Logf("40 rounds, one winner each; %d losers lost the race inside the write (conflict)", conflicts)
}

// TestTaskUpdate_ClaimedTaskStatus: while alice holds a task, nobody else
// changes its status (E_CLAIMED naming her) unless they say force; she
// can, and fields other than the status stay open to everyone.
func TestTaskUpdate_ClaimedTaskStatus(t *testing.T) {
	s := openServer(t, "")
	task := createTask(t, s, `{"title":"a"}`)
	okEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"alice"}`, task.ID)), "claim")
	up := func(extra string) envOf {
		return call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"done"}%s}`, task.ID, extra))
	}
	for _, c := range []struct{ name, extra string }{
		{"anonymous", ``},
		{"someone else", `,"assignee":"bob"`},
		{"someone else, force false", `,"assignee":"bob","force":false`},
	} {
		e := failEnv(t, up(c.extra), "E_CLAIMED", c.name)
		if e.Error.Category != "conflict" || e.Error.Retryable || e.Error.Details["holder"] != "alice" ||
			!strings.Contains(e.Error.Message, `"alice"`) {
			t.Fatalf("%s: %+v", c.name, e.Error)
		}
	}
	if got := streamEvents(t, s, tasks.StreamOf(task.ID)); len(got) != 2 {
		t.Fatalf("refused updates wrote: stream holds %d events, want 2", len(got))
	}
	labels := taskOf(t, okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"labels":["x"]},"assignee":"bob"}`, task.ID)), "labels by bob"))
	if labels.Status != tasks.StatusTodo || len(labels.Labels) != 1 {
		t.Fatalf("labels update: %+v", labels)
	}
	byHolder := taskOf(t, okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"in_progress"},"assignee":"alice"}`, task.ID)), "by the holder"))
	if byHolder.Status != tasks.StatusInProgress || byHolder.Assignee != "alice" {
		t.Fatalf("holder's update: %+v", byHolder)
	}
	forced := taskOf(t, okEnv(t, up(`,"assignee":"bob","force":true`), "forced"))
	if forced.Status != tasks.StatusDone {
		t.Fatalf("forced update: %+v", forced)
	}
	failEnv(t, up(`,"assignee":" bob"`), "E_ARGUMENT", "malformed assignee")
	// Claims and releases by someone else are E_CLAIMED too.
	e := failEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"bob"}`, task.ID)), "E_CLAIMED", "claim by bob")
	if e.Error.Details["holder"] != "alice" {
		t.Fatalf("claim conflict: %+v", e.Error)
	}
	failEnv(t, call(t, s, "cos_task_release", fmt.Sprintf(`{"task_id":%q,"assignee":"bob"}`, task.ID)), "E_CLAIMED", "release by bob")
}

// TestTaskUpdate_DependencyChangeMovesTheRevision: a dependency change is
// an event of the board's relations stream, yet it moves the task's
// revision and hash, so base_revision and expected_hash guard it and are
// guarded by it; a resend under its request id replays it.
func TestTaskUpdate_DependencyChangeMovesTheRevision(t *testing.T) {
	s := openServer(t, "")
	a := createTask(t, s, `{"title":"a"}`)
	b := createTask(t, s, `{"title":"b"}`)
	link := fmt.Sprintf(`{"task_id":%q,"patch":{"depends_on":[%q]},"base_revision":1,"expected_hash":%q,"request_id":"dep-1"}`, b.ID, a.ID, b.Hash)
	linked := taskOf(t, okEnv(t, call(t, s, "cos_task_update", link), "link"))
	rel := streamEvents(t, s, tasks.RelationsStream)
	if len(rel) != 1 || rel[0].Type != tasks.TypeRelationsUpdated {
		t.Fatalf("relations stream holds %d events, want one %s", len(rel), tasks.TypeRelationsUpdated)
	}
	if linked.Revision != 2 || linked.Hash != rel[0].Hash || len(linked.DependsOn) != 1 {
		t.Fatalf("linked: %+v", linked)
	}
	again := okEnv(t, call(t, s, "cos_task_update", link), "resend")
	if again.Data["replayed"] != true || len(streamEvents(t, s, tasks.RelationsStream)) != 1 {
		t.Fatalf("resend not replayed: %v", again.Data)
	}
	for _, extra := range []string{`,"base_revision":1`, `,"expected_hash":"` + b.Hash + `"`} {
		e := failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"depends_on":[]}%s}`, b.ID, extra)), "STALE_REVISION", "stale dependency change"+extra)
		if e.Error.Details["current_revision"].(float64) != 2 || e.Error.Details["current_hash"] != linked.Hash {
			t.Fatalf("stale: %+v", e.Error)
		}
		failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"done"}%s}`, b.ID, extra)), "STALE_REVISION", "stale status change"+extra)
	}
	done := taskOf(t, okEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"done"},"base_revision":2,"expected_hash":%q}`, b.ID, linked.Hash)), "status at revision 2"))
	if done.Revision != 3 || len(streamEvents(t, s, tasks.StreamOf(b.ID))) != 2 || len(done.DependsOn) != 1 {
		t.Fatalf("after the status change: %+v", done)
	}
	// Claims and releases expect the task's own stream revision, not the
	// revision that counts dependency changes.
	claimed := taskOf(t, okEnv(t, call(t, s, "cos_task_claim", fmt.Sprintf(`{"task_id":%q,"assignee":"alice"}`, b.ID)), "claim after a dependency change"))
	released := taskOf(t, okEnv(t, call(t, s, "cos_task_release", fmt.Sprintf(`{"task_id":%q,"assignee":"alice"}`, b.ID)), "release after a dependency change"))
	if claimed.Revision != 4 || released.Revision != 5 || released.Assignee != "" {
		t.Fatalf("claim/release: %+v / %+v", claimed, released)
	}
	e := failEnv(t, call(t, s, "cos_task_update", fmt.Sprintf(`{"task_id":%q,"patch":{"status":"done"},"expected_hash":"ABC"}`, b.ID)), "E_ARGUMENT", "malformed hash")
	if e.Error.Details["field"] != "expected_hash" {
		t.Fatalf("malformed hash: %+v", e.Error)
	}
	// A fresh process replaying the log reaches the same state.
	cold := openServer(t, s.StateDir())
	call(t, cold, "cos_task_get", fmt.Sprintf(`{"task_id":%q}`, b.ID))
	got, gotPos := cold.Tailer().StateHash()
	want, wantPos := s.Tailer().StateHash()
	if got != want || gotPos.Seq != wantPos.Seq {
		t.Fatalf("cold replay: state hash %x at seq %d, want %x at %d", got, gotPos.Seq, want, wantPos.Seq)
	}
}
