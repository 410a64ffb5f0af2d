package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a read-only state folder, switching a module and indexing both say
// E_READ_ONLY and change nothing (they used to say E_STORAGE and
// E_UNAVAILABLE, naming a temporary or lock file).
func TestReadOnlyStateFolder_ModuleAndIndexSayReadOnly(t *testing.T) {
	mnt := tmpfs(t, 16<<20)
	dir := filepath.Join(mnt, "state")
	fiveTasks(t, dir)
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remountReadOnly(t, mnt)

	code, _, stderr := run(t, dir, "module", "disable", "tasks")
	if code != ExitError || !strings.Contains(stderr, "E_READ_ONLY") {
		t.Fatalf("module disable: exit %d, stderr %q; want E_READ_ONLY", code, stderr)
	}
	code, _, stderr = run(t, dir, "index", "--no-progress", repo)
	if code != ExitError || !strings.Contains(stderr, "E_READ_ONLY") || !strings.Contains(stderr, dir) {
		t.Fatalf("index: exit %d, stderr %q; want E_READ_ONLY naming the folder", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "subsystems-state.json")); !os.IsNotExist(err) {
		t.Fatalf("the module file exists: %v", err)
	}
}
