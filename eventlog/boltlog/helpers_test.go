package boltlog

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// corrupted holds the paths of the logs a test broke on purpose (see
// markCorrupted); their chain is not checked at cleanup.
var corrupted sync.Map

// markCorrupted tells openTestLog's cleanup that the log at path was
// corrupted on purpose, so its chain is not expected to verify.
func markCorrupted(path string) { corrupted.Store(path, true) }

// openTestLog opens a log in a fresh folder and, at cleanup, closes it and
// checks that the chain on disk verifies (unless the test corrupted it on
// purpose: markCorrupted). It stays here rather than in internal/testutil,
// which imports boltlog and so cannot be imported by package boltlog's
// tests.
func openTestLog(tb testing.TB, opts Options) (*Log, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "events.db")
	l, err := Open(context.Background(), path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			tb.Errorf("Close: %v", err)
			return
		}
		if _, bad := corrupted.LoadAndDelete(path); bad {
			return
		}
		verifyLog(tb, path)
	})
	return l, path
}

// verifyLog reopens the log at path read-only and checks its chain.
func verifyLog(tb testing.TB, path string) {
	tb.Helper()
	ctx := context.Background()
	l, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		tb.Errorf("reopen for verify: %v", err)
		return
	}
	defer l.Close(ctx)
	n, err := l.Verify(ctx)
	if err != nil {
		tb.Errorf("Verify at cleanup: %v", err)
	}
	if hn, herr := l.VerifyHashes(ctx); (herr == nil) != (err == nil) || (err == nil && hn != n) {
		tb.Errorf("VerifyHashes at cleanup = %d, %v; Verify = %d, %v", hn, herr, n, err)
	}
}

func req(stream, typ, data string) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: typ, Data: json.RawMessage(data)}}}
}

func mustAppend(tb testing.TB, l *Log, r eventlog.AppendRequest) eventlog.Receipt {
	tb.Helper()
	rec, err := l.AppendOne(context.Background(), r)
	if err != nil {
		tb.Fatalf("append %+v: %v", r, err)
	}
	return rec
}

func readAll(tb testing.TB, l *Log) []eventlog.Event {
	tb.Helper()
	var evs []eventlog.Event
	if err := l.Read(context.Background(), 0, func(ev eventlog.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return evs
}

func dataN(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }
