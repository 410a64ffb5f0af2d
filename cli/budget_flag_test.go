package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBudgetFlag_NegativeIsUsageErrorBeforeOpening: --budget-chars is
// checked before the state folder is opened, so cos call writes nothing
// (a retry cannot duplicate a task) and cos serve does not start.
func TestBudgetFlag_NegativeIsUsageErrorBeforeOpening(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"call write", []string{"call", "--budget-chars", "-1", "cos_task_create", `{"title":"x"}`}},
		{"call read", []string{"call", "--budget-chars=-40", "cos_health"}},
		{"serve", []string{"serve", "--nats", "off", "--budget-chars", "-1"}},
		{"index", []string{"index", "--budget-chars", "-1", "."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			code, out, errs := run(t, dir, tc.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d (usage); stdout %q stderr %q", code, ExitUsage, out, errs)
			}
			val := "-1"
			if tc.name == "call read" {
				val = "-40"
			}
			for _, want := range []string{"--budget-chars " + val, "0 (the default, 32000)", "a positive number of characters"} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q lacks %q", errs, want)
				}
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the state folder was opened (stat: %v)", err)
			}
		})
	}
	// A legal budget still works, and writes exactly once.
	dir := t.TempDir()
	if code, out, errs := run(t, dir, "call", "--nats", "off", "--budget-chars", "500", "cos_task_create", `{"title":"x"}`); code != ExitOK {
		t.Fatalf("--budget-chars 500: exit %d %s %s", code, out, errs)
	}
}
