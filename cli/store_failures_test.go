package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// TestStore_PortOutOfRangeIsAUsageError: a --store whose port is not
// 1–65535 is refused as a usage error naming the port, before anything is
// dialled or written (it used to fail later as E_STORAGE "invalid port").
func TestStore_PortOutOfRangeIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	for _, store := range []string{"nats://127.0.0.1:99999", "nats://127.0.0.1:0/COS", "nats://127.0.0.1:4222,nats://127.0.0.1:70000/COS"} {
		code, _, stderr := run(t, dir, "--store", store, "log", "head")
		if code != ExitUsage || !strings.Contains(stderr, "port") || strings.Contains(stderr, "E_STORAGE") {
			t.Errorf("--store %s: exit %d, stderr %q; want a usage error naming the port", store, code, stderr)
		}
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return port
}

// TestStore_UnreachableStoreIsUnavailable: a NATS store no server
// answers is E_UNAVAILABLE (retryable, "retry" in the message), not
// E_STORAGE (which says the storage failed and is not retryable), both for
// a store never reached and for one whose only server stopped.
func TestStore_UnreachableStoreIsUnavailable(t *testing.T) {
	dir := t.TempDir()
	store := fmt.Sprintf("nats://127.0.0.1:%d/COS", closedPort(t))
	start := time.Now()
	code, _, stderr := run(t, dir, "--store", store, "call", "cos_task_board", "{}")
	if code != ExitError || !strings.Contains(stderr, "E_UNAVAILABLE") || !strings.Contains(stderr, "retry") {
		t.Errorf("no server: exit %d, stderr %q; want E_UNAVAILABLE with retry advice", code, stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("no server: took %s", d)
	}

	if testing.Short() {
		return
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store = js.URL() + "/COS"
	logInit(t, store)
	if code, _, stderr := run(t, dir, "--store", store, "call", "cos_task_create", `{"title":"a"}`); code != 0 {
		t.Fatalf("create: %d %s", code, stderr)
	}
	js.StopNode(0)
	code, _, stderr = run(t, t.TempDir(), "--store", store, "call", "cos_task_board", "{}")
	if code != ExitError || !strings.Contains(stderr, "E_UNAVAILABLE") {
		t.Errorf("stopped server: exit %d, stderr %q; want E_UNAVAILABLE", code, stderr)
	}
}

// TestStore_ServerGoesAwayMidSession: a `cos serve` on a one-node
// stream whose server stops answers a write with a retryable error
// (COMMIT_UNKNOWN or E_UNAVAILABLE) within its time limit, not a hang;
// once the server is back, the same request id writes exactly once.
func TestStore_ServerGoesAwayMidSession(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cos processes and a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{SyncAlways: true})
	store := js.URL() + "/COS"
	logInit(t, store)
	a := startStdioServe(t, "A", "--state-dir", t.TempDir(), "--store", store)
	if env := a.call("cos_task_create", `{"title":"before"}`); !env.OK {
		t.Fatalf("create: %+v", env.Error)
	}
	js.StopNode(0)
	start := time.Now()
	env := a.call("cos_task_create", `{"title":"while down","request_id":"trial-down-1"}`)
	took := time.Since(start)
	if env.OK {
		t.Fatalf("a write with the server down answered ok")
	}
	// Both codes' categories (transient, unavailable) are retryable.
	if b, _ := json.Marshal(env.Error); !(env.Error.Code == "COMMIT_UNKNOWN" && env.Error.Category == "transient") && !(env.Error.Code == "E_UNAVAILABLE" && env.Error.Category == "unavailable") {
		t.Errorf("server down: %s; want COMMIT_UNKNOWN or E_UNAVAILABLE, retryable", b)
	}
	if took > 45*time.Second {
		t.Errorf("server down: the call took %s", took)
	}
	js.RestartNode(0)
	var ok bool
	for range 20 {
		env = a.call("cos_task_create", `{"title":"while down","request_id":"trial-down-1"}`)
		if env.OK {
			ok = true
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !ok {
		t.Fatalf("resend after restart: %+v", env.Error)
	}
	code, out, stderr := run(t, t.TempDir(), "--store", store, "log", "--json", "--type", "task.created")
	if code != 0 {
		t.Fatalf("log: %s", stderr)
	}
	if n := strings.Count(out, `"request_id":"trial-down-1"`); n != 1 {
		t.Fatalf("request trial-down-1 is in the log %d times:\n%s", n, out)
	}
}

// TestStore_ForeignMessageHasAWayBack: a message published on the
// stream's subjects by something other than cos breaks the chain and stops
// writes, and a stream refuses deletes. `cos verify` points at the way
// back that works with a NATS store, and it works: --salvage writes the
// events before the bad message to a new file (it refused a NATS store),
// which migrates into a new stream that verifies and takes writes.
func TestStore_ForeignMessageHasAWayBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	logInit(t, store)
	dir := t.TempDir()
	for i := range 3 {
		if code, _, stderr := run(t, dir, "--store", store, "call", "cos_task_create", fmt.Sprintf(`{"title":"t%d"}`, i)); code != 0 {
			t.Fatalf("create: %s", stderr)
		}
	}
	nc := js.Connect(0)
	if err := nc.Publish("cos.cos.log.x", []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor := time.Now().Add(10 * time.Second)
	var code int
	var stderr string
	for time.Now().Before(waitFor) {
		if code, _, stderr = run(t, dir, "--store", store, "verify"); code != 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != ExitError || !strings.Contains(stderr, "E_INTEGRITY") || !strings.Contains(stderr, "migrate --to") || strings.Contains(stderr, "cos restore") {
		t.Fatalf("verify: exit %d, %q; want E_INTEGRITY pointing at --salvage and migrate, not restore", code, stderr)
	}
	dest := filepath.Join(t.TempDir(), "salvaged.db")
	code, out, stderr := run(t, dir, "--store", store, "verify", "--salvage", dest)
	if code != 0 || !strings.Contains(out, "salvaged 3 of 4 events") || !strings.Contains(out, "lost 1: seq 4") || !strings.Contains(out, "migrate --to") {
		t.Fatalf("verify --salvage: exit %d, out %q, stderr %q", code, out, stderr)
	}
	newStore := js.URL() + "/COS2"
	if code, _, stderr := run(t, dir, "--store", dest, "migrate", "--to", newStore); code != 0 {
		t.Fatalf("migrate the salvaged file: %s", stderr)
	}
	dir2 := t.TempDir()
	if code, out, stderr := run(t, dir2, "--store", newStore, "call", "cos_task_create", `{"title":"after"}`); code != 0 || !strings.Contains(out, "TASK-004") {
		t.Fatalf("create on the new stream: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := run(t, dir2, "--store", newStore, "verify"); code != 0 || strings.TrimSpace(out) != "ok 4 events" {
		t.Fatalf("verify the new stream: %d %q %s", code, out, stderr)
	}
}

// TestStore_FolderIsAUsageError: --store naming an existing folder
// (no trailing slash) is refused as a usage error saying it names a
// folder, like a path ending in "/", not E_STORAGE "is a directory".
func TestStore_FolderIsAUsageError(t *testing.T) {
	dir, folder := t.TempDir(), t.TempDir()
	code, _, stderr := run(t, dir, "--store", folder, "log", "head")
	if code != ExitUsage || !strings.Contains(stderr, "names a folder") {
		t.Fatalf("--store %s: exit %d, stderr %q; want a usage error saying it names a folder", folder, code, stderr)
	}
}

// TestStore_MissingFolderIsAUsageError: --store naming a file in a
// folder that does not exist (a typo) is a usage error naming the folder,
// and creates nothing; before, the folders were created and an empty board
// was served.
func TestStore_MissingFolderIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no", "such")
	code, _, stderr := run(t, dir, "--store", filepath.Join(missing, "x.db"), "call", "cos_task_board", "{}")
	if code != ExitUsage || !strings.Contains(stderr, "does not exist") || !strings.Contains(stderr, missing) {
		t.Fatalf("--store in a missing folder: exit %d, stderr %q; want a usage error naming %s", code, stderr, missing)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Fatalf("a refused --store created %s (%v)", filepath.Dir(missing), err)
	}
}

// TestStore_ToolIntegrityAdviceFitsAStream: a tool's write refused
// because a foreign message broke the stream's chain says the way back
// that works with a NATS store (salvage, then migrate into a new stream),
// not `cos restore`, which refuses a stream.
func TestStore_ToolIntegrityAdviceFitsAStream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	logInit(t, store)
	dir := t.TempDir()
	if code, _, stderr := run(t, dir, "--store", store, "call", "cos_task_create", `{"title":"a"}`); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	nc := js.Connect(0)
	if err := nc.Publish("cos.cos.log.x", []byte(`{"seq":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, t.TempDir()} { // a folder that saw the good event, and a new one
		var env testutil.Envelope
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, out, _ := run(t, d, "--store", store, "call", "cos_task_create", `{"title":"b"}`)
			if err := json.Unmarshal([]byte(out), &env); err != nil {
				t.Fatalf("create: %q: %v", out, err)
			}
			if !env.OK || time.Now().After(deadline) {
				break
			}
		}
		if env.OK || env.Error.Code != "E_INTEGRITY" || !strings.Contains(env.Error.Message, "migrate --to") || strings.Contains(env.Error.Message, "cos restore") {
			t.Errorf("create after a foreign message: %+v; want E_INTEGRITY advising salvage and migrate, not restore", env.Error)
		}
	}
}

// growingSource is the stderr of a migrate that commits one more task to
// the source store the first time progress is printed: an agent writing
// during the copy.
type growingSource struct {
	t     *testing.T
	dir   string
	store string
	buf   strings.Builder
	done  bool
}

func (g *growingSource) Write(p []byte) (int, error) {
	if !g.done && strings.Contains(string(p), "copied") {
		g.done = true
		if code, _, stderr := run(g.t, g.dir, "--store", g.store, "call", "cos_task_create", `{"title":"during the copy"}`); code != 0 {
			g.t.Errorf("create during the copy: %s", stderr)
		}
	}
	return g.buf.Write(p)
}

// TestMigrate_SourceGrowingDuringCopyFails: an event committed to the
// source while migrate copies it is not in the copy; migrate exits
// non-zero with STALE_READ naming how many (before: exit 0 and a warning,
// so `cos migrate && switch the servers` lost an acknowledged write). The
// copy it made is kept and verifies.
func TestMigrate_SourceGrowingDuringCopyFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	store := js.URL() + "/COS"
	logInit(t, store)
	dir := t.TempDir()
	for i := range 3 {
		if code, _, stderr := run(t, dir, "--store", store, "call", "cos_task_create", fmt.Sprintf(`{"title":"t%d"}`, i)); code != 0 {
			t.Fatalf("create: %s", stderr)
		}
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	errw := &growingSource{t: t, dir: dir, store: store}
	var out strings.Builder
	code := Run(t.Context(), []string{"--state-dir", dir, "--store", store, "migrate", "--to", dest}, IO{In: strings.NewReader(""), Out: &out, Err: errw})
	stderr := errw.buf.String()
	if code != ExitError || !strings.Contains(stderr, "STALE_READ: 1 events were committed") || !strings.Contains(stderr, "migrate again") {
		t.Fatalf("migrate with a write during the copy: exit %d, stderr %q; want exit %d and STALE_READ", code, stderr, ExitError)
	}
	if code, out, stderr := run(t, dir, "--store", dest, "verify"); code != 0 || strings.TrimSpace(out) != "ok 3 events" {
		t.Fatalf("verify the copy: %d %q %s", code, out, stderr)
	}
}

// TestMigrate_SourceInUseWarns: a migrate of a state folder a server
// still uses (here one open in this process, holding its locks) succeeds
// but warns that what it writes from now on is not in the copy, naming the
// locks held, as cos restore names them.
func TestMigrate_SourceInUseWarns(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	dest := filepath.Join(t.TempDir(), "copy.db")
	if code, _, stderr := run(t, dir, "migrate", "--to", dest); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("migrate of an idle folder: exit %d, %q; want no warning", code, stderr)
	}
	st, err := state.Open(t.Context(), state.Options{Dir: dir, NATS: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close(context.Background()) }()
	dest2 := filepath.Join(t.TempDir(), "copy.db")
	code, _, stderr := run(t, dir, "migrate", "--to", dest2)
	if code != 0 || !strings.Contains(stderr, "still in use") || !strings.Contains(stderr, "holds") || !strings.Contains(stderr, "up to seq 5") {
		t.Fatalf("migrate of a folder in use: exit %d, stderr %q; want success with a warning naming the holders", code, stderr)
	}
}
