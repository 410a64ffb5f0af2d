package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs the real git binary in a repository of its own, with a HOME of
// its own (the machine's ~/.gitconfig does not leak in) and a fixed author.
type Git struct {
	// Root is the work tree, symbolic links resolved.
	Root string
	// Home is the HOME git runs with: a test may write a .gitconfig there.
	Home string
	tb   testing.TB
}

// GitRepo writes files (path → content) under a new folder, makes it a git
// repository on branch main and commits them all. A test without git on
// PATH is skipped.
func GitRepo(tb testing.TB, files map[string]string) *Git {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not on PATH")
	}
	root := WriteTree(tb, files)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	g := &Git{Root: root, Home: tb.TempDir(), tb: tb}
	g.Run("init", "-q", "-b", "main")
	g.Run("add", "-A")
	g.Run("commit", "-q", "--allow-empty", "-m", "first")
	return g
}

// Env is the environment git runs with.
func (g *Git) Env() []string {
	return append(os.Environ(), "HOME="+g.Home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// Run runs git with args in the work tree and returns its trimmed output;
// a failure fails the test.
func (g *Git) Run(args ...string) string {
	g.tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.Root
	cmd.Env = g.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes content to the work-tree-relative path rel, making folders.
func (g *Git) Write(rel, content string) {
	g.tb.Helper()
	p := filepath.Join(g.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.tb.Fatal(err)
	}
}
