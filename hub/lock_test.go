package hub_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cos-dev/cos/hub"
)

// TestLock_OneHubPerFolder: while one Lock is held, TakeLock on the same
// folder returns a *RunningError naming the recorded address and pid;
// Release removes the record and frees the lock.
func TestLock_OneHubPerFolder(t *testing.T) {
	dir := t.TempDir()
	l, err := hub.TakeLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Record("127.0.0.1:7781"); err != nil {
		t.Fatal(err)
	}
	_, err = hub.TakeLock(dir)
	var re *hub.RunningError
	if !errors.As(err, &re) || !errors.Is(err, hub.ErrRunning) {
		t.Fatalf("second TakeLock: %v; want a *RunningError", err)
	}
	want := "a Hub already serves this state folder at http://127.0.0.1:7781/ (pid " + strconv.Itoa(os.Getpid()) + ")"
	if err.Error() != want || re.Info.Started.IsZero() {
		t.Fatalf("got %q (%+v), want %q", err, re.Info, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, hub.InfoFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s after Release: %v", hub.InfoFile, err)
	}
	l2, err := hub.TakeLock(dir)
	if err != nil {
		t.Fatalf("TakeLock after Release: %v", err)
	}
	_ = l2.Release()
}
