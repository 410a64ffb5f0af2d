package indexing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/state"
)

// DefaultElectRetry is how often a process that is not the watcher tries
// the watch lock again (WatchOptions.ElectRetry): a watcher that dies is
// replaced within about this long.
const DefaultElectRetry = 500 * time.Millisecond

// elect blocks until this process holds the state folder's watch lock
// (state.WatchLockFile, a flock released by the kernel when its holder
// dies), trying again every retry. It returns the held lock, or ctx.Err().
// The holder writes its process id into the lock file, for operators.
func (x *Indexer) elect(ctx context.Context, retry time.Duration) (*flock.Flock, error) {
	lock := flock.New(filepath.Join(x.st.Dir(), state.WatchLockFile))
	t := time.NewTicker(retry)
	defer t.Stop()
	logged := false
	for {
		ok, err := lock.TryLock()
		if err != nil {
			return nil, fmt.Errorf("watch lock %s: %w", lock.Path(), err)
		}
		if ok {
			// Best effort: the lock, not this content, decides.
			_ = os.WriteFile(lock.Path(), fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644)
			return lock, nil
		}
		if !logged {
			x.logger.Info("another process watches this state folder's tree; this one takes over if it stops")
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// watchState is what Watching reports of one Indexer.
type watchState struct {
	// mu guards on and root.
	mu   sync.Mutex
	on   bool
	root string
}

// watchStates maps each *Indexer that ever watched to its *watchState
// (kept beside the Indexer so that its struct stays the indexing run's).
var watchStates sync.Map

func (x *Indexer) watchState() *watchState {
	ws, _ := watchStates.LoadOrStore(x, &watchState{})
	return ws.(*watchState)
}

// Watching reports whether this process is the one watching the indexed
// tree (it holds the state folder's watch lock), and the root it watches
// ("" while no tree has been indexed yet).
func (x *Indexer) Watching() (bool, string) {
	ws, ok := watchStates.Load(x)
	if !ok {
		return false, ""
	}
	w := ws.(*watchState)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.on, w.root
}

func (x *Indexer) setWatching(on bool, root string) {
	w := x.watchState()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on, w.root = on, root
}
