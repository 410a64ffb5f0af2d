package boltlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/atomicfile"
	bolt "go.etcd.io/bbolt"
)

// ErrDestExists is returned by Backup and Salvage when the destination file
// already exists: neither ever overwrites a file.
var ErrDestExists = errors.New("destination already exists")

// Backup writes a consistent copy of the log's database to dest, a new file
// (mode 0644), and returns the head it holds. The copy is bbolt's
// Tx.WriteTo inside one read transaction, taken under the shared lock, so
// writers of every process wait for it and none is lost or half-copied:
// the copy is the log as it was at one commit. It is written to
// dest+".tmp", fsynced, renamed to dest and the folder fsynced, so dest is
// either absent or complete.
//
// Backup does not verify the chain (a damaged log is copied as it is; run
// Verify on the copy). Errors: ErrDestExists, an empty log (no file yet) is
// an error naming the path, *eventlog.StorageError, ctx's error.
func (l *Log) Backup(ctx context.Context, dest string) (eventlog.Head, error) {
	if _, err := os.Lstat(dest); err == nil {
		return eventlog.Head{}, fmt.Errorf("%w: %s", ErrDestExists, dest)
	}
	if _, err := os.Stat(l.path); errors.Is(err, os.ErrNotExist) {
		return eventlog.Head{}, fmt.Errorf("no event log at %s to back up", l.path)
	}
	var head eventlog.Head
	err := writeFileAtomic(dest, func(f *os.File) error {
		return l.view(ctx, func(tx *bolt.Tx) error {
			if meta := tx.Bucket(bucketMeta); meta != nil {
				head = readMetaHead(meta)
			}
			_, err := tx.WriteTo(f)
			return err
		})
	})
	if err != nil {
		var se *eventlog.StorageError
		if errors.As(err, &se) || errors.Is(err, ctx.Err()) {
			return eventlog.Head{}, err
		}
		return eventlog.Head{}, &eventlog.StorageError{Op: "back up to " + dest, Path: l.path, Err: err}
	}
	return head, nil
}

// writeFileAtomic creates path+".tmp" exclusively, lets write fill it, and
// then fsyncs it, renames it to path and fsyncs the folder. On any failure
// the temporary file is removed and path is untouched.
func writeFileAtomic(path string, write func(f *os.File) error) (err error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%w: %s", ErrDestExists, path)
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}
