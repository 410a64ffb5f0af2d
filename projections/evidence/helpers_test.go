package evidence

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/gofrs/flock"
)

// record prepares a record with the default registry and appends it to l.
func record(t testing.TB, l *testutil.FakeLog, session, kind, role, output string) eventlog.Event {
	t.Helper()
	stream, p, err := DefaultRegistry().Prepare(session, kind, role, json.RawMessage(output))
	if err != nil {
		t.Fatalf("prepare %s/%s: %v", kind, role, err)
	}
	return l.Append(t, stream, p.Type, p.Data)
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
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
