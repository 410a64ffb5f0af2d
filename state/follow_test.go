package state

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/search"
)

// TestState_Close_WritesStagedSearchBatches: the follower stages index
// batches (written within SearchFlushDelay); Close writes what is staged,
// so the index on disk holds the node and a checkpoint at its seq — a
// restart has nothing to replay.
func TestState_Close_WritesStagedSearchBatches(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true, SearchFlushDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	uid := "code:function:a.go::StagedOnly"
	seq := upsert(t, s, uid)
	if err := s.WaitFor(ctx, seq); err != nil {
		t.Fatal(err)
	}
	if got := s.index.Checkpoint(); got >= seq {
		t.Fatalf("checkpoint %d before Close, want below %d: the batch should still be staged", got, seq)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ix, err := search.OpenIndex(ctx, search.Options{Dir: filepath.Join(dir, SearchDir)})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := ix.Checkpoint(); got != seq {
		t.Errorf("checkpoint on disk after Close = %d, want %d", got, seq)
	}
	if got, err := ix.Search(ctx, uid, nil, 10); err != nil || len(got) != 1 {
		t.Errorf("Search after Close = %v, %v; want the staged node", got, err)
	}
}
