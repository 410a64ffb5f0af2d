package state

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
)

// TestState_BackgroundSnapshotWaitsForReplay: the background loop, kicked
// and ticked, writes no snapshot for a few small writes (the rule of index
// runs: SnapshotDue), and writes one once the event data applied since
// reaches Options.SnapshotMinReplay.
func TestState_BackgroundSnapshotWaitsForReplay(t *testing.T) {
	for _, minReplay := range []int64{0, 3000} {
		dir := t.TempDir()
		s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff, SnapshotEvery: 2,
			SnapshotInterval: 20 * time.Millisecond, SnapshotMinReplay: minReplay})
		if err != nil {
			t.Fatal(err)
		}
		snaps := filepath.Join(dir, SnapshotDir)
		var last uint64
		for _, uid := range []string{"go:a", "go:b", "go:c", "go:d", "go:e", "go:f"} {
			last = upsert(t, s, uid)
		}
		if err := s.WaitFor(context.Background(), last); err != nil {
			t.Fatal(err)
		}
		// Several kicks (SnapshotEvery 2) and ticks: time to write one.
		time.Sleep(300 * time.Millisecond)
		if got := newestSnapshot(snaps); got != 0 {
			t.Fatalf("min replay %d: a snapshot at seq %d for %d bytes of events", minReplay, got, s.ReplayBytes())
		}
		if minReplay > 0 {
			for i := 0; s.ReplayBytes() < minReplay; i++ {
				last = upsert(t, s, "go:more"+string(rune('a'+i%26))+string(rune('a'+i/26)))
				if err := s.WaitFor(context.Background(), last); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for newestSnapshot(snaps) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if newestSnapshot(snaps) == 0 {
				t.Errorf("min replay %d: no snapshot after %d bytes of events", minReplay, s.ReplayBytes())
			}
		}
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}
