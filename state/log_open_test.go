package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
)

// A read of a state folder that does not exist names the folder
// (E_NOT_FOUND) instead of failing on a lock file, and creates nothing.
func TestOpenLog_ReadOfAMissingFolderIsNotFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	_, err := OpenLog(context.Background(), dir, LogOptions{ReadOnly: true})
	var ee *envelope.Error
	if !errors.As(err, &ee) || ee.Code != envelope.CodeNotFound || !strings.Contains(ee.Message, dir) {
		t.Fatalf("OpenLog(read-only, missing folder) = %v; want E_NOT_FOUND naming %s", err, dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read of a missing folder created it (%v)", err)
	}
	// A folder without a log still reads as an empty log.
	empty := t.TempDir()
	l, err := OpenLog(context.Background(), empty, LogOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("OpenLog(read-only, folder without a log) = %v; want an empty log", err)
	}
	if h, err := l.Head(context.Background()); err != nil || h.Seq != 0 {
		t.Errorf("head of a folder without a log = %v, %v; want 0", h, err)
	}
	_ = l.Close(context.Background())
}

// A first open that fails (here: no NATS server answers) leaves no state
// folder behind; a folder that existed is kept.
func TestOpenLog_FailedFirstOpenLeavesNoFolder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "new")
	if _, err := OpenLog(ctx, dir, LogOptions{Store: "nats://127.0.0.1:1/COS"}); err == nil {
		t.Fatal("OpenLog of an unreachable NATS store succeeded")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed first open left the state folder %s (%v)", dir, err)
	}
	// A read of an unreachable store does not create the folder either.
	if _, err := OpenLog(ctx, dir, LogOptions{ReadOnly: true, Store: "nats://127.0.0.1:1/COS"}); err == nil {
		t.Fatal("OpenLog of an unreachable NATS store succeeded")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed read-only open created the state folder %s (%v)", dir, err)
	}
	kept := t.TempDir()
	if err := os.WriteFile(filepath.Join(kept, "mine"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(ctx, kept, LogOptions{Store: "nats://127.0.0.1:1/COS"}); err == nil {
		t.Fatal("OpenLog of an unreachable NATS store succeeded")
	}
	if _, err := os.Stat(filepath.Join(kept, "mine")); err != nil {
		t.Errorf("a failed open removed a file of a folder that existed: %v", err)
	}
}
