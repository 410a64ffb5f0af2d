package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/state"
)

// Empty or stray flag values are refused, never read as "not given":
// `--at ""` used to run a write against the live log, `--salvage ""` ran a
// plain verify, `--json` without --salvage was ignored.
func TestFlags_EmptyValuesAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"call", "--at", "", "cos_task_create", `{"title":"x"}`},
		{"call", "--at", "  ", "cos_task_board", `{}`},
		{"verify", "--salvage", ""},
		{"verify", "--json"},
	} {
		code, _, stderr := run(t, dir, args...)
		if code != ExitUsage || stderr == "" {
			t.Errorf("cos %q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); !os.IsNotExist(err) {
		t.Fatalf("a refused command wrote the log: %v", err)
	}
}

// A salvage that keeps nothing of a log that had events fails, and restore
// refuses a log with no events: together they used to empty the board.
func TestSalvage_NothingKeptFailsAndRestoreRefusesAnEmptyLog(t *testing.T) {
	dir := t.TempDir()
	fiveTasks(t, dir)
	empty := filepath.Join(t.TempDir(), "empty")
	l, err := state.OpenLog(context.Background(), empty, state.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, dir, "restore", filepath.Join(empty, state.LogFile))
	if code != ExitError || !strings.Contains(stderr, "no events") {
		t.Fatalf("restore of an empty log: exit %d, stderr %q", code, stderr)
	}
	if board := callEnv(t, dir, "cos_task_board", `{}`); !board.OK || !strings.Contains(fmt.Sprint(board.Data), "MARKE") {
		t.Fatalf("the board changed: %+v", board)
	}
	// Damage every record: salvage keeps nothing and says so with exit 1.
	for _, m := range []string{"MARKA", "MARKB", "MARKC", "MARKD", "MARKE"} {
		flipMarker(t, dir, m)
	}
	dest := filepath.Join(t.TempDir(), "salvaged.db")
	code, _, stderr = run(t, dir, "verify", "--salvage", dest)
	if code != ExitError || !strings.Contains(stderr, "could be salvaged") {
		t.Fatalf("salvage keeping nothing: exit %d, stderr %q", code, stderr)
	}
}
