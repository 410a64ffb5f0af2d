package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
)

// Multi-process tests re-execute this test binary: with COS_TOOLS_CHILD=1
// the package's init runs childMain and exits before TestMain or any test
// runs (an init rather than a TestMain of its own, so that the package's
// TestMain, which builds the cos binary and checks for leaked goroutines,
// is not run by every child). A child opens its own testServer on
// COS_TOOLS_DIR and serves batches of calls read as JSON lines on
// stdin; it answers each batch with one JSON line of envelopes on stdout.
// A batch with barrier set first answers {"ready":true} and waits for a
// "go" line, so the parent can release every child's batch at once.
const (
	childEnv    = "COS_TOOLS_CHILD"
	childDirEnv = "COS_TOOLS_DIR"
)

func init() {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain())
	}
}

// childCall is one tool call of a batch; TimeoutMS > 0 bounds its context.
type childCall struct {
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	TimeoutMS int             `json:"timeout_ms,omitempty"`
}

type childBatch struct {
	Calls   []childCall `json:"calls"`
	Barrier bool        `json:"barrier"`
}

type childReply struct {
	Ready   bool              `json:"ready,omitempty"`
	Results []json.RawMessage `json:"results,omitempty"`
	Err     string            `json:"err,omitempty"`
}

func childMain() int {
	out := json.NewEncoder(os.Stdout)
	s, err := openTestServer(context.Background(), testOptions{StateDir: os.Getenv(childDirEnv), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		_ = out.Encode(childReply{Err: err.Error()})
		return 1
	}
	defer s.Close()
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0 // the parent closed stdin: done
		}
		var b childBatch
		if err := json.Unmarshal(line, &b); err != nil {
			_ = out.Encode(childReply{Err: err.Error()})
			return 1
		}
		if b.Barrier {
			_ = out.Encode(childReply{Ready: true})
			if _, err := in.ReadBytes('\n'); err != nil {
				return 1
			}
		}
		res := make([]json.RawMessage, len(b.Calls))
		var wg sync.WaitGroup
		for i, c := range b.Calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if c.TimeoutMS > 0 {
					ctx, cancel = context.WithTimeout(ctx, time.Duration(c.TimeoutMS)*time.Millisecond)
				}
				defer cancel()
				res[i] = s.Call(ctx, c.Tool, c.Args).JSON()
			}()
		}
		wg.Wait()
		_ = out.Encode(childReply{Results: res})
	}
}

// child is one running child process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startChildren starts n children on dir with extra environment entries,
// and stops them at cleanup.
func startChildren(t testing.TB, dir string, n int, env ...string) []*child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var kids []*child
	for range n {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", childDirEnv + "=" + dir}, env...)...)
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		k := &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
		kids = append(kids, k)
		t.Cleanup(func() {
			_ = k.stdin.Close()
			if err := k.cmd.Wait(); err != nil {
				t.Errorf("child %d: %v", k.cmd.Process.Pid, err)
			}
		})
	}
	return kids
}

func (k *child) send(t testing.TB, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to child: %v", err)
	}
}

func (k *child) recv(t testing.TB) childReply {
	t.Helper()
	line, err := k.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read from child: %v", err)
	}
	var r childReply
	if err := json.Unmarshal(line, &r); err != nil || r.Err != "" {
		t.Fatalf("child reply %q: %v %s", line, err, r.Err)
	}
	return r
}

// runAtOnce hands batches[i] to kids[i], releases them together once all
// are ready, and returns each child's envelopes.
func runAtOnce(t testing.TB, kids []*child, batches [][]childCall) [][]envOf {
	t.Helper()
	for i, k := range kids {
		k.send(t, childBatch{Calls: batches[i], Barrier: true})
	}
	for _, k := range kids {
		if r := k.recv(t); !r.Ready {
			t.Fatalf("child not ready: %+v", r)
		}
	}
	for _, k := range kids {
		if _, err := k.stdin.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	out := make([][]envOf, len(kids))
	for i, k := range kids {
		for _, raw := range k.recv(t).Results {
			var e envOf
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("envelope %s: %v", raw, err)
			}
			out[i] = append(out[i], e)
		}
	}
	return out
}

// runOne runs one call in one child.
func runOne(t testing.TB, k *child, c childCall) envOf {
	t.Helper()
	return runAtOnce(t, []*child{k}, [][]childCall{{c}})[0][0]
}

func cc(tool, format string, a ...any) childCall {
	return childCall{Tool: tool, Args: json.RawMessage(fmt.Sprintf(format, a...))}
}

// TestMultiProcess_ClaimOneWinner: 8 processes claim one task at once, 50
// rounds; each round exactly one wins and the others get a conflict naming
// it, and the task's stream holds exactly the create and one claim.
func TestMultiProcess_ClaimOneWinner(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	const procs, rounds = 8, 50
	kids := startChildren(t, dir, procs)
	for round := range rounds {
		task := createTask(t, s, fmt.Sprintf(`{"title":"contended %d"}`, round))
		batches := make([][]childCall, procs)
		for i := range batches {
			batches[i] = []childCall{cc("cos_task_claim", `{"task_id":%q,"assignee":"proc-%d"}`, task.ID, i)}
		}
		var res []envOf
		for _, r := range runAtOnce(t, kids, batches) {
			res = append(res, r...)
		}
		checkOneWinner(t, round, res)
		if evs := streamEvents(t, s, tasks.StreamOf(task.ID)); len(evs) != 2 || evs[1].Type != tasks.TypeClaimed {
			t.Fatalf("round %d: stream holds %d events, want create + one claim", round, len(evs))
		}
	}
}

// TestMultiProcess_ConcurrentCreates: 2 processes × 20 concurrent creates
// get 40 distinct ids, TASK-001 … TASK-040, none missing.
func TestMultiProcess_ConcurrentCreates(t *testing.T) {
	dir := t.TempDir()
	const procs, each = 2, 20
	kids := startChildren(t, dir, procs)
	batches := make([][]childCall, procs)
	for p := range batches {
		for i := range each {
			batches[p] = append(batches[p], cc("cos_task_create", `{"title":"p%d-%d"}`, p, i))
		}
	}
	ids := map[string]string{}
	for p, res := range runAtOnce(t, kids, batches) {
		for i, e := range res {
			task := taskOf(t, okEnv(t, e, fmt.Sprintf("create p%d-%d", p, i)))
			if prev, dup := ids[task.ID]; dup {
				t.Fatalf("%s allocated twice: %s and p%d-%d", task.ID, prev, p, i)
			}
			if want := fmt.Sprintf("p%d-%d", p, i); task.Title != want {
				t.Fatalf("%s answered title %q, want %q", task.ID, task.Title, want)
			}
			ids[task.ID] = task.Title
		}
	}
	for n := 1; n <= procs*each; n++ {
		if _, ok := ids[fmt.Sprintf("TASK-%03d", n)]; !ok {
			t.Fatalf("TASK-%03d missing; got %d ids", n, len(ids))
		}
	}
	s := openServer(t, dir)
	if err := s.Tailer().Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(s.board.All()) != procs*each {
		t.Fatalf("board holds %d tasks, want %d", len(s.board.All()), procs*each)
	}
}

// TestMultiProcess_ResendWithRequestID: a client whose answer was lost (it
// timed out waiting) resends the same request_id from another process and
// gets the original task; one record exists. The same id with changed
// arguments is E_REQUEST_REUSE.
func TestMultiProcess_ResendWithRequestID(t *testing.T) {
	dir := t.TempDir()
	kids := startChildren(t, dir, 2)
	s := openServer(t, dir)

	// The answer is lost: the first call committed, the client never saw it.
	lost := okEnv(t, runOne(t, kids[0], cc("cos_task_create", `{"title":"lost answer","request_id":"rq-lost"}`)), "first call")
	again := okEnv(t, runOne(t, kids[1], cc("cos_task_create", `{"title":"lost answer","request_id":"rq-lost"}`)), "resend")
	if !sameTask(taskOf(t, again), taskOf(t, lost)) || again.Data["seq"] != lost.Data["seq"] || again.Data["replayed"] != true {
		t.Fatalf("resend answered %v, the first call %v", again.Data, lost.Data)
	}
	if n := countCreated(t, s, "rq-lost"); n != 1 {
		t.Fatalf("%d records under rq-lost, want 1", n)
	}

	e := failEnv(t, runOne(t, kids[1], cc("cos_task_create", `{"title":"another intent","request_id":"rq-lost"}`)), "E_REQUEST_REUSE", "changed arguments")
	if e.Error.Category != "conflict" {
		t.Fatalf("reuse: %+v", e.Error)
	}
	if n := countCreated(t, s, "rq-lost"); n != 1 {
		t.Fatalf("reuse wrote: %d records under rq-lost", n)
	}
}

// countCreated counts the events appended under request id rid.
func countCreated(t testing.TB, s *testServer, rid string) int {
	t.Helper()
	n := 0
	for _, ev := range allEvents(t, s) {
		if ev.RequestID == rid {
			n++
		}
	}
	return n
}

// TestMultiProcess_ResendAfterServerTimeout: the call's own deadline
// expires (1 ms) before, during or after its append; whether or not it
// committed (E_TIMEOUT, COMMIT_UNKNOWN, ok, or ok with only the receipt and
// a warning when the deadline ran out after the commit), resends from
// another process converge on one record and one answer.
//
// Under -race it also guards boltlog.Append's ctx.Done branch: once the
// committer took the request, Append answers from a copy of the results
// and never touches the slice the committer writes.
func TestMultiProcess_ResendAfterServerTimeout(t *testing.T) {
	dir := t.TempDir()
	kids := startChildren(t, dir, 2)
	s := openServer(t, dir)
	timeout := cc("cos_task_create", `{"title":"timed out","request_id":"rq-timeout"}`)
	timeout.TimeoutMS = 1
	first := runOne(t, kids[0], timeout)
	if !first.OK && first.Error.Code != "E_TIMEOUT" && first.Error.Code != "COMMIT_UNKNOWN" {
		t.Fatalf("timed-out call: %s %s", first.Error.Code, first.Error.Message)
	}
	r1 := okEnv(t, runOne(t, kids[1], cc("cos_task_create", `{"title":"timed out","request_id":"rq-timeout"}`)), "resend after timeout")
	r2 := okEnv(t, runOne(t, kids[0], cc("cos_task_create", `{"title":"timed out","request_id":"rq-timeout"}`)), "second resend")
	if !sameTask(taskOf(t, r1), taskOf(t, r2)) || r2.Data["replayed"] != true || r1.Data["seq"] != r2.Data["seq"] {
		t.Fatalf("resends disagree: %v vs %v", r1.Data, r2.Data)
	}
	switch {
	case first.OK && first.Data["task"] != nil:
		if !sameTask(taskOf(t, first), taskOf(t, r1)) {
			t.Fatalf("the timed-out call committed %v, the resend answered %v", first.Data, r1.Data)
		}
	case first.OK:
		// The deadline ran out after the commit: the answer is the receipt
		// and a warning, never a failure that invites a second write.
		recs, _ := first.Data["receipts"].([]any)
		meta, _ := first.Data["meta"].(map[string]any)
		if len(recs) != 1 || meta["warnings"] == nil || recs[0].(map[string]any)["first_seq"] != r1.Data["seq"] {
			t.Fatalf("the timed-out call committed %v, the resend answered %v", first.Data, r1.Data)
		}
	}
	if n := countCreated(t, s, "rq-timeout"); n != 1 {
		t.Fatalf("%d records under rq-timeout, want 1", n)
	}
}

func allEvents(t testing.TB, s *testServer) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	if err := s.Log().Read(context.Background(), 1, func(ev eventlog.Event) error { out = append(out, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMultiProcess_EvidenceSessions: two processes record 50 outputs each,
// in parallel, into two sessions; each bundle (and its export) holds exactly
// its own 50.
func TestMultiProcess_EvidenceSessions(t *testing.T) {
	dir, agentDir := t.TempDir(), t.TempDir()
	const procs, each = 2, 50
	kids := startChildren(t, dir, procs, evidence.AgentDirEnv+"="+agentDir)
	batches := make([][]childCall, procs)
	for p := range batches {
		for i := range each {
			batches[p] = append(batches[p], cc("cos_supervise_record_output",
				`{"session_id":"sess-%d","role":"implementer","output":{"summary":"p%d record %02d","files":["f.go"]},"request_id":"p%d-%d"}`, p, p, i, p, i))
		}
	}
	for p, res := range runAtOnce(t, kids, batches) {
		for i, e := range res {
			okEnv(t, e, fmt.Sprintf("record p%d-%d", p, i))
		}
	}
	s := openServer(t, dir)
	for p := range procs {
		e := okEnv(t, call(t, s, "cos_evidence_bundle", fmt.Sprintf(`{"session_id":"sess-%d"}`, p)), "bundle")
		b := bundleOf(t, e.Data["bundle"])
		checkOwnRecords(t, fmt.Sprintf("bundle sess-%d", p), b, p, each)

		raw, err := os.ReadFile(evidence.ExportPath(agentDir, fmt.Sprintf("sess-%d", p)))
		if err != nil {
			t.Fatalf("export: %v", err)
		}
		exported := bundleOf(t, json.RawMessage(raw))
		checkOwnRecords(t, fmt.Sprintf("export sess-%d", p), exported, p, each)
		if exported.Revision != b.Revision || exported.Hash != b.Hash {
			t.Fatalf("export of sess-%d is at revision %d, the bundle at %d", p, exported.Revision, b.Revision)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, evidence.DefaultAgentSubdir, "*.json")); len(m) != 0 {
		t.Fatalf("COS_AGENT_DIR ignored: exports under the state folder %v", m)
	}
}

func bundleOf(t testing.TB, v any) evidence.Bundle {
	t.Helper()
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var b evidence.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("bundle: %v\n%s", err, raw)
	}
	return b
}

// checkOwnRecords asserts that b holds exactly each implementer outputs of
// process p: "p<p> record 00" … distinct, nothing of the other process.
func checkOwnRecords(t testing.TB, what string, b evidence.Bundle, p, each int) {
	t.Helper()
	got := b.Roles[evidence.RoleImplementer]
	if len(got) != each || b.Count() != each {
		t.Fatalf("%s: %d implementer entries (%d in all), want %d", what, len(got), b.Count(), each)
	}
	var sums []string
	for _, en := range got {
		var o struct {
			Summary string `json:"summary"`
		}
		if err := json.Unmarshal(en.Output, &o); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, o.Summary)
	}
	sort.Strings(sums)
	for i, s := range sums {
		if want := fmt.Sprintf("p%d record %02d", p, i); s != want {
			t.Fatalf("%s: entry %d is %q, want %q", what, i, s, want)
		}
	}
}

// TestMultiProcess_CursorAfterConcurrentChange: after another process's
// change to a listed task the next page is read at the walk's seq (the
// task as it was); a change to a task outside the filter leaves the live
// board serving it.
func TestMultiProcess_CursorAfterConcurrentChange(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	kids := startChildren(t, dir, 1)
	for i := range 6 {
		label := "listed"
		if i == 5 {
			label = "other"
		}
		createTask(t, s, fmt.Sprintf(`{"title":"t%d","labels":[%q]}`, i, label))
	}
	page := okEnv(t, call(t, s, "cos_task_board", `{"label":"listed","limit":2}`), "first page")
	cursor, _ := page.Data["next_cursor"].(string)
	if cursor == "" {
		t.Fatal("no next cursor")
	}
	okEnv(t, runOne(t, kids[0], cc("cos_task_update", `{"task_id":"TASK-006","patch":{"title":"outside the filter"}}`)), "unrelated change")
	next := okEnv(t, call(t, s, "cos_task_board", `{"label":"listed","limit":2,"cursor":"`+cursor+`"}`), "page after an unrelated change")
	if rows := next.Data["rows"].([]any); len(rows) != 2 || rows[0].(map[string]any)["task_id"] != "TASK-003" {
		t.Fatalf("second page = %v", rows)
	}
	if m := next.Data["meta"].(map[string]any); m["at_seq"] != nil || m["events_since_walk"] != float64(1) {
		t.Fatalf("second page after an unrelated change: meta %v", m)
	}
	okEnv(t, runOne(t, kids[0], cc("cos_task_update", `{"task_id":"TASK-003","patch":{"status":"blocked"}}`)), "change to a listed task")
	next = okEnv(t, call(t, s, "cos_task_board", `{"label":"listed","limit":2,"cursor":"`+cursor+`"}`), "page after a concurrent change")
	rows := next.Data["rows"].([]any)
	if len(rows) != 2 || rows[0].(map[string]any)["task_id"] != "TASK-003" || rows[0].(map[string]any)["status"] == "blocked" {
		t.Fatalf("second page after a change to a listed task = %v", rows)
	}
	if m := next.Data["meta"].(map[string]any); m["at_seq"] != page.Data["walk_log_seq"] || m["events_since_walk"] != float64(2) {
		t.Fatalf("second page after a change to a listed task: meta %v", m)
	}
}
