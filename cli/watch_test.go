package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
)

// sink is an io.Writer that tests can wait on.
type sink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newSink() *sink { return &sink{changed: make(chan struct{})} }

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.buf.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return n, err
}

func (s *sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until ok holds for the content, failing after timeout.
func (s *sink) waitFor(t testing.TB, what string, timeout time.Duration, ok func(string) bool) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		content, ch := s.buf.String(), s.changed
		s.mu.Unlock()
		if ok(content) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got:\n%s", what, content)
		}
	}
}

// startWatch runs `cos watch args...` in-process on dir until the test ends
// (or stop is called) and returns its stdout and stderr once it follows.
func startWatch(t *testing.T, dir string, args ...string) (out, errs *sink, stop func()) {
	t.Helper()
	out, errs = newSink(), newSink()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"--state-dir", dir, "watch"}, args...), IO{In: strings.NewReader(""), Out: out, Err: errs})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != ExitOK {
				t.Errorf("cos watch exit %d; stderr:\n%s", code, errs.String())
			}
		})
	}
	t.Cleanup(stop)
	errs.waitFor(t, "cos watch to follow", 20*time.Second, func(s string) bool {
		return strings.Contains(s, "cos watch: following")
	})
	return out, errs, stop
}

// writer appends events to dir's log; with publish it also sends every
// commit on the bus, like a cos serve process does.
type writer struct {
	log state.Log
	bus *bus.Bus
}

func newWriter(t *testing.T, dir string, publish bool) *writer {
	t.Helper()
	w := &writer{}
	var b *bus.Bus
	if publish {
		var err error
		b, err = bus.Open(context.Background(), bus.Options{StateDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("open bus: %v", err)
		}
		t.Cleanup(func() { _ = b.Close() })
	}
	l, err := state.OpenLog(context.Background(), dir, state.LogOptions{OnCommit: func(evs []eventlog.Event) {
		if b == nil {
			return
		}
		for _, ev := range evs {
			if err := b.Publish(context.Background(), ev); err != nil {
				t.Errorf("publish %d: %v", ev.Seq, err)
			}
		}
	}})
	if err != nil {
		t.Fatalf("open log: %v", err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	w.log, w.bus = l, b
	return w
}

// append appends n events whose types cycle through types and returns
// their seqs by type.
func (w *writer) append(t testing.TB, n int, types ...string) map[string][]uint64 {
	t.Helper()
	got := map[string][]uint64{}
	for i := range n {
		typ := types[i%len(types)]
		res, err := w.log.Append(context.Background(), eventlog.AppendRequest{
			Stream: "s" + typ, Events: []eventlog.Payload{{Type: typ, Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}},
		})
		if err != nil || res[0].Err != nil {
			t.Fatalf("append: %v %v", err, res)
		}
		got[typ] = append(got[typ], res[0].Receipt.FirstSeq)
	}
	return got
}

// jsonSeqs decodes `cos watch --json` output and returns the seqs and
// types in print order.
func jsonSeqs(t testing.TB, out string) ([]uint64, []string) {
	t.Helper()
	var seqs []uint64
	var types []string
	for line := range strings.Lines(out) {
		var ev eventlog.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not an event line %q: %v", line, err)
		}
		seqs = append(seqs, ev.Seq)
		types = append(types, ev.Type)
	}
	return seqs, types
}

// hasSeq reports whether the JSON output has printed seq.
func hasSeq(seq uint64) func(string) bool {
	return func(s string) bool { return strings.Contains(s, fmt.Sprintf(`{"seq":%d,`, seq)) }
}

func checkExactly(t testing.TB, got []uint64, want []uint64) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("printed seqs\n got %v\nwant %v", got, want)
	}
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestWatch_From_ReplaysThenLiveWithoutGapOrDuplicate(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, true)
	w.append(t, 40, "task.created", "graph.file_extracted")
	// Writes race with the watcher's start: some land before its
	// subscription, some during the replay, some after.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.append(t, 60, "task.updated") }()
	out, _, stop := startWatch(t, dir, "--from", "1", "--json")
	wg.Wait()
	w.append(t, 20, "evidence.recorded")
	out.waitFor(t, "seq 120", 20*time.Second, hasSeq(120))
	stop()
	seqs, _ := jsonSeqs(t, out.String())
	checkExactly(t, seqs, seqRange(1, 120))
}

func TestWatch_Subject_FiltersReplayAndLive(t *testing.T) {
	tests := []struct {
		subject string
		match   func(string) bool
		last    string // a matching type, appended last
	}{
		{"task.>", func(typ string) bool { return strings.HasPrefix(typ, "task.") }, "task.created"},
		{"task.updated", func(typ string) bool { return typ == "task.updated" }, "task.updated"},
		{"*.created", func(typ string) bool { return strings.Count(typ, ".") == 1 && strings.HasSuffix(typ, ".created") }, "task.created"},
	}
	types := []string{"task.created", "task.updated", "graph.file_extracted", "graph.node.created", "evidence.recorded"}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			dir := t.TempDir()
			w := newWriter(t, dir, true)
			before := w.append(t, 25, types...)
			out, _, stop := startWatch(t, dir, "--from", "1", "--json", "--subject", tt.subject)
			after := w.append(t, 25, types...)
			last := w.append(t, 1, tt.last)[tt.last][0]
			out.waitFor(t, "the last event", 20*time.Second, hasSeq(last))
			stop()
			var want []uint64
			for _, part := range []map[string][]uint64{before, after} {
				for typ, seqs := range part {
					if tt.match(typ) {
						want = append(want, seqs...)
					}
				}
			}
			want = append(want, last)
			sortSeqs(want)
			seqs, gotTypes := jsonSeqs(t, out.String())
			for _, typ := range gotTypes {
				if !tt.match(typ) {
					t.Errorf("printed %q, which %q does not match", typ, tt.subject)
				}
			}
			checkExactly(t, seqs, want)
		})
	}
}

func sortSeqs(s []uint64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestWatch_Gap_ReadFromLog(t *testing.T) {
	dir := t.TempDir()
	loud := newWriter(t, dir, true)
	silent := newWriter(t, dir, false) // commits that never reach the bus
	loud.append(t, 3, "task.created")
	out, _, stop := startWatch(t, dir, "--json")
	silent.append(t, 10, "task.updated")
	loud.append(t, 1, "task.created") // seq 14: the watcher sees 4..13 missing
	out.waitFor(t, "seq 14", 20*time.Second, hasSeq(14))
	stop()
	seqs, _ := jsonSeqs(t, out.String())
	checkExactly(t, seqs, seqRange(4, 14))
}

func TestWatch_NATSOff_PollsTheHead(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, false)
	w.append(t, 5, "task.created")
	out, _, stop := startWatch(t, dir, "--nats", "off", "--poll", "5ms")
	w.append(t, 5, "task.updated")
	out.waitFor(t, "seq 10", 20*time.Second, func(s string) bool { return strings.HasPrefix(lastLine(s), "10\t") })
	stop()
	var seqs []string
	for line := range strings.Lines(out.String()) {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("line %q: want 5 tab-separated fields", line)
		}
		if !strings.HasPrefix(f[2], "stask.updated@") || f[3] != "task.updated" {
			t.Errorf("line %q: want stream@revision and type of a task.updated event", line)
		}
		seqs = append(seqs, f[0])
	}
	if got, want := strings.Join(seqs, ","), "6,7,8,9,10"; got != want {
		t.Fatalf("printed seqs %s, want %s (the feed starts at the head)", got, want)
	}
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func TestWatch_NeverWritesTheLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, stop := startWatch(t, dir, "--nats", "off", "--from", "1")
	stop()
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); !os.IsNotExist(err) {
		t.Fatalf("cos watch created the log: %v", err)
	}
}

func TestWatch_BadSubject_Usage(t *testing.T) {
	for _, subj := range []string{"", "task.>.x", "task..x", "ta*k", "a b"} {
		code, _, errs := run(t, t.TempDir(), "watch", "--nats", "off", "--subject", subj)
		if code != ExitUsage {
			t.Errorf("--subject %q: exit %d (%s), want %d", subj, code, errs, ExitUsage)
		}
	}
}

func TestTypeMatchesPattern(t *testing.T) {
	tests := []struct {
		pattern, typ string
		want         bool
	}{
		{">", "task.created", true},
		{"task.>", "task.created", true},
		{"task.>", "task", false},
		{"task.>", "graph.created", false},
		{"task.*", "task.created", true},
		{"task.*", "task.a.b", false},
		{"*.created", "graph.created", true},
		{"task.created", "task.created", true},
		{"task.created", "task.created.x", false},
		{"task", "task.created", false},
	}
	for _, tt := range tests {
		p, err := watchPattern(tt.pattern)
		if err != nil {
			t.Fatalf("watchPattern(%q): %v", tt.pattern, err)
		}
		if got := typeMatchesPattern(p, tt.typ); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.typ, got, tt.want)
		}
	}
}
