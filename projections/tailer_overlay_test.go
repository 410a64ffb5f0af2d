package projections

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// An overlay registered with SetOverlay runs after every batch, before a
// reader sees it, with the batch's events; Mutate changes the projections
// without moving the position, and bumps the graph's Version.
func TestTailer_Overlay_RunsAfterEachBatchUnderTheWriteLock(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(3, 4))
	appendPayloads(t, l, genPayloads(r, 20), 5)
	tl, g := startTailer(t, l, TailerOptions{})

	local, _ := json.Marshal(graph.FileExtracted{Path: "local/only.go", Extractor: "go", ContentHash: "ab",
		Nodes: []graph.Node{{UID: "code:function:local/only.go::F", Label: "F", Path: "local/only.go"}}})
	var batches, seen int
	apply := func() {
		if err := g.Apply(eventlog.Event{Seq: tl.pos.Seq, Type: graph.TypeFileExtracted, Data: local}); err != nil {
			t.Error(err)
		}
	}
	tl.SetOverlay(func(evs []eventlog.Event) {
		batches++
		seen += len(evs)
		// A reader never sees the batch without the overlay: the write
		// lock is held (TryRLock fails).
		if tl.mu.TryRLock() {
			tl.mu.RUnlock()
			t.Error("the overlay ran without the write lock")
		}
		apply()
	})
	before := tl.Position()
	v0 := g.Version()
	tl.Mutate(apply)
	if tl.Position() != before {
		t.Fatalf("Mutate moved the position: %+v → %+v", before, tl.Position())
	}
	if g.Version() == v0 {
		t.Fatal("Version did not move with a change outside the log")
	}
	tl.View(func(Position) {
		if !g.HasNode("code:function:local/only.go::F") {
			t.Fatal("Mutate's change is not visible")
		}
	})
	appendPayloads(t, l, genPayloads(r, 12), 4)
	if err := tl.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen != 12 || batches == 0 {
		t.Fatalf("the overlay saw %d events in %d batches, want 12", seen, batches)
	}
	tl.View(func(Position) {
		if !g.HasNode("code:function:local/only.go::F") {
			t.Fatal("the overlay's node is gone after a batch")
		}
	})
}
