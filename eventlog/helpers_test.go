package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// openTestLog opens a log in a fresh folder and, at cleanup, closes it and
// checks that the chain verifies (unless the test corrupted it on purpose).
func openTestLog(tb testing.TB, opts Options) (*Log, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "events.db")
	l, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return l, path
}

// verifyAtCleanup registers a chain check of the log at path.
func verifyAtCleanup(tb testing.TB, path string) {
	tb.Helper()
	tb.Cleanup(func() {
		l, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			tb.Errorf("reopen for verify: %v", err)
			return
		}
		defer l.Close()
		if _, err := l.Verify(context.Background()); err != nil {
			tb.Errorf("Verify at cleanup: %v", err)
		}
	})
}

func req(stream, typ, data string) AppendRequest {
	return AppendRequest{Stream: stream, Events: []Payload{{Type: typ, Data: json.RawMessage(data)}}}
}

func mustAppend(tb testing.TB, l *Log, r AppendRequest) Receipt {
	tb.Helper()
	rec, err := l.AppendOne(context.Background(), r)
	if err != nil {
		tb.Fatalf("append %+v: %v", r, err)
	}
	return rec
}

func readAll(tb testing.TB, l *Log) []Event {
	tb.Helper()
	var evs []Event
	if err := l.Read(context.Background(), 0, func(ev Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return evs
}

func dataN(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }
