package tasks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// baseTime is the commit time of seq 0 in fakeLog.
var baseTime = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fakeLog stamps events the way the log does (seq, per-stream revision,
// hash, time, allocated task ids) so that reducer tests are deterministic;
// the real log is used where concurrency matters (claim_test.go).
type fakeLog struct {
	seq    uint64
	revs   map[string]uint64
	nextID int
	events []eventlog.Event
}

func newFakeLog() *fakeLog { return &fakeLog{revs: map[string]uint64{}} }

func (l *fakeLog) append(t testing.TB, stream, typ string, data any) eventlog.Event {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	l.seq++
	l.revs[stream]++
	sum := sha256.Sum256(fmt.Appendf(nil, "%d|%s|%s|%s", l.seq, stream, typ, raw))
	ev := eventlog.Event{Seq: l.seq, ID: fmt.Sprintf("ev%04d", l.seq), Time: baseTime.Add(time.Duration(l.seq) * time.Second),
		Stream: stream, Revision: l.revs[stream], Type: typ, Data: raw, Hash: hex.EncodeToString(sum[:])}
	l.events = append(l.events, ev)
	return ev
}

// create allocates the next TASK id like the log's StreamPrefix.
func (l *fakeLog) create(t testing.TB, c Created) eventlog.Event {
	t.Helper()
	l.nextID++
	if c.Priority == "" {
		c.Priority = DefaultPriority
	}
	if c.Status == "" {
		c.Status = DefaultStatus
	}
	return l.append(t, fmt.Sprintf("%s%03d", StreamPrefix, l.nextID), TypeCreated, c)
}

// apply folds ev and fails the test on a reducer error.
func apply(t testing.TB, b *Board, ev eventlog.Event) {
	t.Helper()
	if err := b.Apply(ev); err != nil {
		t.Fatalf("apply %s %s: %v", ev.Stream, ev.Type, err)
	}
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from golden (run with -update after checking):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func ptr[T any](v T) *T { return &v }
