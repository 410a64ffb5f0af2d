package indexing

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// A run with LockWait gives up when another index holds the state
// folder's index lock (another process) or this process's turn, instead
// of waiting for it to finish; without LockWait it waits.
func TestIndexWith_LockWaitGivesUp(t *testing.T) {
	root := testutil.WriteTree(t, testutil.DemoRepo)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	ctx := context.Background()

	other := flock.New(filepath.Join(st.Dir(), state.IndexLockFile))
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	start := time.Now()
	_, err := x.IndexWith(ctx, root, RunOptions{LockWait: 300 * time.Millisecond})
	var ee *envelope.Error
	if !asEnvelope(err, &ee) || ee.Code != envelope.CodeUnavailable {
		t.Fatalf("with the lock held elsewhere: %v, want E_UNAVAILABLE", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Fatalf("gave up after %v, want about 300ms", d)
	}
	if st.Position().Seq != 0 {
		t.Fatalf("a run that gave up appended (head %d)", st.Position().Seq)
	}

	// The turn of this process: held by a run in flight.
	_ = other.Unlock()
	x.turn <- struct{}{}
	_, err = x.IndexWith(ctx, root, RunOptions{LockWait: 100 * time.Millisecond})
	if !asEnvelope(err, &ee) || ee.Code != envelope.CodeUnavailable {
		t.Fatalf("with this process's turn taken: %v, want E_UNAVAILABLE", err)
	}
	// Without LockWait the run waits for its turn.
	done := make(chan error, 1)
	go func() {
		_, err := x.IndexWith(ctx, root, RunOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a run without LockWait did not wait: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	<-x.turn
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func asEnvelope(err error, ee **envelope.Error) bool {
	e, ok := err.(*envelope.Error)
	if ok {
		*ee = e
	}
	return ok
}
