package store

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
)

// Backup writes a consistent copy of the log file at path to dest and
// returns where it wrote (dest, or a file in it) and the head the copy
// holds. It is safe while servers write: the copy is one read transaction
// taken under the log's shared lock, so writers wait for it (none is lost)
// and the copy is the log at one commit (boltlog.Log.Backup). When dest is
// an existing folder the copy goes into it as events-<UTC time, ms>.db.
// Errors: ErrDestExists, no log at path, the log's storage errors, ctx's
// error.
func Backup(ctx context.Context, path, dest string) (string, eventlog.Head, error) {
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		dest = filepath.Join(dest, "events-"+time.Now().UTC().Format("20060102T150405.000Z")+".db")
	}
	l, err := openFileReadOnly(ctx, path)
	if err != nil {
		return dest, eventlog.Head{}, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	h, err := l.Backup(ctx, dest)
	return dest, h, err
}

// VerifyFile walks the hash chain of the log file at path (a backup, a
// salvaged log) and returns its event count, or eventlog.ErrIntegrity.
// A missing file is the *fs.PathError of os.Stat.
func VerifyFile(ctx context.Context, path string) (uint64, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, err
	}
	l, err := openFileReadOnly(ctx, path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	return l.Verify(ctx)
}

func openFileReadOnly(ctx context.Context, path string) (*boltlog.Log, error) {
	return boltlog.Open(ctx, path, boltlog.Options{ReadOnly: true})
}
