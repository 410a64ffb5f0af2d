package testutil

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog/boltlog"
)

// closeTimeout bounds Close at cleanup: a committer that does not stop
// fails the test instead of hanging it.
const closeTimeout = 30 * time.Second

// OpenLog opens a new bbolt event log, "events.db" in a fresh temporary
// folder, with opts. At cleanup it closes the log, reopens the file
// read-only and verifies the whole hash chain, failing tb when either does
// not succeed.
func OpenLog(tb testing.TB, opts boltlog.Options) *boltlog.Log {
	tb.Helper()
	return OpenLogAt(tb, filepath.Join(tb.TempDir(), "events.db"), opts)
}

// OpenLogAt is OpenLog at path, creating its folder when needed. Opening a
// path again gives another handle on the same log, each closed and
// verified at cleanup.
func OpenLogAt(tb testing.TB, path string, opts boltlog.Options) *boltlog.Log {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	l, err := boltlog.Open(context.Background(), path, opts)
	if err != nil {
		tb.Fatalf("open event log: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			tb.Errorf("close event log: %v", err)
			return
		}
		VerifyLog(tb, path)
	})
	return l
}

// VerifyLog opens the log at path read-only and verifies its hash chain,
// failing tb when it does not verify.
func VerifyLog(tb testing.TB, path string) {
	tb.Helper()
	ctx := context.Background()
	l, err := boltlog.Open(ctx, path, boltlog.Options{ReadOnly: true})
	if err != nil {
		tb.Errorf("open %s read-only to verify: %v", path, err)
		return
	}
	defer l.Close(ctx)
	if _, err := l.Verify(ctx); err != nil {
		tb.Errorf("verify %s: %v", path, err)
	}
}
