package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// stdioServer is a `cos serve` process spoken to over stdio.
type stdioServer struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	nextID int
	mu     sync.Mutex
	stderr strings.Builder
}

// startStdioServe starts `cos serve` over stdio (no NATS, no watcher, no
// index at start) with the global flags args and initializes an MCP
// session; the process is killed at cleanup.
func startStdioServe(t *testing.T, name string, args ...string) *stdioServer {
	t.Helper()
	return startStdioProcess(t, name, append(args, "serve", "--nats", "off", "--watch=false", "--index=false", "--stdio")...)
}

// startStdioProcess starts `cos args...` (a serve command line) and
// initializes an MCP session over its stdio; the process is killed at
// cleanup.
func startStdioProcess(t *testing.T, name string, args ...string) *stdioServer {
	t.Helper()
	return startStdioProcessIn(t, name, "", args...)
}

// startStdioProcessIn is startStdioProcess with the working directory dir
// ("" for the test's).
func startStdioProcessIn(t *testing.T, name, dir string, args ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{t: t, name: name, lines: make(chan string, 64), nextID: 10}
	s.cmd = cosProcess(t, args...)
	s.cmd.Dir = dir
	s.in, _ = s.cmd.StdinPipe()
	out, _ := s.cmd.StdoutPipe()
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, b: &s.stderr}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.in.Close(); _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.wait(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (s *stdioServer) errText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write to %s: %v (stderr %s)", s.name, err, s.errText())
	}
}

// wait returns the response with id.
func (s *stdioServer) wait(id int) string {
	s.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("%s ended; stderr:\n%s", s.name, s.errText())
			}
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal([]byte(l), &m) == nil && m.ID == id {
				return l
			}
		case <-deadline:
			s.t.Fatalf("no answer %d from %s; stderr:\n%s", id, s.name, s.errText())
		}
	}
}

// call runs a tool and returns its envelope.
func (s *stdioServer) call(tool, args string) testutil.Envelope {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	l := s.wait(id)
	var env testutil.Envelope
	if err := json.Unmarshal([]byte(l), &m); err != nil || len(m.Result.Content) == 0 || json.Unmarshal([]byte(m.Result.Content[0].Text), &env) != nil {
		s.t.Fatalf("%s %s: unexpected answer %s", s.name, tool, l)
	}
	return env
}

// TestTwoMachines_OneStream_RealProcesses: two `cos serve` processes with
// their own state folders on one JetStream stream (no bus between them).
// A task created through one is read through the other in the very next
// call, both ways, twenty times; both end with the same state hash at the
// same seq, and neither state folder holds an events.db.
func TestTwoMachines_OneStream_RealProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cos processes and a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{SyncAlways: true})
	store := js.URL() + "/COS"
	logInit(t, store)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startStdioServe(t, "A", "--state-dir", dirA, "--store", store)
	b := startStdioServe(t, "B", "--state-dir", dirB, "--store", store)
	for i := range 20 {
		w, r := a, b
		if i%2 == 1 {
			w, r = b, a
		}
		env := w.call("cos_task_create", fmt.Sprintf(`{"title":"round %d"}`, i))
		if !env.OK {
			t.Fatalf("create through %s: %+v", w.name, env.Error)
		}
		task, _ := env.Data["task"].(map[string]any)
		id, _ := task["task_id"].(string)
		got := r.call("cos_task_get", fmt.Sprintf(`{"task_id":%q}`, id))
		if !got.OK || !strings.Contains(fmt.Sprint(got.Data["task"]), fmt.Sprintf("round %d", i)) {
			t.Fatalf("round %d: %s created %s, %s read %+v", i, w.name, id, r.name, got)
		}
	}
	ha, hb := a.call("cos_health", `{}`), b.call("cos_health", `{}`)
	if !ha.OK || !hb.OK {
		t.Fatalf("health: %+v %+v", ha.Error, hb.Error)
	}
	if ha.Data["state_hash"] == nil || ha.Data["state_hash"] != hb.Data["state_hash"] || fmt.Sprint(ha.Data["log"]) != fmt.Sprint(hb.Data["log"]) {
		t.Fatalf("the two machines differ:\nA state %v log %v\nB state %v log %v", ha.Data["state_hash"], ha.Data["log"], hb.Data["state_hash"], hb.Data["log"])
	}
	for _, d := range []string{dirA, dirB} {
		if m, _ := filepath.Glob(filepath.Join(d, "events.db*")); len(m) != 0 {
			t.Errorf("%s holds %v with a NATS store", d, m)
		}
	}
}

// TestMigrate_BoltToNATSToFile_RealProcesses: a state folder's bbolt log is
// migrated by a cos process into an empty stream, and from the stream into
// a new file: every copy verifies, has the same events (seqs, ids, times,
// hashes) and gives the same state hash; a second migration into the now
// non-empty stream is refused.
func TestMigrate_BoltToNATSToFile_RealProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cos processes and a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/MIGRATED"
	src := t.TempDir()
	fiveTasks(t, src)
	proc := func(args ...string) (string, string, error) {
		t.Helper()
		cmd := cosProcess(t, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if out, errs, err := proc("--state-dir", src, "migrate", "--to", store); err != nil || !strings.Contains(out, "migrated 5 events") || !strings.Contains(errs, "copied 5 of 5") {
		t.Fatalf("migrate to %s: %v\n%s\n%s", store, err, out, errs)
	}
	file := filepath.Join(t.TempDir(), "back.db")
	viaNATS := t.TempDir()
	if out, errs, err := proc("--state-dir", viaNATS, "--store", store, "migrate", "--to", file); err != nil || !strings.Contains(out, "migrated 5 events") {
		t.Fatalf("migrate to %s: %v\n%s\n%s", file, err, out, errs)
	}
	logOf := func(dir, store string) string {
		t.Helper()
		args := []string{"--state-dir", dir}
		if store != "" {
			args = append(args, "--store", store)
		}
		out, errs, err := proc(append(args, "log", "--json")...)
		if err != nil || strings.Count(out, "\n") != 5 {
			t.Fatalf("cos log of %s: %v\n%s\n%s", store, err, out, errs)
		}
		if out2, _, err := proc(append(args, "verify")...); err != nil || strings.TrimSpace(out2) != "ok 5 events" {
			t.Fatalf("cos verify of %s: %v %s", store, err, out2)
		}
		return out
	}
	want := logOf(src, "")
	if got := logOf(viaNATS, store); got != want {
		t.Fatalf("the stream's events differ from the file's:\n%s\nvs\n%s", got, want)
	}
	if got := logOf(t.TempDir(), file); got != want {
		t.Fatalf("the file migrated back differs:\n%s\nvs\n%s", got, want)
	}
	hashOf := func(dir, store string) any {
		t.Helper()
		args := []string{"--state-dir", dir}
		if store != "" {
			args = append(args, "--store", store)
		}
		out, errs, err := proc(append(args, "call", "--nats", "off", "cos_health", "{}")...)
		var env testutil.Envelope
		if err != nil || json.Unmarshal([]byte(out), &env) != nil || env.Data["state_hash"] == nil {
			t.Fatalf("cos_health of %s: %v\n%s\n%s", store, err, out, errs)
		}
		return env.Data["state_hash"]
	}
	h := hashOf(src, "")
	if got := hashOf(viaNATS, store); got != h {
		t.Errorf("state hash on the stream %v, on the file %v", got, h)
	}
	if got := hashOf(t.TempDir(), file); got != h {
		t.Errorf("state hash on the file migrated back %v, on the original %v", got, h)
	}
	if out, errs, err := proc("--state-dir", src, "migrate", "--to", store); err == nil || !strings.Contains(errs, "not empty") || !strings.Contains(errs, "nothing copied") {
		t.Fatalf("a second migration into the stream: %v\n%s\n%s", err, out, errs)
	}
}

// TestWatch_NATSStore_StreamDeliversOtherMachinesEvents: `cos watch` on a
// NATS store prints the events another machine commits as they commit,
// from the stream itself — with no bus and a poll that never comes (--nats
// off --poll 1h) — after replaying the log from --from.
func TestWatch_NATSStore_StreamDeliversOtherMachinesEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cos processes and a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	logInit(t, store)
	other := t.TempDir()
	appendOne := func(n int) {
		t.Helper()
		cmd := cosProcess(t, "--state-dir", other, "--store", store, "log", "append", "--stream", "s", "--type", "a.b", "--data", fmt.Sprintf(`{"n":%d}`, n))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("append %d: %v %s", n, err, out)
		}
	}
	appendOne(1)
	cmd := cosProcess(t, "--state-dir", t.TempDir(), "--store", store, "watch", "--from", "1", "--nats", "off", "--poll", "1h", "--json")
	out, _ := cmd.StdoutPipe()
	var stderr lockedWriter
	stderr.mu, stderr.b = &sync.Mutex{}, &strings.Builder{}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	errText := func() string {
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		return stderr.b.String()
	}
	next := func(want int) {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok || !strings.Contains(l, fmt.Sprintf(`"data":{"n":%d}`, want)) {
				t.Fatalf("watch printed %q (open %v), want the event n=%d; stderr %s", l, ok, want, errText())
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("watch printed nothing for the event n=%d within 15 s; stderr %s", want, errText())
		}
	}
	next(1) // the replay
	appendOne(2)
	next(2) // live, from another process and state folder
	appendOne(3)
	next(3)
}
