package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateFolder_NeverShowsInGitStatus: every command that creates the
// default state folder (./.cos) inside a git checkout leaves `git status`
// clean, because the folder gets its own .gitignore.
func TestStateFolder_NeverShowsInGitStatus(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for name, args := range map[string][]string{
		"log append": {"log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"},
		"call":       {"call", "cos_task_create", `{"title":"t"}`},
		"module":     {"module", "disable", "metrics"},
	} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q")
			cmd := cosProcess(t, args...)
			cmd.Dir = repo
			cmd.Env = append(cmd.Env, "COS_STATE_DIR=")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("cos %v: %v\n%s", args, err, out)
			}
			if _, err := os.Stat(filepath.Join(repo, ".cos")); err != nil {
				t.Fatalf("no ./.cos created: %v", err)
			}
			if st := git("status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "" {
				t.Fatalf("git status shows the state folder:\n%s", st)
			}
		})
	}
}

// TestStateFolder_ExistingGitignoreKept: a .gitignore the user wrote in an
// existing state folder is never overwritten.
func TestStateFolder_ExistingGitignoreKept(t *testing.T) {
	dir := t.TempDir()
	mine := "# mine\nevents.db\n"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, dir, "log", "append", "--stream", "s", "--type", "a.b", "--data", "{}"); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != mine {
		t.Fatalf(".gitignore rewritten: %q", b)
	}
}
