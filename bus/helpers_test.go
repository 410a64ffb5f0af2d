package bus

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// waitLimit bounds every wait for an event in these tests; it is a failure
// deadline, never a way to let time pass.
const waitLimit = 20 * time.Second

// openBus opens a bus and closes it when the test ends.
func openBus(t testing.TB, o Options) *Bus {
	t.Helper()
	if o.ReconnectWait == 0 {
		o.ReconnectWait = 50 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	b, err := Open(ctx, o)
	if err != nil {
		t.Fatalf("Open(%+v): %v", o, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// eventSink subscribes b to pattern and returns the channel of its events.
func eventSink(t testing.TB, b *Bus, pattern string) <-chan eventlog.Event {
	t.Helper()
	ch := make(chan eventlog.Event, 1024)
	unsub, err := b.Subscribe(EventsSubject(b.Namespace(), pattern), func(ev eventlog.Event) { ch <- ev })
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(unsub)
	return ch
}

// receive returns the next value of ch, failing the test after waitLimit.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %s", what, waitLimit)
		var zero T
		return zero
	}
}

// waitFor polls cond until it holds, failing the test after waitLimit. It
// is for conditions that have no event to wait on (presence expiry).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %s", what, waitLimit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testEvent builds a committed-looking event.
func testEvent(seq uint64, typ, stream string) eventlog.Event {
	return eventlog.Event{
		Seq:      seq,
		ID:       fmt.Sprintf("01JTEST%019d", seq),
		Time:     time.Date(2026, 11, 30, 9, 0, 0, int(seq), time.UTC),
		Stream:   stream,
		Revision: seq,
		Type:     typ,
		Actor:    eventlog.Actor{PID: 1, Host: "test"},
		Data:     json.RawMessage(`{"n":` + fmt.Sprint(seq) + `}`),
		PrevHash: fmt.Sprintf("%064d", seq-1),
		Hash:     fmt.Sprintf("%064d", seq),
	}
}

// child is a bus process started from this test binary.
type child struct {
	cmd    *exec.Cmd
	status childStatus
	stdin  interface{ Close() error }
	done   chan error  // receives Wait's result
	lines  chan string // the status line, then closed
}

// startChild runs childMain in a new process on stateDir and waits for its
// status line. The process is killed at the end of the test if still alive.
func startChild(t testing.TB, stateDir string, heartbeat time.Duration, position uint64) *child {
	t.Helper()
	c := spawnChild(t, stateDir, heartbeat, position)
	c.awaitStatus(t)
	return c
}

// spawnChild starts childMain in a new process without waiting for it.
func spawnChild(t testing.TB, stateDir string, heartbeat time.Duration, position uint64) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"=1",
		envState+"="+stateDir,
		envHeartbeat+"="+heartbeat.String(),
		fmt.Sprintf("%s=%d", envPosition, position),
	)
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
	c := &child{cmd: cmd, stdin: stdin, done: make(chan error, 1), lines: make(chan string, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		for sc.Scan() { // drain so the child never blocks on stdout
		}
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.done
	})
	return c
}

// awaitStatus reads the child's status line into c.status.
func (c *child) awaitStatus(t testing.TB) {
	t.Helper()
	line, ok := <-c.lines
	if !ok {
		t.Fatal("child exited before reporting its status")
	}
	if err := json.Unmarshal([]byte(line), &c.status); err != nil {
		t.Fatalf("child status %q: %v", line, err)
	}
	if c.status.Err != "" {
		t.Fatalf("child: %s", c.status.Err)
	}
}

// kill9 kills the child with SIGKILL and waits for it to be gone.
func (c *child) kill9(t testing.TB) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	receive(t, c.done, "child exit")
	c.done <- nil // for the cleanup
}
