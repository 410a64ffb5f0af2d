package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/cosbin"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// Two cos serve --stdio processes on one state folder: one watches the
// indexed tree. Killed with SIGKILL, the other takes over: the next edit
// reaches the log with no index call and no read from anyone.
func TestServe_WatcherFailover_RealProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the cos binary")
	}
	// COS_TEST_BIN runs another build (an older one, to see the test
	// fail) instead of building this tree's.
	bin := os.Getenv("COS_TEST_BIN")
	if bin == "" {
		var err error
		if bin, err = cosbin.Build(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	g := testutil.GitRepo(t, map[string]string{"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 2\n"})
	dir := t.TempDir()
	cos := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"--state-dir", dir}, args...)...)
		cmd.Dir = g.Root
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := cos("index", "--no-progress", "."); err != nil {
		t.Fatalf("cos index: %v\n%s", err, out)
	}
	head := func() uint64 {
		out, err := cos("log", "head")
		if err != nil {
			t.Fatalf("cos log head: %v", err)
		}
		n, err := strconv.ParseUint(out, 10, 64)
		if err != nil {
			t.Fatalf("cos log head: %q", out)
		}
		return n
	}

	servers := map[int]*exec.Cmd{}
	for range 2 {
		cmd := exec.Command(bin, "--state-dir", dir, "serve", "--nats", "off", "--index=false")
		cmd.Dir = g.Root
		stdin, err := cmd.StdinPipe() // held open: the server runs until killed
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		servers[cmd.Process.Pid] = cmd
		t.Cleanup(func() {
			_ = stdin.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("server %d stderr:\n%s", cmd.Process.Pid, stderr.String())
			}
		})
	}
	watcher := func() int {
		b, err := os.ReadFile(filepath.Join(dir, state.WatchLockFile))
		if err != nil {
			return 0
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return pid
	}
	waitUntil := func(timeout time.Duration, what string, cond func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !cond() {
			if time.Since(start) > timeout {
				t.Fatalf("after %v: %s", timeout, what)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return time.Since(start)
	}
	waitUntil(5*time.Second, "no server watches", func() bool { return servers[watcher()] != nil })
	first := watcher()
	time.Sleep(500 * time.Millisecond) // its first run (nothing changed) is over

	// The watcher sees an edit with nobody asking.
	before := head()
	g.Write("a.py", "def a():\n    return 1\n\ndef edited():\n    return 3\n")
	took := waitUntil(2*time.Second, "the edit is not indexed by the watcher", func() bool { return head() > before })
	t.Logf("edit indexed by the watcher (pid %d) after %v", first, took)

	if err := servers[first].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = servers[first].Wait()
	took = waitUntil(3*time.Second, "the other server did not take over", func() bool { w := watcher(); return w != first && servers[w] != nil })
	t.Logf("pid %d took over %v after the kill", watcher(), took)
	time.Sleep(300 * time.Millisecond)
	before = head()
	g.Write("b.py", "def b():\n    return 2\n\ndef takeover_fn():\n    return 4\n")
	took = waitUntil(2*time.Second, "the edit after the take-over is not indexed", func() bool { return head() > before })
	t.Logf("edit indexed by the new watcher after %v", took)
	out, err := cos("call", "cos_graph_resolve", `{"q":"takeover_fn"}`)
	if err != nil || !strings.Contains(out, `"path":"b.py"`) {
		t.Fatalf("cos_graph_resolve takeover_fn: %v\n%s", err, out)
	}
}

// cos index --watch indexes, then re-indexes each edit with one summary
// line on stderr, until SIGINT (exit 0).
func TestIndex_Watch_RealProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the cos binary")
	}
	bin := os.Getenv("COS_TEST_BIN")
	if bin == "" {
		var err error
		if bin, err = cosbin.Build(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	g := testutil.GitRepo(t, map[string]string{"a.py": "def a():\n    return 1\n"})
	dir := t.TempDir()
	cmd := exec.Command(bin, "--state-dir", dir, "index", "--watch", "--no-progress", ".")
	cmd.Dir = g.Root
	var stdout bytes.Buffer
	stderr := &testutil.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	wait := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s; stderr:\n%s", what, stderr.String())
			}
		}
	}
	wait("no watching line", func() bool { return strings.Contains(stderr.String(), "watching for changes") })
	wait("no first watch run", func() bool { return strings.Count(stderr.String(), "watch: ") >= 1 })
	g.Write("a.py", "def a():\n    return 2\n")
	wait("the edit has no summary line", func() bool { return strings.Contains(stderr.String(), "watch: 1 changed paths: indexed") })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cos index --watch after SIGINT: %v\n%s", err, stderr.String())
	}
}
