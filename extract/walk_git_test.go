package extract

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/gitfiles"
)

// gitRepo makes a git work tree in a new folder with git isolated from the
// machine's configuration (HOME is a temp folder, with a .gitconfig
// naming home/global-ignore as core.excludesFile) and returns its top and
// a function running git in a folder.
func gitRepo(t *testing.T) (string, func(dir string, args ...string)) {
	t.Helper()
	if gitfiles.Binary() == "" {
		t.Skip("git is not on PATH")
	}
	// The go command that Run starts (go/packages) finds its caches under
	// HOME: keep them where they were, so it does not fill a new build
	// cache in the test's folder.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		t.Setenv(k, strings.TrimSpace(string(out)))
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	// The go command's telemetry writes under the user config folder and
	// may outlive the command: give it a folder whose removal is best
	// effort (git reads ~/.gitconfig whatever this is).
	cfg, err := os.MkdirTemp("", "cos-test-config-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(cfg) })
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "cos test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@cos.invalid")
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	writeFile(t, home, ".gitconfig", []byte("[core]\n\texcludesFile = ~/global-ignore\n"))
	writeFile(t, home, "global-ignore", []byte("global_*.go\n"))
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	root := t.TempDir()
	git(root, "init", "-q")
	return root, git
}

// TestRun_GitFileSet indexes a git work tree holding two linked worktrees
// (.worktrees/b, .claude/worktrees/c): the index holds exactly the files
// git keeps, each declaration once, for the top and for a sub-folder.
func TestRun_GitFileSet(t *testing.T) {
	root, git := gitRepo(t)
	src := []byte("package p\n\n// Hello greets.\nfunc Hello() {}\n")
	py := []byte("def f():\n    return 1\n")
	writeFile(t, root, ".gitignore", []byte("*.log\ncache/*\n!cache/keep.py\nx?.py\n**/gen/*.go\n"))
	writeFile(t, root, "main.go", src)
	writeFile(t, root, "app.log", []byte("log\n"))
	writeFile(t, root, "cache/drop.py", py)
	writeFile(t, root, "cache/keep.py", py)
	writeFile(t, root, "x1.py", py)
	writeFile(t, root, "x10.py", py)
	writeFile(t, root, "src/gen/z.go", []byte("package gen\n"))
	writeFile(t, root, "src/ok.go", []byte("package src\n"))
	writeFile(t, root, "src/.gitignore", []byte("*.tmp.go\n"))
	writeFile(t, root, "src/a.tmp.go", []byte("package src\n"))
	writeFile(t, root, "secret.go", []byte("package p\n"))
	writeFile(t, root, ".git/info/exclude", []byte("secret.go\n"))
	writeFile(t, root, "global_x.go", []byte("package p\n"))
	git(root, "add", ".")
	git(root, "commit", "-qm", "first")
	git(root, "worktree", "add", "-q", ".worktrees/b")
	git(root, "worktree", "add", "-q", ".claude/worktrees/c")
	// Untracked, unignored files in a worktree are still not this tree's.
	writeFile(t, root, ".worktrees/b/extra.go", []byte("package p\n"))

	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"", []string{".gitignore", "cache/keep.py", "main.go", "src/.gitignore", "src/ok.go", "x10.py"}},
		{"src", []string{".gitignore", "ok.go"}},
		{"cache", []string{"keep.py"}},
	} {
		res := index(t, filepath.Join(root, filepath.FromSlash(tc.dir)), Options{}, nil)
		var got []string
		for p := range res.Payloads {
			got = append(got, p)
		}
		sort.Strings(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("index of %q = %q\nwant %q", tc.dir, got, tc.want)
		}
		hellos := 0
		for _, p := range res.Payloads {
			for _, n := range p.Nodes {
				if n.Label == "Hello" {
					hellos++
				}
			}
		}
		if tc.dir == "" && hellos != 1 {
			t.Errorf("index of the top holds Hello %d times, want once (worktrees are not this tree)", hellos)
		}
	}
}

// TestWalk_GitKeepsSkips checks that inside git the excluded folder names,
// symlinks and size limit still apply to files git keeps, and that a
// tracked file ignored by a rule is walked.
func TestWalk_GitKeepsSkips(t *testing.T) {
	root, git := gitRepo(t)
	writeFile(t, root, ".gitignore", []byte("gen/\n"))
	writeFile(t, root, "a.go", []byte("package a\n"))
	writeFile(t, root, "vendor/v.go", []byte("package v\n"))
	writeFile(t, root, ".cos/state.go", []byte("package s\n"))
	writeFile(t, root, "big.txt", []byte(strings.Repeat("x", 100)))
	writeFile(t, root, "gen/tracked.go", []byte("package b\n"))
	writeFile(t, root, "gen/out.go", []byte("package b\n"))
	if err := os.Symlink("a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	git(root, "add", ".")
	git(root, "add", "-f", "gen/tracked.go")
	git(root, "commit", "-qm", "first")
	w, err := walk(t.Context(), root, DefaultExcludeDirs, 50)
	if err != nil {
		t.Fatal(err)
	}
	if w.Git == nil || w.Git.Source != gitfiles.SourceGit {
		t.Fatalf("walk did not use git's file set: %+v", w.Git)
	}
	var got []string
	for _, f := range w.Files {
		got = append(got, f.Rel)
	}
	if want := []string{".gitignore", "a.go", "gen/tracked.go"}; !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	skipped := map[string]string{}
	for _, n := range w.Skipped {
		skipped[n.Path] = n.Reason
	}
	if want := map[string]string{"big.txt": SkipTooLarge, "link.go": SkipSymlink}; !maps.Equal(skipped, want) {
		t.Errorf("skipped = %v, want %v", skipped, want)
	}
}
