package tools

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The tests in this file run real `cos serve` processes (the cmd/cos binary
// TestMain builds) on one state folder, each driven by mcp-go's MCP client over
// stdio, and check the consistency guarantees of docs/architecture.md: every
// process ends with the same state hash and every acknowledged write is in
// the log exactly once.

// serveProc is one `cos serve` OS process with its MCP client.
type serveProc struct {
	name   string
	cmd    *exec.Cmd
	cl     *client.Client
	stderr *testutil.SyncBuffer
	// killed is set just before the test kills the process.
	killed atomic.Bool
}

// startServe starts `cos serve --nats nats` on dir and initialises an MCP
// session with it. The process is stopped (stdin closed) at cleanup.
func startServe(t *testing.T, bin, dir, nats, name string) *serveProc {
	t.Helper()
	p := &serveProc{name: name, stderr: &testutil.SyncBuffer{}}
	tr := transport.NewStdioWithOptions(bin, os.Environ(), []string{"--state-dir", dir, "serve", "--nats", nats, "--index=false"},
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			p.cmd = exec.Command(command, args...)
			p.cmd.Env = env
			return p.cmd, nil
		}),
		transport.WithCommandStderrWriter(p.stderr))
	p.cl = client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.cl.Start(ctx); err != nil {
		t.Fatalf("%s: start: %v", name, err)
	}
	t.Cleanup(func() {
		_ = p.cl.Close()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.name, p.stderr.String())
		}
	})
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "convergence-test", Version: "1"}
	if _, err := p.cl.Initialize(ctx, init); err != nil {
		t.Fatalf("%s: initialize: %v\n%s", name, err, p.stderr.String())
	}
	return p
}

// call runs a tool over MCP and decodes the envelope; an error is a
// transport failure (the process is gone), never a domain failure.
func (p *serveProc) call(ctx context.Context, tool string, args map[string]any) (envOf, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := p.cl.CallTool(ctx, req)
	if err != nil {
		return envOf{}, err
	}
	if len(res.Content) == 0 {
		return envOf{}, errors.New("empty tool result")
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return envOf{}, fmt.Errorf("content is %T, want text", res.Content[0])
	}
	var e envOf
	if err := json.Unmarshal([]byte(text.Text), &e); err != nil {
		return envOf{}, fmt.Errorf("envelope: %w", err)
	}
	if e.OK == res.IsError {
		return envOf{}, fmt.Errorf("isError %v disagrees with ok %v", res.IsError, e.OK)
	}
	return e, nil
}

// mustCall is call for a process that must answer with ok.
func (p *serveProc) mustCall(t testing.TB, tool string, args map[string]any) envOf {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := p.call(ctx, tool, args)
	if err != nil {
		t.Fatalf("%s %s: %v", p.name, tool, err)
	}
	if !e.OK {
		t.Fatalf("%s %s: %s %s", p.name, tool, e.Error.Code, e.Error.Message)
	}
	return e
}

// acks are the writes the processes acknowledged, by the seq each answer
// named.
type acks struct {
	mu sync.Mutex
	// seqs maps every acknowledged event seq to what acknowledged it.
	seqs map[uint64]string
	// upserts maps an upsert's request id to its node uid.
	upserts map[string]string
	// titles maps a created task's title to its id.
	titles map[string]string
	// claimed maps a task id to the assignee whose claim was acknowledged.
	claimed map[string][]string
	errs    []string
}

func newAcks() *acks {
	return &acks{seqs: map[uint64]string{}, upserts: map[string]string{}, titles: map[string]string{}, claimed: map[string][]string{}}
}

func (a *acks) seq(what string, seq uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if prev, dup := a.seqs[seq]; dup {
		a.errs = append(a.errs, fmt.Sprintf("seq %d acknowledged twice: %s and %s", seq, prev, what))
	}
	a.seqs[seq] = what
}

func (a *acks) fail(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, fmt.Sprintf(format, args...))
}

// seqOf reads a JSON number as a seq.
func seqOf(v any) uint64 { f, _ := v.(float64); return uint64(f) }

// workload is what one process's two clients write: graph upserts and
// evidence records on one, task creates and claims (its own tasks and a
// task every process contends for) on the other.
type workload struct {
	// phase tells the names of one run of the workload from another's.
	phase     string
	rounds    int
	contested string // a task id every process tries to claim
}

// drive runs w against p until done or until p stops answering (it was
// killed); a domain failure other than losing the contested claim is an
// error. progress is told after each acknowledged write.
func (w workload) drive(ctx context.Context, p *serveProc, a *acks, progress func()) {
	var wg sync.WaitGroup
	gone := func(err error) bool {
		if p.killed.Load() {
			return true
		}
		a.fail("%s: transport: %v", p.name, err)
		return true
	}
	wg.Go(func() {
		for j := range w.rounds {
			rid := fmt.Sprintf("%s%s-g%d", w.phase, p.name, j)
			uid := fmt.Sprintf("code:function:%s.go::%sf%d", p.name, w.phase, j)
			e, err := p.call(ctx, "cos_graph_upsert", map[string]any{"request_id": rid,
				"nodes": []any{map[string]any{"uid": uid, "kind": "function", "label": fmt.Sprintf("%sf%d", w.phase, j), "path": p.name + ".go", "line": j + 1}}})
			if err != nil && gone(err) {
				return
			}
			if !e.OK {
				a.fail("%s upsert: %s %s", p.name, e.Error.Code, e.Error.Message)
				continue
			}
			rc, _ := e.Data["receipt"].(map[string]any)
			a.seq("upsert "+rid, seqOf(rc["first_seq"]))
			a.mu.Lock()
			a.upserts[rid] = uid
			a.mu.Unlock()
			progress()

			e, err = p.call(ctx, "cos_supervise_record_output", map[string]any{"session_id": "sess-" + p.name, "role": "planner",
				"output": map[string]any{"summary": fmt.Sprintf("%s step %d", p.name, j), "steps": []any{"a", "b"}}})
			if err != nil && gone(err) {
				return
			}
			if !e.OK {
				a.fail("%s evidence: %s %s", p.name, e.Error.Code, e.Error.Message)
				continue
			}
			a.seq("evidence "+p.name, seqOf(e.Data["seq"]))
			progress()
		}
	})
	wg.Go(func() {
		for j := range w.rounds {
			title := fmt.Sprintf("%s%s-t%d", w.phase, p.name, j)
			e, err := p.call(ctx, "cos_task_create", map[string]any{"title": title})
			if err != nil && gone(err) {
				return
			}
			if !e.OK {
				a.fail("%s task create: %s %s", p.name, e.Error.Code, e.Error.Message)
				continue
			}
			task, _ := e.Data["task"].(map[string]any)
			id, _ := task["task_id"].(string)
			a.seq("create "+title, seqOf(e.Data["seq"]))
			a.mu.Lock()
			a.titles[title] = id
			a.mu.Unlock()
			progress()
			for _, target := range []string{id, w.contested} {
				if target == "" {
					continue
				}
				e, err = p.call(ctx, "cos_task_claim", map[string]any{"task_id": target, "assignee": "agent-" + p.name})
				if err != nil && gone(err) {
					return
				}
				switch {
				case e.OK:
					a.seq("claim "+target+" by "+p.name, seqOf(e.Data["seq"]))
					a.mu.Lock()
					a.claimed[target] = append(a.claimed[target], "agent-"+p.name)
					a.mu.Unlock()
					progress()
				case target == w.contested && e.Error.Category == "conflict":
				default:
					a.fail("%s claim %s: %s %s", p.name, target, e.Error.Code, e.Error.Message)
				}
			}
			w.contested = "" // one try per process; later rounds only claim their own
		}
	})
	wg.Wait()
}

// health is the part of cos_health the tests read.
type health struct {
	StateHash string
	Seq       uint64
	Head      uint64
	Nodes     uint64
	Hosting   bool
	Connected bool
	// Positions are the log positions of the processes on the bus, as
	// their last heartbeats said.
	Positions []uint64
}

func (p *serveProc) health(t testing.TB) health {
	t.Helper()
	e := p.mustCall(t, "cos_health", map[string]any{})
	get := func(k string) map[string]any { m, _ := e.Data[k].(map[string]any); return m }
	b := get("bus")
	procs, _ := b["processes"].([]any)
	hash, _ := e.Data["state_hash"].(string)
	hosting, _ := b["hosting"].(bool)
	connected, _ := b["connected"].(bool)
	h := health{StateHash: hash, Seq: seqOf(get("projections")["seq"]), Head: seqOf(get("log")["head_seq"]),
		Nodes: seqOf(get("graph")["nodes"]), Hosting: hosting, Connected: connected}
	for _, pr := range procs {
		m, _ := pr.(map[string]any)
		h.Positions = append(h.Positions, seqOf(m["position"]))
	}
	return h
}

// checkConverged checks that every live process reports the same state
// hash at the log's head, and that every acknowledged write is in the log
// exactly once. With killed, a process died mid-write: the log may hold
// writes it committed but never acknowledged.
func checkConverged(t *testing.T, dir string, procs []*serveProc, a *acks, killed bool) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.errs {
		t.Error(e)
	}
	l, err := state.OpenLog(context.Background(), dir, state.LogOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	head, err := l.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var first health
	for i, p := range procs {
		h := p.health(t)
		if h.Seq != head.Seq || h.Head != head.Seq {
			t.Errorf("%s: projections at %d, its log head %d; the log's head is %d", p.name, h.Seq, h.Head, head.Seq)
		}
		if len(h.StateHash) != 64 {
			t.Fatalf("%s: state_hash %q", p.name, h.StateHash)
		}
		if i == 0 {
			first = h
			continue
		}
		if h.StateHash != first.StateHash {
			t.Errorf("%s state hash %s, %s has %s", p.name, h.StateHash, procs[0].name, first.StateHash)
		}
	}
	if got, want := first.Nodes, uint64(len(a.upserts)); got < want || (!killed && got != want) {
		t.Errorf("graph has %d nodes, %d upserts were acknowledged", got, want)
	}

	byRID := map[string]int{}
	titles := map[string]int{}
	found := map[uint64]bool{}
	err = l.Read(context.Background(), 1, func(ev eventlog.Event) error {
		if ev.RequestID != "" {
			byRID[ev.RequestID]++
		}
		if _, ok := a.seqs[ev.Seq]; ok {
			found[ev.Seq] = true
		}
		if ev.Type == "task.created" {
			var d struct {
				Title string `json:"title"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			titles[d.Title]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for seq, what := range a.seqs {
		if !found[seq] {
			t.Errorf("acknowledged %s (seq %d) is not in the log", what, seq)
		}
	}
	for rid := range a.upserts {
		if byRID[rid] != 1 {
			t.Errorf("upsert %s is in the log %d times, want once", rid, byRID[rid])
		}
	}
	for title := range a.titles {
		if titles[title] != 1 {
			t.Errorf("task %q created %d times, want once", title, titles[title])
		}
	}
	for id, who := range a.claimed {
		if len(who) != 1 {
			t.Errorf("%s claimed by %v, want exactly one holder", id, who)
		}
	}
}

// runWorkload drives every process at once and waits for all of them.
func runWorkload(procs []*serveProc, w workload, a *acks, progress func()) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { w.drive(context.Background(), p, a, progress) })
	}
	wg.Wait()
}

// startFour starts four cos serve processes on dir, one after the other
// (the first hosts the embedded NATS server in auto mode).
func startFour(t *testing.T, bin, dir, nats string) []*serveProc {
	var procs []*serveProc
	for i := range 4 {
		procs = append(procs, startServe(t, bin, dir, nats, fmt.Sprintf("p%d", i)))
	}
	return procs
}

// createContested creates the task every process will try to claim.
func createContested(t *testing.T, p *serveProc, a *acks) string {
	e := p.mustCall(t, "cos_task_create", map[string]any{"title": "contested"})
	task, _ := e.Data["task"].(map[string]any)
	id, _ := task["task_id"].(string)
	a.seq("create contested", seqOf(e.Data["seq"]))
	a.titles["contested"] = id
	return id
}

// waitUntil polls cond (each poll is a tool call) until it holds or the
// deadline passes: presence and takeover have no event to await from
// outside the processes.
func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestServe_FourProcesses(t *testing.T) {
	bin := cosBin // built once by TestMain (mcp_test.go)

	for _, nats := range []string{bus.ModeAuto, bus.ModeOff} {
		t.Run("nats_"+nats+"_converge", func(t *testing.T) {
			dir := t.TempDir()
			procs := startFour(t, bin, dir, nats)
			a := newAcks()
			w := workload{rounds: 8, contested: createContested(t, procs[0], a)}
			runWorkload(procs, w, a, func() {})
			if nats == bus.ModeAuto {
				// Presence, and the bus alone brings every process to the
				// head: p0 is the only one read (a read would catch up
				// through the log), the others' positions are their
				// heartbeats'.
				head := procs[0].health(t).Head
				waitUntil(t, "p0 lists 4 processes at the head", 15*time.Second, func() bool {
					h := procs[0].health(t)
					if len(h.Positions) != 4 {
						return false
					}
					for _, pos := range h.Positions {
						if pos != head {
							return false
						}
					}
					return true
				})
			}
			// A resend through another process is a replay, not a second write.
			e := procs[1].mustCall(t, "cos_graph_upsert", map[string]any{"request_id": "p0-g0",
				"nodes": []any{map[string]any{"uid": "code:function:p0.go::f0", "kind": "function", "label": "f0", "path": "p0.go", "line": 1}}})
			if rc, _ := e.Data["receipt"].(map[string]any); rc["replayed"] != true {
				t.Errorf("resend of p0-g0 through p1: receipt %v, want replayed", rc)
			}
			checkConverged(t, dir, procs, a, false)
		})
	}

	t.Run("host_killed", func(t *testing.T) {
		if testing.Short() {
			t.Skip("kills the NATS host mid-run; skipped with -short")
		}
		dir := t.TempDir()
		procs := startFour(t, bin, dir, bus.ModeAuto)
		host := hostOf(t, dir, procs)
		watch := startWatchProc(t, bin, dir)
		a := newAcks()
		w := workload{rounds: 12, contested: createContested(t, procs[0], a)}

		var (
			once sync.Once
			n    int
			mu   sync.Mutex
		)
		kill := func() {
			mu.Lock()
			n++
			due := n == 20
			mu.Unlock()
			if due {
				once.Do(func() {
					host.killed.Store(true)
					if err := host.cmd.Process.Signal(syscall.SIGKILL); err != nil {
						a.fail("kill host: %v", err)
					}
				})
			}
		}
		runWorkload(procs, w, a, kill)
		if !host.killed.Load() {
			t.Fatal("the workload ended before the host was killed")
		}
		var survivors []*serveProc
		for _, p := range procs {
			if p != host {
				survivors = append(survivors, p)
			}
		}
		// A SIGKILLed process blocked in fsync on a loaded disk keeps its
		// sockets and its election lock until the call returns (seen: a
		// minute): the takeover deadline starts once it is really gone.
		waitGone(t, host.cmd.Process.Pid, 5*time.Minute)
		// One process takes over — a survivor, or the `cos watch` process,
		// which is in the election too — and every survivor is connected
		// again.
		waitUntil(t, "a survivor or the watcher hosts and all are connected", 60*time.Second, func() bool {
			hosts, connected := 0, 0
			for _, p := range survivors {
				h := p.health(t)
				if h.Hosting {
					hosts++
				}
				if h.Connected {
					connected++
				}
			}
			if hosts == 0 && recordPID(dir) == watch.pid {
				hosts = 1
			}
			return hosts == 1 && connected == len(survivors)
		})
		// Writes after the takeover reach the watcher too.
		runWorkload(survivors, workload{phase: "after-", rounds: 2}, a, func() {})
		checkConverged(t, dir, survivors, a, true)

		head := survivors[0].health(t).Head
		seqs := watch.waitSeq(t, head, 60*time.Second)
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Fatalf("cos watch printed seq %d at line %d, want %d (a gap or a duplicate): %v", s, i+1, i+1, seqs)
			}
		}
	})
}

// hostOf returns the process that hosts the embedded NATS server, by the
// pid recorded in nats.json.
func hostOf(t *testing.T, dir string, procs []*serveProc) *serveProc {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "nats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec bus.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.cmd.Process.Pid == rec.PID {
			return p
		}
	}
	t.Fatalf("nats.json names pid %d, none of the serve processes", rec.PID)
	return nil
}

// watchProc is a `cos watch --from 1 --json` OS process.
type watchProc struct {
	mu      sync.Mutex
	seqs    []uint64
	changed chan struct{}
	stderr  *testutil.SyncBuffer
	pid     int
}

func startWatchProc(t *testing.T, bin, dir string) *watchProc {
	t.Helper()
	w := &watchProc{changed: make(chan struct{}), stderr: &testutil.SyncBuffer{}}
	cmd := exec.Command(bin, "--state-dir", dir, "watch", "--from", "1", "--json")
	errR, errW := io.Pipe()
	cmd.Stderr = io.MultiWriter(w.stderr, errW)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.pid = cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev struct {
				Seq uint64 `json:"seq"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				continue
			}
			w.mu.Lock()
			w.seqs = append(w.seqs, ev.Seq)
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("cos watch did not stop cleanly on SIGINT: %v", err)
		}
		errW.Close()
		<-done
		if t.Failed() {
			t.Logf("cos watch stderr:\n%s", w.stderr.String())
		}
	})
	// Wait for the "following" line: the watcher subscribed.
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "cos watch: following") {
			go func() { _, _ = io.Copy(io.Discard, errR) }()
			return w
		}
	}
	t.Fatalf("cos watch ended before following: %s", w.stderr.String())
	return nil
}

// waitSeq waits until the watcher printed seq and returns what it printed.
func (w *watchProc) waitSeq(t *testing.T, seq uint64, timeout time.Duration) []uint64 {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		seqs, ch := append([]uint64(nil), w.seqs...), w.changed
		w.mu.Unlock()
		if len(seqs) > 0 && seqs[len(seqs)-1] >= seq {
			return seqs
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("cos watch did not print seq %d in %v; printed %d events", seq, timeout, len(seqs))
		}
	}
}

func TestHealth_StateHashMatchesTailer(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, `[{"uid":"code:function:a.go::run","kind":"function","label":"run","path":"a.go","line":1}]`)
	e := call(t, s, "cos_health", `{}`)
	want, _ := s.Tailer().StateHash()
	if got := e.Data["state_hash"]; got != hex.EncodeToString(want[:]) {
		t.Fatalf("cos_health state_hash %v, tailer %x", got, want)
	}
}

// waitGone waits until process pid has exited (a zombie counts: its
// sockets and locks are released), reading /proc; where there is no /proc
// it returns at once.
func waitGone(t *testing.T, pid int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // gone and reaped, or no /proc
		}
		// The state is the field after the parenthesised command name.
		if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) && data[i+2] == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running %v after SIGKILL", pid, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// recordPID returns the pid nats.json names as the host, 0 when unreadable.
func recordPID(dir string) int {
	raw, err := os.ReadFile(filepath.Join(dir, "nats.json"))
	if err != nil {
		return 0
	}
	var rec bus.Record
	if json.Unmarshal(raw, &rec) != nil {
		return 0
	}
	return rec.PID
}
