package evidence

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
	"github.com/gofrs/flock"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

var baseTime = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fakeLog stamps events as the log does, deterministically.
type fakeLog struct {
	seq    uint64
	revs   map[string]uint64
	events []eventlog.Event
}

func newFakeLog() *fakeLog { return &fakeLog{revs: map[string]uint64{}} }

func (l *fakeLog) add(t testing.TB, stream, typ string, data []byte) eventlog.Event {
	t.Helper()
	l.seq++
	l.revs[stream]++
	sum := sha256.Sum256(fmt.Appendf(nil, "%d|%s|%s|%s", l.seq, stream, typ, data))
	ev := eventlog.Event{Seq: l.seq, Time: baseTime.Add(time.Duration(l.seq) * time.Second), Stream: stream,
		Revision: l.revs[stream], Type: typ, Data: data, Hash: hex.EncodeToString(sum[:])}
	l.events = append(l.events, ev)
	return ev
}

// record prepares a record with the default registry and appends it.
func (l *fakeLog) record(t testing.TB, session, kind, role, output string) eventlog.Event {
	t.Helper()
	stream, p, err := DefaultRegistry().Prepare(session, kind, role, json.RawMessage(output))
	if err != nil {
		t.Fatalf("prepare %s/%s: %v", kind, role, err)
	}
	return l.add(t, stream, p.Type, p.Data)
}

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

// holdLock takes the per-session export lock, as another exporter would,
// and returns its release.
func holdLock(t *testing.T, dir, session string) func() {
	t.Helper()
	l := flock.New(filepath.Join(dir, ".evidence_bundle_"+session+".lock"))
	if err := l.Lock(); err != nil {
		t.Fatal(err)
	}
	return func() { _ = l.Unlock() }
}
