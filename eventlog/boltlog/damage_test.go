package boltlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// truncatedCopies builds a log of n events, closes it and returns copies of
// its file cut at each fraction of its size (and in the middle of a page),
// keyed by a name for the subtest.
func truncatedCopies(t *testing.T, n int) (full string, cuts map[string]string) {
	t.Helper()
	l, path := openTestLog(t, Options{})
	for i := range n {
		mustAppend(t, l, req("s", "test.added", fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 200))))
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cuts = map[string]string{}
	for name, size := range map[string]int{
		"10pct":   len(raw) / 10,
		"50pct":   len(raw) / 2,
		"90pct":   len(raw) * 9 / 10,
		"midpage": len(raw)/2 + 4096/2 + 7,
		"onepage": 4096 + 100,
	} {
		p := filepath.Join(dir, name, "events.db")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw[:size], 0o644); err != nil {
			t.Fatal(err)
		}
		if hint, err := os.ReadFile(path + ".head"); err == nil {
			_ = os.WriteFile(p+".head", hint, 0o644)
		}
		cuts[name] = p
	}
	return path, cuts
}

// wantDamaged checks that err is a storage error naming the file as
// damaged, never a panic.
func wantDamaged(t *testing.T, what string, err error, path string) {
	t.Helper()
	var se *eventlog.StorageError
	if !errors.Is(err, ErrDamaged) || !errors.As(err, &se) {
		t.Fatalf("%s: got %v, want a *eventlog.StorageError wrapping ErrDamaged", what, err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "cos verify --salvage") {
		t.Errorf("%s: message %q does not name the file and the way back", what, msg)
	}
}

func TestOpen_TruncatedFile(t *testing.T) {
	ctx := context.Background()
	_, cuts := truncatedCopies(t, 600)
	for name, path := range cuts {
		t.Run(name, func(t *testing.T) {
			info, _ := os.Stat(path)
			hwm, err := fileHighWater(path)
			if err == nil && info.Size() >= hwm {
				t.Skipf("cut at %d keeps every page (high-water mark %d)", info.Size(), hwm)
			}
			// A writer refuses to open it.
			if l, err := Open(ctx, path, Options{}); err == nil {
				_ = l.Close(ctx)
				t.Fatal("read-write Open of a truncated file succeeded")
			} else {
				wantDamaged(t, "Open", err, path)
			}
			// A reader opens it (so that Salvage can read what is left) and
			// every call says it is damaged; Head falls back to the
			// database without the head file.
			_ = os.Remove(path + ".head")
			l, err := Open(ctx, path, Options{ReadOnly: true})
			if err != nil {
				wantDamaged(t, "Open read-only", err, path)
				return
			}
			defer l.Close(ctx)
			_, err = l.Verify(ctx)
			wantDamaged(t, "Verify", err, path)
			err = l.Read(ctx, 1, func(eventlog.Event) error { return nil })
			wantDamaged(t, "Read", err, path)
			_, err = l.Head(ctx)
			wantDamaged(t, "Head", err, path)
			_, err = l.Backup(ctx, path+".bak")
			wantDamaged(t, "Backup", err, path)
		})
	}
}

func TestSalvage_TruncatedFile(t *testing.T) {
	ctx := context.Background()
	_, cuts := truncatedCopies(t, 600)
	lostSome := false
	for name, path := range cuts {
		t.Run(name, func(t *testing.T) {
			l, err := Open(ctx, path, Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("Open read-only: %v", err)
			}
			defer l.Close(ctx)
			dest := filepath.Join(t.TempDir(), "salvaged.db")
			rep, err := l.Salvage(ctx, dest)
			if name == "onepage" {
				// Too little is left for bbolt to open: said so, no panic.
				wantDamaged(t, "Salvage", err, path)
				return
			}
			if err != nil {
				t.Fatalf("Salvage: %v", err)
			}
			if rep.Kept+uint64(len(rep.Lost)) != 600 {
				t.Fatalf("kept %d + lost %d, want 600 examined", rep.Kept, len(rep.Lost))
			}
			lostSome = lostSome || len(rep.Lost) > 0
			t.Logf("kept %d, lost %d", rep.Kept, len(rep.Lost))
			verifyLog(t, dest)
		})
	}
	if !lostSome {
		t.Error("no cut lost an event: the test does not exercise a lost page")
	}
}
