package boltlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"golang.org/x/sys/unix"
)

// fileLock is the cross-process lock of one log: an flock on "<db>.lock",
// exclusive for a write transaction, shared for a read that opens the file.
// Waiters block in the kernel and are woken as soon as the holder lets go,
// unlike bbolt's own lock, which polls every 50 ms (docs/storage.md,
// "events.db").
//
// flock locks belong to an open file description, so goroutines of one
// process exclude each other exactly as processes do as long as each holder
// uses its own descriptor: the committer keeps one descriptor for the life of
// the Log (saving an open and a close per transaction); every read opens its
// own.
type fileLock struct {
	path string
}

// open opens the lock file, creating it when allowed.
func (l fileLock) open() (*os.File, error) {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS) {
		f, err = os.Open(l.path) // a read-only state folder: shared locks still work
	}
	if err != nil {
		return nil, &eventlog.StorageError{Op: "open lock file", Path: l.path, Err: err}
	}
	return f, nil
}

// flock applies how (LOCK_EX, LOCK_SH, LOCK_UN) to f, retrying on EINTR.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// lockWith takes the lock on an already open descriptor and returns its
// release. It blocks until the lock is free; ctx is checked before blocking.
func (l fileLock) lockWith(ctx context.Context, f *os.File, exclusive bool) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if err := flock(f, how); err != nil {
		return nil, &eventlog.StorageError{Op: "lock", Path: l.path, Err: fmt.Errorf("flock: %w", err)}
	}
	return func() { _ = flock(f, unix.LOCK_UN) }, nil
}

// lockPollMax is the longest pause between two tries of lockWait.
const lockPollMax = 20 * time.Millisecond

// lockWait is lockWith for a wait that ctx must be able to end, as Open's:
// a blocking flock cannot be interrupted, so while ctx can end it tries
// without blocking and polls, from 100µs up to lockPollMax between tries. A
// ctx that can never end blocks in the kernel as lockWith does.
func (l fileLock) lockWait(ctx context.Context, f *os.File, exclusive bool) (func(), error) {
	if ctx.Done() == nil {
		return l.lockWith(ctx, f, exclusive)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	pause := 100 * time.Microsecond
	for {
		err := flock(f, how|unix.LOCK_NB)
		if err == nil {
			return func() { _ = flock(f, unix.LOCK_UN) }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &eventlog.StorageError{Op: "lock", Path: l.path, Err: fmt.Errorf("flock: %w", err)}
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, lockPollMax)
	}
}

// lock opens a descriptor of its own, takes the lock, and returns a release
// that unlocks and closes it.
func (l fileLock) lock(ctx context.Context, exclusive bool) (func(), error) {
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	release, err := l.lockWith(ctx, f, exclusive)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { release(); f.Close() }, nil
}
