package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/graph"
)

var indexFixture = []graph.Node{
	{UID: "code:class:server/config.go::HTTPServerConfig", Kind: graph.KindClass, Label: "HTTPServerConfig", Path: "server/config.go"},
	{UID: "code:function:server/config.go::LoadConfig", Kind: graph.KindFunction, Label: "LoadConfig", Path: "server/config.go"},
	{UID: "code:file:server/config.go", Kind: graph.KindFile, Label: "config.go", Path: "server/config.go"},
	{UID: "code:function:lexer/json.go::parseJSONToken", Kind: graph.KindFunction, Label: "parseJSONToken", Path: "lexer/json.go"},
	{UID: "code:function:x.go::Config", Kind: graph.KindFunction, Label: "Config", Path: "x.go"},
}

func uids(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.UID
	}
	return out
}

func TestIndex_Search_ExactLabelFirst(t *testing.T) {
	ix := indexWith(t, indexFixture)
	got, err := ix.Search(context.Background(), "config", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("Search(config) = %q, want at least 3 hits", uids(got))
	}
	if got[0].UID != "code:function:x.go::Config" {
		t.Errorf("top hit %q, want the node labelled Config; all: %q", got[0].UID, uids(got))
	}
	c := got[0]
	if c.Kind != graph.KindFunction || c.Label != "Config" || c.Path != "x.go" || c.Score <= 0 {
		t.Errorf("candidate fields = %+v", c)
	}
	checkRanked(t, got)
}

// checkRanked fails unless cs come in tier order and by score within a tier.
func checkRanked(t *testing.T, cs []Candidate) {
	t.Helper()
	rank := map[string]int{matchAnyWord: tierCount}
	for i, n := range tierNames {
		rank[n] = i
	}
	for i := 1; i < len(cs); i++ {
		a, b := cs[i-1], cs[i]
		if rank[b.Match] < rank[a.Match] || (a.Match == b.Match && b.Score > a.Score) {
			t.Errorf("not ranked at %d: %+v", i, cs)
		}
	}
}

func TestIndex_Search_Kinds(t *testing.T) {
	ix := indexWith(t, indexFixture)
	got, err := ix.Search(context.Background(), "config", []string{graph.KindFile}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].UID != "code:file:server/config.go" {
		t.Errorf("Search(config, file) = %q, want only the file", uids(got))
	}
}

func TestIndex_Search_Empty(t *testing.T) {
	ix := indexWith(t, indexFixture)
	for _, q := range []string{"", "   "} {
		got, err := ix.Search(context.Background(), q, nil, 10)
		if err != nil || len(got) != 0 {
			t.Errorf("Search(%q) = %v, %v; want nothing", q, got, err)
		}
	}
}

func TestIndex_Lookup_BareName(t *testing.T) {
	ix := indexWith(t, indexFixture)
	got, err := ix.lookup(context.Background(), "PARSEJSONTOKEN", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].UID != "code:function:lexer/json.go::parseJSONToken" {
		t.Errorf("Lookup = %q", uids(got))
	}
}

func TestIndex_Apply_Delete(t *testing.T) {
	ix := indexWith(t, indexFixture)
	ctx := context.Background()
	gone := "code:function:server/config.go::LoadConfig"
	if err := ix.Apply(ctx, nil, []string{gone, "code:file:never-indexed.go"}, 2); err != nil {
		t.Fatal(err)
	}
	n, err := ix.docCount()
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(len(indexFixture) - 1); n != want {
		t.Errorf("docCount = %d, want %d", n, want)
	}
	got, err := ix.lookup(ctx, "LoadConfig", 10)
	if err != nil || len(got) != 0 {
		t.Errorf("Lookup(deleted) = %q, %v", uids(got), err)
	}
	if ix.Checkpoint() != 2 {
		t.Errorf("Checkpoint = %d, want 2", ix.Checkpoint())
	}
}

func TestIndex_Apply_Upsert_Replaces(t *testing.T) {
	ix := indexWith(t, indexFixture)
	ctx := context.Background()
	renamed := indexFixture[0]
	renamed.Label = "GRPCListenerOptions"
	if err := ix.Apply(ctx, []graph.Node{renamed}, nil, 2); err != nil {
		t.Fatal(err)
	}
	// The old label is gone (the uid's bare name, HTTPServerConfig, still
	// finds the node: that is its name).
	got, _ := ix.Search(ctx, "listener options", nil, 10)
	if len(got) != 1 || got[0].UID != renamed.UID || got[0].Label != renamed.Label {
		t.Errorf("Search(new label words) = %+v", got)
	}
	got, _ = ix.lookup(ctx, "GRPCListenerOptions", 10)
	if len(got) != 1 || got[0].UID != renamed.UID || got[0].Label != renamed.Label {
		t.Errorf("new label not found: %+v", got)
	}
	if n, _ := ix.docCount(); n != uint64(len(indexFixture)) {
		t.Errorf("docCount = %d, want %d (replaced, not added)", n, len(indexFixture))
	}
}

func TestIndex_Apply_SeqBackwards(t *testing.T) {
	ix := indexWith(t, indexFixture) // seq 1
	ctx := context.Background()
	if err := ix.Apply(ctx, nil, nil, 5); err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(ctx, nil, nil, 5); err != nil {
		t.Errorf("re-apply at the checkpoint: %v", err)
	}
	if err := ix.Apply(ctx, nil, nil, 4); !errors.Is(err, ErrSeqBackwards) {
		t.Errorf("Apply(4) after 5 = %v, want ErrSeqBackwards", err)
	}
	if ix.Checkpoint() != 5 {
		t.Errorf("Checkpoint = %d, want 5", ix.Checkpoint())
	}
}

func TestIndex_Apply_Canceled(t *testing.T) {
	ix := openTestIndex(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ix.Apply(ctx, indexFixture, nil, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Apply(canceled) = %v", err)
	}
	if ix.Checkpoint() != 0 {
		t.Errorf("Checkpoint moved to %d", ix.Checkpoint())
	}
}

func TestIndex_Closed(t *testing.T) {
	ix, err := OpenIndex(context.Background(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	ctx := context.Background()
	if _, err := ix.Search(ctx, "x", nil, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close = %v", err)
	}
	if _, err := ix.lookup(ctx, "x", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Lookup after Close = %v", err)
	}
	if err := ix.Apply(ctx, nil, nil, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply after Close = %v", err)
	}
	if _, err := ix.docCount(); !errors.Is(err, ErrClosed) {
		t.Errorf("docCount after Close = %v", err)
	}
}

func TestIndex_Restart_ReusesSlotAndCheckpoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	ctx := context.Background()
	first, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Apply(ctx, indexFixture, nil, 42); err != nil {
		t.Fatal(err)
	}
	slot := first.Slot()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	again := openTestIndex(t, dir)
	if again.Slot() != slot {
		t.Errorf("reopened in slot %d, want %d", again.Slot(), slot)
	}
	if again.Checkpoint() != 42 {
		t.Errorf("Checkpoint after restart = %d, want 42", again.Checkpoint())
	}
	if n, _ := again.docCount(); n != uint64(len(indexFixture)) {
		t.Errorf("docCount after restart = %d, want %d", n, len(indexFixture))
	}
	if got, _ := again.lookup(ctx, "HTTPServerConfig", 1); len(got) != 1 {
		t.Errorf("document lost across restart: %q", uids(got))
	}
}

func TestIndex_TwoOpen_DifferentSlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	ctx := context.Background()
	a := openTestIndex(t, dir)
	b := openTestIndex(t, dir)
	if a.Slot() == b.Slot() || a.dir == b.dir {
		t.Fatalf("both indexes in slot %d (%s)", a.Slot(), a.dir)
	}
	if err := a.Apply(ctx, indexFixture, nil, 7); err != nil {
		t.Fatal(err)
	}
	if b.Checkpoint() != 0 {
		t.Errorf("slot %d sees slot %d's checkpoint", b.Slot(), a.Slot())
	}
	// Closing a frees its slot for the next opener.
	freed := a.Slot()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c := openTestIndex(t, dir)
	if c.Slot() != freed || c.Checkpoint() != 7 {
		t.Errorf("third open got slot %d checkpoint %d, want slot %d checkpoint 7", c.Slot(), c.Checkpoint(), freed)
	}
}

func TestOpenIndex_NoSlot(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ix, err := OpenIndex(ctx, Options{Dir: dir, MaxSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := OpenIndex(ctx, Options{Dir: dir, MaxSlots: 1}); !errors.Is(err, ErrNoSlot) {
		t.Errorf("second open with one slot = %v, want ErrNoSlot", err)
	}
}

func TestOpenIndex_CorruptSlot_Rebuilt(t *testing.T) {
	dir := t.TempDir()
	slot := slotDir(dir, 0)
	if err := os.MkdirAll(slot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(slot, "index_meta.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openTestIndex(t, dir)
	if ix.Slot() != 0 || ix.Checkpoint() != 0 {
		t.Errorf("slot %d checkpoint %d, want slot 0 rebuilt at 0", ix.Slot(), ix.Checkpoint())
	}
	if err := ix.Apply(context.Background(), indexFixture, nil, 1); err != nil {
		t.Errorf("Apply on rebuilt slot: %v", err)
	}
}

func TestOpenIndex_OtherFormat_Rebuilt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ix, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply(ctx, indexFixture, nil, 9); err != nil {
		t.Fatal(err)
	}
	if err := ix.bi.SetInternal(keyFormat, []byte("0")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	again := openTestIndex(t, dir)
	if again.Checkpoint() != 0 {
		t.Errorf("Checkpoint = %d, want 0 after a format change", again.Checkpoint())
	}
	if n, _ := again.docCount(); n != 0 {
		t.Errorf("docCount = %d, want an empty rebuilt index", n)
	}
}

func TestOptions_Validate(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		ok   bool
	}{
		{"ok", Options{Dir: "x"}, true},
		{"no dir", Options{}, false},
		{"negative slots", Options{Dir: "x", MaxSlots: -1}, false},
		{"too many slots", Options{Dir: "x", MaxSlots: 5000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidOptions)) {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
	if _, err := OpenIndex(context.Background(), Options{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("OpenIndex(no dir) = %v", err)
	}
}
