package state

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
)

// TestState_HoldSnapshots: while an index run holds the snapshots, the
// background loop writes none however many events are applied; once
// released, the next kick writes one.
func TestState_HoldSnapshots(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff, SnapshotEvery: 2, SnapshotInterval: time.Hour, SnapshotMinReplay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	snaps := filepath.Join(dir, SnapshotDir)
	release := s.HoldSnapshots()
	inner := s.HoldSnapshots() // holds nest
	var last uint64
	for _, uid := range []string{"go:a", "go:b", "go:c", "go:d", "go:e", "go:f"} {
		last = upsert(t, s, uid)
		if err := s.WaitFor(context.Background(), last); err != nil {
			t.Fatal(err)
		}
	}
	inner()
	inner() // idempotent: the outer hold still stands
	// The loop was kicked (SnapshotEvery 2) several times: give it the
	// time it would take to write one.
	time.Sleep(300 * time.Millisecond)
	if got := newestSnapshot(snaps); got != 0 {
		t.Fatalf("a snapshot at seq %d was written while held", got)
	}
	release()
	for _, uid := range []string{"go:g", "go:h"} {
		last = upsert(t, s, uid)
		if err := s.WaitFor(context.Background(), last); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for newestSnapshot(snaps) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := newestSnapshot(snaps); got == 0 {
		t.Fatal("no snapshot after the hold was released")
	}
}
