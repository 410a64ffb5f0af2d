package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/state"
)

// atServer opens a real state folder (bbolt log, no bus) with a cache of
// at most pastViews point-in-time views, and a runner over it.
func atServer(t testing.TB, pastViews int) *testServer {
	t.Helper()
	ctx := context.Background()
	st, err := state.Open(ctx, state.Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true, PastViews: pastViews})
	if err != nil {
		t.Fatal(err)
	}
	x, err := indexing.New(st, indexing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{st: st, ix: x, r: New(st, x, Options{})}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	return s
}

// atOK calls tool and fails the test unless it answers ok.
func atOK(t testing.TB, s *testServer, tool, args string) idxEnv {
	t.Helper()
	e := idxCall(t, s, tool, args)
	if !e.OK {
		t.Fatalf("%s %s: %s %s", tool, args, e.Error.Code, e.Error.Message)
	}
	return e
}

// atMeta returns data.meta of an answer.
func atMeta(e idxEnv) map[string]any { m, _ := e.Data["meta"].(map[string]any); return m }

// atTitle is the title cos_task_get answers for id (at args, if any).
func atTitle(t testing.TB, s *testServer, id, at string) (string, map[string]any) {
	t.Helper()
	args := fmt.Sprintf(`{"task_id": %q%s}`, id, at)
	e := atOK(t, s, "cos_task_get", args)
	task, _ := e.Data["task"].(map[string]any)
	title, _ := task["title"].(string)
	return title, atMeta(e)
}

// atTasks creates a task titled "first" and renames it "second"; it
// returns the task id and the seq at which the title was still "first".
func atTasks(t testing.TB, s *testServer) (string, uint64) {
	t.Helper()
	e := atOK(t, s, "cos_task_create", `{"title": "first"}`)
	task, _ := e.Data["task"].(map[string]any)
	id, _ := task["task_id"].(string)
	seq := idxHead(t, s)
	atOK(t, s, "cos_task_update", fmt.Sprintf(`{"task_id": %q, "patch": {"title": "second"}}`, id))
	return id, seq
}

func TestAt_TaskGetAndBoardShowTheOldTitle(t *testing.T) {
	s := atServer(t, 0)
	id, old := atTasks(t, s)
	if title, meta := atTitle(t, s, id, ""); title != "second" || meta["at_seq"] != nil {
		t.Fatalf("live: title %q, meta %v; want second and no at_seq", title, meta)
	}
	title, meta := atTitle(t, s, id, fmt.Sprintf(`, "at": %d`, old))
	if title != "first" {
		t.Errorf("cos_task_get at %d: title %q, want first", old, title)
	}
	if meta["at_seq"] != float64(old) || meta["log_seq"] != float64(old) {
		t.Errorf("meta = %v, want at_seq and log_seq %d", meta, old)
	}
	e := atOK(t, s, "cos_task_board", fmt.Sprintf(`{"at": "%d"}`, old)) // a seq sent as a string
	rows, _ := e.Data["rows"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["title"] != "first" {
		t.Errorf("cos_task_board at %d: rows %v, want the one task titled first", old, rows)
	}
	// Before the task existed: seq 0 is the empty state.
	if e := idxCall(t, s, "cos_task_get", fmt.Sprintf(`{"task_id": %q, "at": 0}`, id)); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Errorf("cos_task_get at 0: ok=%v %s, want E_NOT_FOUND", e.OK, e.Error.Code)
	}
	e = atOK(t, s, "cos_task_board", `{"at": 0}`)
	if rows, _ := e.Data["rows"].([]any); len(rows) != 0 || atMeta(e)["at_seq"] != 0.0 {
		t.Errorf("cos_task_board at 0: rows %v meta %v, want none at seq 0", rows, atMeta(e))
	}
}

func TestAt_Time(t *testing.T) {
	s := atServer(t, 0)
	id, old := atTasks(t, s)
	var when time.Time
	if err := s.Log().Read(context.Background(), old, func(ev eventlog.Event) error {
		when = ev.Time
		return eventlog.ErrStop
	}); err != nil {
		t.Fatal(err)
	}
	title, meta := atTitle(t, s, id, fmt.Sprintf(`, "at": %q`, when.Format(time.RFC3339Nano)))
	if title != "first" || meta["at_seq"] != float64(old) {
		t.Errorf("at the time of seq %d (%s): title %q, at_seq %v; want first at %d", old, when.Format(time.RFC3339Nano), title, meta["at_seq"], old)
	}
	title, meta = atTitle(t, s, id, fmt.Sprintf(`, "at": %q`, time.Now().Format(time.RFC3339Nano)))
	if title != "second" || meta["at_seq"] != float64(idxHead(t, s)) {
		t.Errorf("at now: title %q, at_seq %v; want second at the head", title, meta["at_seq"])
	}
	if _, ok := meta["warnings"]; ok {
		t.Errorf("a time past the last event is not worth a warning: %v", meta["warnings"])
	}
	// A time in the future is: the answer is today's head, not that time's.
	title, meta = atTitle(t, s, id, `, "at": "2099-01-01T00:00:00Z"`)
	w, _ := meta["warnings"].([]any)
	if title != "second" || meta["at_seq"] != float64(idxHead(t, s)) || len(w) != 1 || !strings.Contains(w[0].(string), "2099-01-01T00:00:00Z is in the future") {
		t.Errorf("at 2099: title %q, at_seq %v, warnings %v; want second at the head, warned", title, meta["at_seq"], w)
	}
	// Year 1 (Go's zero time) and any time up to 1970 are before every
	// event: the state at seq 0, where the task does not exist yet.
	for _, at := range []string{"0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"} {
		e := idxCall(t, s, "cos_task_board", fmt.Sprintf(`{"at": %q}`, at))
		if e.OK {
			if rows, _ := e.Data["rows"].([]any); len(rows) != 0 {
				t.Errorf("board at %s: %d rows, want none (the state before the first event)", at, len(rows))
			}
		} else {
			t.Errorf("board at %s: %s", at, e.Error)
		}
	}
}

func TestAt_PastTheHead(t *testing.T) {
	s := atServer(t, 0)
	id, _ := atTasks(t, s)
	head := idxHead(t, s)
	title, meta := atTitle(t, s, id, fmt.Sprintf(`, "at": %d`, head+100))
	if title != "second" || meta["at_seq"] != float64(head) {
		t.Errorf("at head+100: title %q, at_seq %v; want second at %d", title, meta["at_seq"], head)
	}
	w, _ := meta["warnings"].([]any)
	if len(w) != 1 || !strings.Contains(w[0].(string), fmt.Sprintf("seq %d is past the log head %d", head+100, head)) {
		t.Errorf("meta.warnings = %v, want one saying seq %d is past the head %d", w, head+100, head)
	}
}

func TestAt_WritesRefuseIt(t *testing.T) {
	s := atServer(t, 0)
	id, old := atTasks(t, s)
	head := idxHead(t, s)
	for _, c := range []struct{ tool, args string }{
		{"cos_task_update", fmt.Sprintf(`{"task_id": %q, "patch": {"title": "third"}, "at": %d}`, id, old)},
		{"cos_task_create", `{"title": "x", "at": 1}`},
		{"cos_graph_changes", `{"at": 1}`},
	} {
		e := idxCall(t, s, c.tool, c.args)
		if e.OK || e.Error.Code != "E_ARGUMENT" || !strings.HasPrefix(e.Error.Message, "at: "+c.tool+" does not take at") || e.Error.Details["field"] != "at" {
			t.Errorf("%s with at: ok=%v %s %q %v, want E_ARGUMENT naming at", c.tool, e.OK, e.Error.Code, e.Error.Message, e.Error.Details)
		}
	}
	if got := idxHead(t, s); got != head {
		t.Errorf("a refused write moved the log from %d to %d", head, got)
	}
	if title, _ := atTitle(t, s, id, ""); title != "second" {
		t.Errorf("title %q after refused writes, want second", title)
	}
}

func TestAt_BadValues(t *testing.T) {
	s := atServer(t, 0)
	atTasks(t, s)
	for _, at := range []string{`-1`, `1.5`, `"yesterday"`, `true`, `{}`, `[1]`, `""`, `1e300`} {
		e := idxCall(t, s, "cos_task_board", `{"at": `+at+`}`)
		if e.OK || e.Error.Code != "E_ARGUMENT" || !strings.HasPrefix(e.Error.Message, "at: got ") || !strings.Contains(e.Error.Message, "RFC 3339") {
			t.Errorf("at %s: ok=%v %s %q, want E_ARGUMENT naming at and what is legal", at, e.OK, e.Error.Code, e.Error.Message)
		}
	}
	if n := s.st.PastBuilds(); n != 0 {
		t.Errorf("bad values built %d views, want none", n)
	}
}

// The schema of every read tool has `at`, of one definition; no write
// tool has it.
func TestAt_Schema(t *testing.T) {
	reads := 0
	for _, tool := range Catalogue() {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema(), &s); err != nil {
			t.Fatal(err)
		}
		at, ok := s.Properties["at"]
		switch {
		case acceptsAt(tool) && !ok:
			t.Errorf("%s reads but has no at", tool.Name)
		case !acceptsAt(tool) && ok:
			t.Errorf("%s writes but has at", tool.Name)
		case ok && string(at) != `{"type":["integer","string"]}`:
			t.Errorf("%s: at schema %s", tool.Name, at)
		}
		if acceptsAt(tool) {
			reads++
		}
	}
	if reads < 12 {
		t.Errorf("only %d tools take at", reads)
	}
}

func TestAt_GraphContextBeforeTheReindex(t *testing.T) {
	repo := freshRepo(t)
	s := idxOpen(t, t.TempDir(), repo.Root)
	first := idxReport(t, s, `{}`)
	before := idxHead(t, s)
	repo.Write("a.go", freshEdited)
	idxReport(t, s, `{}`)
	if line, _ := freshContext(t, s); line != 13 {
		t.Fatalf("live: Hello on line %d, want 13", line)
	}
	repo.Write("a.go", freshSource) // the disk differs from the graph now; the past must not be refreshed
	head := idxHead(t, s)
	e := atOK(t, s, "cos_graph_context", fmt.Sprintf(`{"uid_or_name": "Hello", "at": %d}`, before))
	node, _ := e.Data["node"].(map[string]any)
	if node["line"] != 3.0 {
		t.Errorf("at %d: Hello on line %v, want 3 (the line before the re-index)", before, node["line"])
	}
	meta := atMeta(e)
	idx := metaIndex(t, meta)
	if meta["at_seq"] != float64(before) || idx["indexed_seq"] != float64(first.LastSeq) || idx["stale_files"] != 0.0 {
		t.Errorf("meta = %v, want at_seq %d and meta.index as the first run recorded it (indexed_seq %d)", meta, before, first.LastSeq)
	}
	if _, ok := meta["warnings"]; ok {
		t.Errorf("an answer from the past warns: %v", meta["warnings"])
	}
	if got := idxHead(t, s); got != head {
		t.Errorf("an at answer re-indexed: the log moved from %d to %d", head, got)
	}
}

// Concurrent first calls at one seq build its view once.
func TestAt_ConcurrentFirstCallsBuildOnce(t *testing.T) {
	s := atServer(t, 0)
	id, old := atTasks(t, s)
	var wg sync.WaitGroup
	titles := make([]string, 16)
	for i := range titles {
		wg.Go(func() {
			e := idxCall(t, s, "cos_task_get", fmt.Sprintf(`{"task_id": %q, "at": %d}`, id, old))
			task, _ := e.Data["task"].(map[string]any)
			titles[i], _ = task["title"].(string)
		})
	}
	wg.Wait()
	for i, title := range titles {
		if title != "first" {
			t.Errorf("call %d: title %q, want first", i, title)
		}
	}
	if n := s.st.PastBuilds(); n != 1 {
		t.Errorf("16 concurrent calls at seq %d built %d views, want 1", old, n)
	}
	atTitle(t, s, id, fmt.Sprintf(`, "at": %d`, old))
	if n := s.st.PastBuilds(); n != 1 {
		t.Errorf("a later call at the same seq built again (%d builds)", n)
	}
}

// With a bound of 2 views, calls at 8 seqs at once all answer right while
// views are evicted under them, and the cache ends within its bound; Close
// closes every view.
func TestAt_EvictionWhileCallsRun(t *testing.T) {
	s := atServer(t, 2)
	e := atOK(t, s, "cos_task_create", `{"title": "v0"}`)
	task, _ := e.Data["task"].(map[string]any)
	id, _ := task["task_id"].(string)
	seqs := []uint64{idxHead(t, s)}
	for i := 1; i < 8; i++ {
		atOK(t, s, "cos_task_update", fmt.Sprintf(`{"task_id": %q, "patch": {"title": "v%d"}}`, id, i))
		seqs = append(seqs, idxHead(t, s))
	}
	var wg sync.WaitGroup
	for round := range 3 {
		for i, seq := range seqs {
			wg.Go(func() {
				e := idxCall(t, s, "cos_task_get", fmt.Sprintf(`{"task_id": %q, "at": %d}`, id, seq))
				task, _ := e.Data["task"].(map[string]any)
				if got, want := task["title"], fmt.Sprintf("v%d", i); got != want {
					t.Errorf("round %d, at %d: title %v, want %s (%s)", round, seq, got, want, e.Error.Message)
				}
			})
		}
	}
	wg.Wait()
	if n := s.st.PastCached(); n > 2 {
		t.Errorf("%d views open after the calls, want at most 2", n)
	}
	if err := s.st.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := s.st.PastCached(); n != 0 {
		t.Errorf("%d views open after Close, want 0", n)
	}
}

// A node missing at an earlier seq is E_NOT_FOUND that says which state
// answered: read bare, it looks like the node never existed.
func TestAt_NotFoundSaysWhichState(t *testing.T) {
	s := atServer(t, 0)
	_, old := atTasks(t, s)
	e := call(t, s, "cos_graph_resolve", fmt.Sprintf(`{"q": "NoSuchThing", "at": %d}`, old))
	if e.OK || e.Error.Code != "E_NOT_FOUND" || !strings.Contains(e.Error.Message, fmt.Sprintf("in the state at log seq %d", old)) {
		t.Fatalf("resolve at %d: %+v", old, e.Error)
	}
}
