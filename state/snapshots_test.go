package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
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
	s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff, SnapshotEvery: 2, SnapshotInterval: time.Hour, SnapshotMinReplay: -1})
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

// TestState_ReplayBytes counts the event data past the snapshot the
// projections were loaded from: what was applied, back to zero once a
// snapshot is written, and after a restart only the tail past it.
func TestState_ReplayBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openState(t, dir, nil)
	var want int64
	sizeOf := func(seq uint64) int64 {
		var n int64
		if err := s.Log().Read(ctx, seq, func(ev eventlog.Event) error {
			n = int64(len(ev.Data))
			return eventlog.ErrStop
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 3 {
		want += sizeOf(upsert(t, s, fmt.Sprintf("go:a%d", i)))
	}
	if err := s.Read(ctx, func(View) {}); err != nil {
		t.Fatal(err)
	}
	if got := s.ReplayBytes(); got != want || want == 0 {
		t.Fatalf("ReplayBytes = %d, want %d", got, want)
	}
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.ReplayBytes(); got != 0 {
		t.Fatalf("ReplayBytes after a snapshot = %d, want 0", got)
	}
	tail := sizeOf(upsert(t, s, "go:after"))
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s = openState(t, dir, nil)
	if got := s.ReplayBytes(); got != tail {
		t.Fatalf("ReplayBytes after a restart = %d, want the %d bytes past the snapshot", got, tail)
	}
}

// TestState_SnapshotDue_ScalesWithSnapshot: with the default, a snapshot
// is due once the replay reaches 1/SnapshotReplayFraction of the newest
// snapshot's size, and never below MinSnapshotReplayBytes.
func TestState_SnapshotDue_ScalesWithSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := openState(t, dir, nil)
	if s.SnapshotDue(MinSnapshotReplayBytes-1, 0) || !s.SnapshotDue(MinSnapshotReplayBytes, 0) {
		t.Fatalf("without a snapshot the floor is %d bytes", MinSnapshotReplayBytes)
	}
	// A 64 MiB snapshot (sparse: only its size is read), newer than any.
	big := filepath.Join(dir, SnapshotDir, fmt.Sprintf("snap-%020d.bin", 99))
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 64<<20); err != nil {
		t.Fatal(err)
	}
	if got := s.SnapshotBytes(); got != 64<<20 {
		t.Fatalf("SnapshotBytes = %d, want %d", got, 64<<20)
	}
	due := int64(64<<20) / SnapshotReplayFraction
	if s.SnapshotDue(due-1, 0) || !s.SnapshotDue(due, 0) {
		t.Errorf("a 64 MiB snapshot: due from %d bytes of replay", due)
	}
	if !s.SnapshotDue(1, 1) || s.SnapshotDue(1<<40, -1) {
		t.Errorf("a positive minBytes is that many bytes; a negative one never")
	}
}
