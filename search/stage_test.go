package search

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// openStaging opens an index in a fresh folder whose flusher waits delay.
func openStaging(t testing.TB, delay time.Duration) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "search")
	ix, err := OpenIndex(context.Background(), Options{Dir: dir, FlushDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	})
	return ix, dir
}

// TestIndex_Stage_SearchSeesStaged: a search right after Stage finds what
// was staged, though the flusher has not run, and writes it (Checkpoint
// moves only then).
func TestIndex_Stage_SearchSeesStaged(t *testing.T) {
	ix, _ := openStaging(t, time.Hour)
	ctx := context.Background()
	if err := ix.Stage(ctx, indexFixture, nil, 7); err != nil {
		t.Fatal(err)
	}
	if got := ix.Checkpoint(); got != 0 {
		t.Errorf("Checkpoint after Stage = %d, want 0 until written", got)
	}
	got, err := ix.Search(ctx, "parsejson", nil, 10) // a prefix, not an exact name
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].UID != "code:function:lexer/json.go::parseJSONToken" {
		t.Errorf("Search after Stage = %q, want parseJSONToken", uids(got))
	}
	if got := ix.Checkpoint(); got != 7 {
		t.Errorf("Checkpoint after the search = %d, want 7", got)
	}
}

// TestIndex_Stage_Merges: stages are merged in order — a later upsert or
// delete of a uid wins, a uid in both lists of one stage ends deleted — and
// the newest seq is the checkpoint.
func TestIndex_Stage_Merges(t *testing.T) {
	ix, _ := openStaging(t, time.Hour)
	ctx := context.Background()
	cfg := indexFixture[4] // code:function:x.go::Config
	renamed := cfg
	renamed.Label = "Settings"
	steps := []struct {
		ups  []graph.Node
		dels []string
		seq  uint64
	}{
		{indexFixture, nil, 3},
		{[]graph.Node{renamed}, []string{indexFixture[1].UID}, 4},
		{[]graph.Node{indexFixture[2]}, []string{indexFixture[2].UID}, 5},
	}
	for _, s := range steps {
		if err := ix.Stage(ctx, s.ups, s.dels, s.seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	if n, _ := ix.docCount(); n != uint64(len(indexFixture)-2) {
		t.Errorf("docCount = %d, want %d", n, len(indexFixture)-2)
	}
	if got, _ := ix.lookup(ctx, "Settings", 10); len(got) != 1 || got[0].UID != cfg.UID {
		t.Errorf("Lookup(Settings) = %q, want the renamed node", uids(got))
	}
	if ix.Checkpoint() != 5 {
		t.Errorf("Checkpoint = %d, want 5", ix.Checkpoint())
	}
}

func TestIndex_Stage_SeqBackwards(t *testing.T) {
	ix, _ := openStaging(t, time.Hour)
	ctx := context.Background()
	if err := ix.Stage(ctx, indexFixture, nil, 9); err != nil {
		t.Fatal(err)
	}
	if err := ix.Stage(ctx, nil, nil, 8); !errors.Is(err, ErrSeqBackwards) {
		t.Errorf("Stage below the staged seq: %v, want ErrSeqBackwards", err)
	}
	if err := ix.Apply(ctx, nil, nil, 8); !errors.Is(err, ErrSeqBackwards) {
		t.Errorf("Apply below the staged seq: %v, want ErrSeqBackwards", err)
	}
}

// TestIndex_Stage_FlushesAfterDelay: the flusher writes what is staged
// FlushDelay later, with no search asking.
func TestIndex_Stage_FlushesAfterDelay(t *testing.T) {
	ix, _ := openStaging(t, 5*time.Millisecond)
	if err := ix.Stage(context.Background(), indexFixture, nil, 11); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for ix.Checkpoint() != 11 {
		if time.Now().After(deadline) {
			t.Fatalf("Checkpoint = %d 10 s after Stage, want 11", ix.Checkpoint())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestIndex_Stage_MaxStaged: a Stage reaching MaxStaged writes at once.
func TestIndex_Stage_MaxStaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	ix, err := OpenIndex(context.Background(), Options{Dir: dir, FlushDelay: time.Hour, MaxStaged: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Stage(context.Background(), indexFixture, nil, 4); err != nil {
		t.Fatal(err)
	}
	if ix.Checkpoint() != 4 {
		t.Errorf("Checkpoint = %d, want 4 (written at once)", ix.Checkpoint())
	}
}

// TestIndex_Close_WritesStaged: Close writes what is staged, so a restart
// finds the nodes and the checkpoint; Stage after Close is ErrClosed.
func TestIndex_Close_WritesStaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	ctx := context.Background()
	ix, err := OpenIndex(ctx, Options{Dir: dir, FlushDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Stage(ctx, indexFixture, nil, 13); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Stage(ctx, indexFixture, nil, 14); !errors.Is(err, ErrClosed) {
		t.Errorf("Stage after Close: %v, want ErrClosed", err)
	}
	if err := ix.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: %v, want ErrClosed", err)
	}
	again := openTestIndex(t, dir)
	if again.Checkpoint() != 13 {
		t.Errorf("Checkpoint after restart = %d, want 13", again.Checkpoint())
	}
	if n, _ := again.docCount(); n != uint64(len(indexFixture)) {
		t.Errorf("docCount after restart = %d, want %d", n, len(indexFixture))
	}
}
