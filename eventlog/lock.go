package eventlog

import (
	"context"
	"fmt"

	"github.com/gofrs/flock"
)

// fileLock is the cross-process lock of one log: an flock on "<db>.lock",
// exclusive for a write transaction, shared for a read that opens the file.
// Waiters block in the kernel and are woken as soon as the holder lets go,
// unlike bbolt's own lock, which polls every 50 ms (DESIGN.md §3).
//
// Each acquisition opens its own descriptor, so goroutines of one process
// exclude each other exactly as processes do.
type fileLock struct {
	path string
}

// lock takes the lock (exclusive or shared) and returns its release. It
// blocks until the lock is free; ctx is checked before blocking.
func (l fileLock) lock(ctx context.Context, exclusive bool) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fl := flock.New(l.path)
	var err error
	if exclusive {
		err = fl.Lock()
	} else {
		err = fl.RLock()
	}
	if err != nil {
		return nil, &StorageError{Op: "lock", Path: l.path, Err: fmt.Errorf("flock: %w", err)}
	}
	return func() { _ = fl.Unlock() }, nil
}
