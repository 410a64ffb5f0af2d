package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// TestGraphChanges_NoCommitYet: in a repository without a commit the
// default base HEAD is the empty tree — every file is added — rather than
// an argument error about a base the caller never gave.
func TestGraphChanges_NoCommitYet(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	root := testutil.WriteTree(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"})
	root, _ = filepath.EvalSymlinks(root)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, fmt.Sprintf(`{"path": %q}`, root))
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n\nfunc B() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{}`, `{"base": "HEAD"}`} {
		got := changesCall(t, s, args).changes()
		if got["code:function:a.go::A"] != "added" || got["code:function:b.go::B"] != "added" {
			t.Errorf("%s: changes %v, want A and B added", args, got)
		}
	}
}
