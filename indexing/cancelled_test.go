package indexing

import (
	"context"
	"errors"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

// A run its caller cancels is recorded as cancelled, not failed: health
// says so, and the next run finishes what it left.
func TestIndexer_CancelledRunIsNotAFailure(t *testing.T) {
	root := writeDocs(t, 600) // more than one batch
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	ctx, cancel := context.WithCancel(context.Background())
	x.afterBatch = cancel // cancel once the first batch is committed
	rep, err := x.index(ctx, root, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want context.Canceled", err)
	}
	x.afterBatch = nil
	if err := st.WaitFor(context.Background(), rep.LastSeq); err != nil {
		t.Fatal(err)
	}
	h := health(t, st.Dir())
	if h.LastIndex == nil || h.LastIndex.State != state.IndexCancelled || h.LastIndex.Error != graph.IndexCancelled {
		t.Fatalf("last index after a cancel: %+v, want state %q", h.LastIndex, state.IndexCancelled)
	}
	again, err := x.index(context.Background(), root, nil)
	if err != nil || again.FilesChanged == 0 || again.FilesChanged >= 600 {
		t.Fatalf("the next run: %+v %v, want it to extract what the cancelled one left", again, err)
	}
}
