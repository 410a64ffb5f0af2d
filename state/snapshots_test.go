package state

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
)

// snapshotHealth returns what health says about snapshots now.
func snapshotHealth(t *testing.T, s *State) (*SnapshotFailure, uint64) {
	t.Helper()
	var (
		h   Health
		err error
	)
	if rerr := s.Read(context.Background(), func(v View) { h, err = v.Health(context.Background()) }); rerr != nil || err != nil {
		t.Fatalf("health: %v %v", rerr, err)
	}
	return h.SnapshotFailure, h.SnapshotSeq
}

// TestState_FailedSnapshotIsReportedInHealth: when the background loop
// cannot write a snapshot, health says so (time, seq, cause) until a later
// snapshot succeeds.
func TestState_FailedSnapshotIsReportedInHealth(t *testing.T) {
	dir := t.TempDir()
	// A file where the snapshots folder should be: every snapshot fails.
	block := filepath.Join(dir, SnapshotDir)
	if err := os.WriteFile(block, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff, SnapshotEvery: 2, SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	for _, uid := range []string{"go:a", "go:b", "go:c"} {
		upsert(t, s, uid)
	}
	deadline := time.Now().Add(10 * time.Second)
	var fail *SnapshotFailure
	for fail == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		fail, _ = snapshotHealth(t, s)
	}
	if fail == nil {
		t.Fatal("a snapshot that could not be written is not reported in health")
	}
	if fail.Seq < 2 || !strings.Contains(fail.Error, SnapshotDir) || fail.Time.IsZero() {
		t.Errorf("snapshot failure = %+v; want the seq, the time and a cause naming the folder", fail)
	}

	// Once the folder can be written, the next snapshot clears the report.
	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	upsert(t, s, "go:d")
	upsert(t, s, "go:e")
	var seq uint64
	for deadline = time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if fail, seq = snapshotHealth(t, s); fail == nil && seq > 0 {
			break
		}
	}
	if fail != nil || seq == 0 {
		t.Fatalf("after the folder is fixed: failure %+v, newest snapshot %d; want none and a snapshot", fail, seq)
	}
}
