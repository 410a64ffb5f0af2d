package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// tieNodes are n functions named Tie in files f000.go…, all scoring alike
// for "Tie".
func tieNodes(n int) []graph.Node {
	out := make([]graph.Node, n)
	for i := range out {
		p := fmt.Sprintf("f%03d.go", i)
		out[i] = graph.Node{UID: "code:function:" + p + "::Tie", Kind: graph.KindFunction, Label: "Tie", Path: p}
	}
	return out
}

// segments returns the number of segments of ix's index.
func segments(tb testing.TB, ix *Index) uint64 {
	tb.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc, err := ix.scorch()
	if err != nil {
		tb.Fatal(err)
	}
	return segmentCount(sc)
}

// Ties at the limit are cut by uid, not by the segment a node landed in:
// nodes indexed last-uid-first, one segment each, still answer the smallest
// uids.
func TestIndex_Search_TiesAtLimitByUID(t *testing.T) {
	ctx := context.Background()
	ix := openTestIndex(t, "")
	nodes := tieNodes(12)
	for i, seq := len(nodes)-1, uint64(1); i >= 0; i, seq = i-1, seq+1 {
		if err := ix.Apply(ctx, nodes[i:i+1], nil, seq); err != nil {
			t.Fatal(err)
		}
	}
	for _, limit := range []int{1, 3, 5} {
		got, err := ix.Search(ctx, "Tie", nil, limit)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range nodes[:limit] {
			want = append(want, n.UID)
		}
		if !slices.Equal(uids(got), want) {
			t.Errorf("Search(Tie, limit %d) = %q, want the smallest uids %q", limit, uids(got), want)
		}
	}
}

// A process that indexed a bulk leaves one segment behind, and the answers
// are the ones the many segments gave.
func TestIndex_Close_MergesAfterBulk(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "search")
	ix, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	nodes := append(synthGraph(CompactMinUpdates, 7), tieNodes(40)...)
	const chunk = 1000
	for i, seq := 0, uint64(1); i < len(nodes); i, seq = i+chunk, seq+1 {
		if err := ix.Apply(ctx, nodes[i:min(i+chunk, len(nodes))], nil, seq); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"Tie", "config", "handler", "parse"}
	before := map[string][]string{}
	for _, q := range queries {
		got, err := ix.Search(ctx, q, nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		before[q] = uids(got)
	}
	if n := segments(t, ix); n < 2 {
		t.Fatalf("%d segments after %d batches, want several (the test needs them)", n, len(nodes)/chunk)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix = openTestIndex(t, dir)
	if n := segments(t, ix); n != 1 {
		t.Errorf("%d segments after Close, want 1", n)
	}
	for _, q := range queries {
		got, err := ix.Search(ctx, q, nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(uids(got), before[q]) {
			t.Errorf("Search(%q) after the merge = %q, before %q", q, uids(got), before[q])
		}
	}
}

// A process that indexed little leaves the merging to scorch.
func TestIndex_Close_SmallRunLeavesSegments(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "search")
	ix, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range tieNodes(3) {
		if err := ix.Apply(ctx, []graph.Node{n}, nil, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if ix.compactOnClose() {
		t.Error("compactOnClose after 3 documents, want false")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestIndex_Compact(t *testing.T) {
	ctx := context.Background()
	ix := openTestIndex(t, "")
	for i, n := range tieNodes(5) {
		if err := ix.Apply(ctx, []graph.Node{n}, nil, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if n := segments(t, ix); n != 1 {
		t.Errorf("%d segments after Compact, want 1", n)
	}
	// The merged segment list is on disk, not only in memory: scorch's
	// Close does not write it, so a Close right after would lose it.
	ix.mu.RLock()
	sc, err := ix.scorch()
	if err != nil {
		t.Fatal(err)
	}
	m := sc.StatsMap()
	ix.mu.RUnlock()
	if root, persisted := m["CurRootEpoch"].(uint64), m["LastPersistedEpoch"].(uint64); persisted < root {
		t.Errorf("after Compact the root epoch %d is not persisted (persisted %d): the merge would not survive Close", root, persisted)
	}
	got, err := ix.Search(ctx, "Tie", nil, 10)
	if err != nil || len(got) != 5 {
		t.Errorf("Search after Compact = %q, %v; want the 5 nodes", uids(got), err)
	}
}

// A limit above firstSearchSize with more hits than the first search holds
// searches again and answers what one search of limit would.
func TestIndex_Search_LimitAboveFirstSearch(t *testing.T) {
	nodes := tieNodes(firstSearchSize + 40)
	ix := indexWith(t, nodes)
	for _, limit := range []int{firstSearchSize - 1, firstSearchSize, firstSearchSize + 1, firstSearchSize + 20, 500} {
		got, err := ix.Search(context.Background(), "Tie", nil, limit)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range nodes[:min(limit, len(nodes))] {
			want = append(want, n.UID)
		}
		if !slices.Equal(uids(got), want) {
			t.Errorf("Search(Tie, limit %d) = %d hits %q…, want the %d smallest uids", limit, len(got), uids(got)[:min(3, len(got))], len(want))
		}
	}
}
