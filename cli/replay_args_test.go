package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --dump or --stream that would be ignored, or read as "no value", is a
// usage error that names what fits; nothing is printed on stdout.
func TestReplay_RefusesADumpItCannotRestrict(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "call", "cos_task_create", `{"title":"t"}`); code != 0 {
		t.Fatalf("create: %s", errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dump", ""}, "leave --dump out"},
		{[]string{"--stream", ""}, "leave --stream out"},
		{[]string{"--stream", "task:TASK-001", "--dump", "graph"}, "the graph is the whole log's"},
		{[]string{"--stream", "task:TASK-001", "--dump", "nodes"}, "the graph is the whole log's"},
		{[]string{"--stream", "evidence:S1", "--dump", "tasks"}, "want a task stream"},
		{[]string{"--stream", "task:TASK-001", "--dump", "evidence"}, "want an evidence stream"},
	} {
		args := append([]string{"replay", "--until", "99"}, c.args...)
		code, out, errs := run(t, dir, args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q = exit %d, out %q, err %q; want exit %d naming %q", args, code, out, errs, ExitUsage, c.want)
		}
	}
	// What fits still answers.
	for _, args := range [][]string{
		{"replay", "--until", "99", "--stream", "task:TASK-001", "--dump", "tasks"},
		{"replay", "--until", "99", "--stream", "task:TASK-001"},
	} {
		if code, out, errs := run(t, dir, args...); code != 0 || !strings.Contains(out, "TASK-001") && !strings.Contains(out, "task:TASK-001") {
			t.Errorf("%q = exit %d, %q %q", args, code, out, errs)
		}
	}
}

// cos backup of a state folder without a log says so (E_NOT_FOUND), not
// an internal error, and creates nothing.
func TestBackup_NoLogIsNotFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	dest := filepath.Join(t.TempDir(), "b.db")
	code, _, errs := run(t, dir, "backup", dest)
	if code != ExitError || !strings.Contains(errs, "E_NOT_FOUND") {
		t.Errorf("backup of a missing log = exit %d, %q; want E_NOT_FOUND", code, errs)
	}
	for _, p := range []string{dir, dest} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("backup of a missing log created %s (%v)", p, err)
		}
	}
}
