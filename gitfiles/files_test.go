package gitfiles

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// isolateGit points git at a HOME of the test's own with no system
// configuration, so the machine's ~/.gitconfig does not leak in, and
// gives commits an identity. It returns the HOME.
func isolateGit(t testing.TB) string {
	t.Helper()
	if Binary() == "" {
		t.Skip("git is not on PATH")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "") // restored after the test
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "cos test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@cos.invalid")
	}
	return home
}

// run runs git in dir and fails the test on error.
func run(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// write creates the file rel below dir with its folders.
func write(t testing.TB, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ignoreRow is one path of the fixture and whether git keeps it.
type ignoreRow struct {
	path string // relative to the repository's top
	kept bool
	why  string
}

// ignoreTable is every file of the fixture repository built by
// makeIgnoreRepo (folders listed are where nothing may be kept).
var ignoreTable = []ignoreRow{
	{".gitignore", true, "root ignore file"},
	{".gitmodules", true, "written by git submodule add"},
	{"keep.go", true, "no rule"},
	{"link.go", true, "a symbolic link is kept (the walk skips it)"},
	{"a.log", false, "root ignore *.log"},
	{"deep/er/b.log", false, "root ignore *.log at any depth"},
	{"cache/drop.py", false, "cache/*"},
	{"cache/keep.py", true, "negation !cache/keep.py re-includes"},
	{"x1.py", false, "x?.py matches x1.py"},
	{"x10.py", true, "x?.py does not match x10.py"},
	{"src/gen/z.go", false, "**/gen/*.go"},
	{"gen/top.go", false, "**/gen/*.go matches at the top"},
	{"src/gen/z.txt", true, "**/gen/*.go does not match .txt"},
	{"build/out.txt", false, "build/"},
	{"build/tracked.txt", true, "tracked although build/ is ignored"},
	{"gone.go", true, "tracked, deleted from disk: git still tracks it"},
	{"sub/.gitignore", true, "nested ignore file"},
	{"sub/a.tmp", false, "nested ignore *.tmp"},
	{"sub/b.go", true, "no rule"},
	{"other/c.tmp", true, "the nested rule applies below sub/ only"},
	{"secret.txt", false, ".git/info/exclude"},
	{"sub/secret.txt", false, ".git/info/exclude at any depth"},
	{"x.bak", false, "core.excludesFile"},
	{"nested/n.go", false, "nested repository is a boundary"},
	{"sm/s.go", false, "submodule is a boundary"},
	{"sm", false, "the submodule's gitlink is not a file"},
	{".worktrees/b/keep.go", false, "linked worktree is a boundary"},
	{".claude/worktrees/c/keep.go", false, "linked worktree is a boundary"},
}

// makeIgnoreRepo builds the fixture of ignoreTable in a new repository
// and returns its top.
func makeIgnoreRepo(t testing.TB) string {
	t.Helper()
	home := isolateGit(t)
	write(t, home, ".gitconfig", "[core]\n\texcludesFile = ~/global-ignore\n")
	write(t, home, "global-ignore", "*.bak\n")

	base := t.TempDir()
	other := filepath.Join(base, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, other, "init", "-q")
	write(t, other, "s.go", "package s\n")
	run(t, other, "add", ".")
	run(t, other, "commit", "-qm", "s")

	top := filepath.Join(base, "r")
	if err := os.MkdirAll(top, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, top, "init", "-q")
	write(t, top, ".gitignore", "*.log\ncache/*\n!cache/keep.py\nx?.py\n**/gen/*.go\nbuild/\n")
	write(t, top, "sub/.gitignore", "*.tmp\n")
	write(t, top, ".git/info/exclude", "secret.txt\n")
	for _, r := range ignoreTable {
		switch r.path {
		case ".gitignore", "sub/.gitignore", ".gitmodules", "link.go", "sm", "sm/s.go", "nested/n.go":
			continue
		case ".worktrees/b/keep.go", ".claude/worktrees/c/keep.go":
			continue
		}
		write(t, top, r.path, "package x\n")
	}
	if err := os.Symlink("keep.go", filepath.Join(top, "link.go")); err != nil {
		t.Fatal(err)
	}
	run(t, top, "add", ".")
	run(t, top, "add", "-f", "build/tracked.txt")
	run(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", other, "sm")
	run(t, top, "commit", "-qm", "fixture")
	if err := os.Remove(filepath.Join(top, "gone.go")); err != nil {
		t.Fatal(err)
	}
	run(t, top, "worktree", "add", "-q", ".worktrees/b")
	run(t, top, "worktree", "add", "-q", ".claude/worktrees/c")
	write(t, top, ".worktrees/b/secret.txt", "info/exclude of the common folder\n")
	write(t, top, ".worktrees/b/untracked.go", "package x\n")
	write(t, top, "nested/n.go", "package n\n")
	run(t, filepath.Join(top, "nested"), "init", "-q")
	return top
}

// backends are the two implementations every table runs against.
var backends = []struct {
	name string
	opts []Option
}{
	{SourceGit, nil},
	{SourceGoGit, []Option{withGoGit()}},
}

// wantBelow is the kept paths of ignoreTable below folder prefix ("" for
// the top), relative to it.
func wantBelow(prefix string) []string {
	var want []string
	for _, r := range ignoreTable {
		if !r.kept {
			continue
		}
		if prefix == "" {
			want = append(want, r.path)
		} else if rest, ok := strings.CutPrefix(r.path, prefix+"/"); ok {
			want = append(want, rest)
		}
	}
	sort.Strings(want)
	return want
}

func TestLoad_IgnoreTable(t *testing.T) {
	top := makeIgnoreRepo(t)
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s, err := Load(ctx, top, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if s.Source != b.name || s.Prefix != "" {
				t.Errorf("Source, Prefix = %q, %q; want %q, %q", s.Source, s.Prefix, b.name, "")
			}
			for _, r := range ignoreTable {
				if got := s.Has(r.path); got != r.kept {
					t.Errorf("Has(%q) = %v, want %v (%s)", r.path, got, r.kept, r.why)
				}
			}
			if got, want := s.files, wantBelow(""); !slices.Equal(got, want) {
				t.Errorf("Files = %q\nwant    %q", got, want)
			}
			for _, d := range []struct {
				dir  string
				want bool
			}{{"", true}, {"sub", true}, {"cache", true}, {"build", true}, {"src/gen", true},
				{"nested", false}, {"sm", false}, {".worktrees", false}, {".worktrees/b", false}, {".claude", false}, {"deep", false}, {"gen", false}} {
				if got := s.HasDir(d.dir); got != d.want {
					t.Errorf("HasDir(%q) = %v, want %v", d.dir, got, d.want)
				}
			}
		})
	}
}

// TestLoad_SubFolder lists sub-folders: the root's rules and info/exclude
// apply there as in the whole tree.
func TestLoad_SubFolder(t *testing.T) {
	top := makeIgnoreRepo(t)
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, sub := range []string{"sub", "src", "cache", "build", "src/gen"} {
				s, err := Load(ctx, filepath.Join(top, filepath.FromSlash(sub)), b.opts...)
				if err != nil {
					t.Fatal(err)
				}
				if s.Prefix != sub {
					t.Errorf("%s: Prefix = %q", sub, s.Prefix)
				}
				if got, want := s.files, wantBelow(sub); !slices.Equal(got, want) {
					t.Errorf("%s: Files = %q\nwant    %q", sub, got, want)
				}
			}
		})
	}
}

// TestLoad_LinkedWorktree lists a linked worktree as its own work tree:
// its index (the tracked-but-ignored file), the common info/exclude.
func TestLoad_LinkedWorktree(t *testing.T) {
	top := makeIgnoreRepo(t)
	wt := filepath.Join(top, ".worktrees", "b")
	ctx := context.Background()
	var answers [][]string
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s, err := Load(ctx, wt, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range map[string]bool{"untracked.go": true, "secret.txt": false, "build/tracked.txt": true, "keep.go": true, "gone.go": true, "sm": false} {
				if got := s.Has(p); got != want {
					t.Errorf("Has(%q) = %v, want %v", p, got, want)
				}
			}
			answers = append(answers, s.files)
		})
	}
	if len(answers) == 2 && !slices.Equal(answers[0], answers[1]) {
		t.Errorf("backends differ:\ngit    %q\ngo-git %q", answers[0], answers[1])
	}
}

func TestKeep_IgnoreTable(t *testing.T) {
	top := makeIgnoreRepo(t)
	ctx := context.Background()
	var rels []string
	for _, r := range ignoreTable {
		rels = append(rels, r.path)
	}
	rels = append(rels, "nosuch.go", "cache", "sub/", "./deep", "nested", ".worktrees/b")
	want := wantBelow("")
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			got, err := Keep(ctx, top, rels, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Keep = %q\nwant   %q", got, want)
			}
			got, err = Keep(ctx, filepath.Join(top, "sub"), []string{"a.tmp", "b.go", "secret.txt", "."}, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{".gitignore", "b.go"}; !slices.Equal(got, want) {
				t.Errorf("Keep in sub = %q, want %q", got, want)
			}
			for _, bad := range []string{"../x", "/etc/passwd", "a/../../x"} {
				if _, err := Keep(ctx, top, []string{"keep.go", bad}, b.opts...); !errors.Is(err, ErrOutside) {
					t.Errorf("Keep(%q) err = %v, want ErrOutside", bad, err)
				}
			}
		})
	}
}

// TestKeep_Batches asks about more paths than one git command line takes.
func TestKeep_Batches(t *testing.T) {
	top := makeIgnoreRepo(t)
	rels := []string{"keep.go"}
	long := strings.Repeat("d", 200)
	for i := 0; len(rels)*200 < 3*maxPathspecBytes; i++ {
		rels = append(rels, long+"/"+strings.Repeat("f", i%50+1))
	}
	rels = append(rels, "sub/b.go")
	got, err := Keep(context.Background(), top, rels)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"keep.go", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("Keep = %q, want %q", got, want)
	}
}

func TestLoad_NotWorkTree(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	top := filepath.Join(dir, "r")
	if err := os.MkdirAll(top, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, top, "init", "-q")
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, d := range []string{dir, filepath.Join(top, ".git"), filepath.Join(top, ".git", "objects")} {
				if _, err := Load(context.Background(), d, b.opts...); !errors.Is(err, ErrNotWorkTree) {
					t.Errorf("Load(%s) err = %v, want ErrNotWorkTree", d, err)
				}
				if _, err := Keep(context.Background(), d, []string{"x"}, b.opts...); !errors.Is(err, ErrNotWorkTree) {
					t.Errorf("Keep(%s) err = %v, want ErrNotWorkTree", d, err)
				}
			}
			s, err := Load(context.Background(), top, b.opts...)
			if err != nil || s.Len() != 0 {
				t.Errorf("empty repository: Load = %v, %v; want no files", s, err)
			}
		})
	}
}

// TestParseLsFiles covers the records git prints: tracked entries with
// their mode (a gitlink dropped), untracked files, nested repositories.
func TestParseLsFiles(t *testing.T) {
	out := "nested/\x00u.go\x00100644 397b4a7624e35fa60563a9c03b1213d93f7b6546 0\ta b\tc.go\x00" +
		"160000 1f8cc21341e66acbde867840aea778680c602dfc 0\tsm\x00120000 1f8cc21341e66acbde867840aea778680c602dfc 0\tlink\x00" +
		"100644 1f8cc21341e66acbde867840aea778680c602dfc 2\tconflict.go\x00100644 1f8cc21341e66acbde867840aea778680c602dfc 3\tconflict.go\x00"
	got := parseLsFiles([]byte(out))
	want := []string{"u.go", "a b\tc.go", "link", "conflict.go", "conflict.go"}
	if !slices.Equal(got, want) {
		t.Errorf("parseLsFiles = %q, want %q", got, want)
	}
}

// FuzzParseLsFiles: any output parses without panicking, into non-empty
// paths.
func FuzzParseLsFiles(f *testing.F) {
	f.Add([]byte("nested/\x00u.go\x00100644 397b4a7624e35fa60563a9c03b1213d93f7b6546 0\ta.go\x00"))
	f.Add([]byte("160000 1f8cc21341e66acbde867840aea778680c602dfc 0\tsm\x00"))
	f.Add([]byte("\x00\x00x"))
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, p := range parseLsFiles(out) {
			if p == "" {
				t.Errorf("path %q", p)
			}
		}
	})
}

// BenchmarkLoad lists the fixture repository with each backend: the fixed
// cost a walk pays inside a work tree.
func BenchmarkLoad(b *testing.B) {
	top := makeIgnoreRepo(b)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Load(context.Background(), top, be.opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
