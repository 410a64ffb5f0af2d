package gitfiles

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// diffRepo is a git repository in a temporary folder, with HOME and the
// system config kept out so the machine's settings do not leak in.
type diffRepo struct {
	t   testing.TB
	dir string
}

func newDiffRepo(t testing.TB) *diffRepo {
	t.Helper()
	if Binary() == "" {
		t.Skip("git is not on PATH")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "cos test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "test@example.com")
	}
	r := &diffRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *diffRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *diffRepo) write(p, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *diffRepo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// numbered is n lines "prefix 1" … "prefix n".
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(prefix)
		b.WriteString(" ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func byPath(t *testing.T, changes []FileChange) map[string]FileChange {
	t.Helper()
	m := map[string]FileChange{}
	for _, c := range changes {
		if _, dup := m[c.Path()]; dup {
			t.Fatalf("path %q listed twice: %+v", c.Path(), changes)
		}
		m[c.Path()] = c
	}
	return m
}

func TestDiff_RealGit(t *testing.T) {
	r := newDiffRepo(t)
	ctx := context.Background()
	lines := strings.Split(numbered("line", 20), "\n")
	r.write("mod.txt", strings.Join(lines, "\n"))
	r.write("gone.txt", "a\nb\n")
	r.write("old name.txt", numbered("keep", 30))
	r.write("mode.sh", "echo hi\n")
	r.write("noeol.txt", "one\ntwo")
	r.write("bin.dat", "\x00\x01\x02")
	r.write("sub/inner.txt", "x\n")
	r.write("délà vu.txt", "u\n")
	r.write(".gitignore", "*.log\n")
	r.commit("base")

	// Replace line 5, insert two lines after line 10, delete lines 15-16.
	mod := append([]string(nil), lines...)
	mod[4] = "changed"
	mod = append(mod[:15], mod[17:]...) // drop 16 and 17 (0-based 15, 16)
	mod = append(mod[:10], append([]string{"new a", "new b"}, mod[10:]...)...)
	r.write("mod.txt", strings.Join(mod, "\n"))
	if err := os.Remove(filepath.Join(r.dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	r.git("mv", "old name.txt", "new name.txt")
	if err := os.Chmod(filepath.Join(r.dir, "mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.write("noeol.txt", "one\nTWO")
	r.write("bin.dat", "\x00\x01\x03")
	r.write("délà vu.txt", "u\nv\n")
	r.write("fresh.txt", "1\n2\n3\n") // untracked
	r.write("ignored.log", "no\n")    // ignored
	r.write("staged.txt", "s\n")      // staged new file
	r.git("add", "staged.txt")

	got, err := Diff(ctx, r.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	m := byPath(t, got)
	if _, ok := m["ignored.log"]; ok {
		t.Errorf("an ignored file is listed")
	}
	if _, ok := m["sub/inner.txt"]; ok {
		t.Errorf("an unchanged file is listed")
	}
	want := map[string]FileChange{
		"mod.txt": {OldPath: "mod.txt", NewPath: "mod.txt", Status: StatusModified, Hunks: []Hunk{
			{Old: LineRange{5, 1}, New: LineRange{5, 1}},
			{Old: LineRange{10, 0}, New: LineRange{11, 2}},
			{Old: LineRange{16, 2}, New: LineRange{17, 0}},
		}},
		"gone.txt":     {OldPath: "gone.txt", Status: StatusDeleted, Hunks: []Hunk{{Old: LineRange{1, 2}, New: LineRange{0, 0}}}},
		"new name.txt": {OldPath: "old name.txt", NewPath: "new name.txt", Status: StatusRenamed, Similarity: 100},
		"mode.sh":      {OldPath: "mode.sh", NewPath: "mode.sh", Status: StatusModified, OldMode: "100644", NewMode: "100755"},
		"noeol.txt":    {OldPath: "noeol.txt", NewPath: "noeol.txt", Status: StatusModified, Hunks: []Hunk{{Old: LineRange{2, 1}, New: LineRange{2, 1}}}},
		"bin.dat":      {OldPath: "bin.dat", NewPath: "bin.dat", Status: StatusModified, Binary: true},
		"délà vu.txt":  {OldPath: "délà vu.txt", NewPath: "délà vu.txt", Status: StatusModified, Hunks: []Hunk{{Old: LineRange{1, 0}, New: LineRange{2, 1}}}},
		"fresh.txt":    {NewPath: "fresh.txt", Status: StatusAdded, Untracked: true, Hunks: []Hunk{{Old: LineRange{0, 0}, New: LineRange{1, 3}}}},
		"staged.txt":   {NewPath: "staged.txt", Status: StatusAdded, Hunks: []Hunk{{Old: LineRange{0, 0}, New: LineRange{1, 1}}}},
	}
	for p, w := range want {
		if g, ok := m[p]; !ok {
			t.Errorf("%s: not listed", p)
		} else if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", p, g, w)
		}
	}
	if len(m) != len(want) {
		t.Errorf("got %d files, want %d: %+v", len(m), len(want), got)
	}

	// A sub-folder sees only its own files, relative to itself.
	r.write("sub/inner.txt", "y\n")
	sub, err := Diff(ctx, filepath.Join(r.dir, "sub"), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(sub) != 1 || sub[0].Path() != "inner.txt" {
		t.Errorf("sub-folder diff = %+v, want only inner.txt", sub)
	}
}

func TestDiff_RenameWithEdit(t *testing.T) {
	r := newDiffRepo(t)
	r.write("a/old.go", numbered("// line", 40))
	r.commit("base")
	if err := os.Mkdir(filepath.Join(r.dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("mv", "a/old.go", "b/new file.go")
	body := strings.Replace(numbered("// line", 40), "// line xxx\n", "// line CHANGED\n", 1)
	r.write("b/new file.go", body)
	got, err := Diff(context.Background(), r.dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %+v, want one rename", got)
	}
	g := got[0]
	if g.Status != StatusRenamed || g.OldPath != "a/old.go" || g.NewPath != "b/new file.go" || g.Similarity < 50 || g.Similarity == 100 {
		t.Errorf("got %+v, want a/old.go renamed to b/new file.go with an edit", g)
	}
	if len(g.Hunks) != 1 || g.Hunks[0].New.Count != 1 || g.Hunks[0].New.Start != g.Hunks[0].Old.Start {
		t.Errorf("hunks %+v, want one line replaced", g.Hunks)
	}
}

func TestDiff_BadRevision(t *testing.T) {
	r := newDiffRepo(t)
	r.write("a.txt", "a\n")
	r.commit("base")
	leak := filepath.Join(t.TempDir(), "leak")
	for _, rev := range []string{"no-such-branch", "--output=" + leak, "HEAD~5", "a.txt"} {
		_, err := Diff(context.Background(), r.dir, rev)
		var re *RevisionError
		if !errors.As(err, &re) || re.Rev != rev || !errors.Is(err, ErrBadRevision) {
			t.Errorf("Diff(%q) = %v, want a *RevisionError naming it", rev, err)
			continue
		}
		if !strings.Contains(err.Error(), rev) {
			t.Errorf("Diff(%q): message %q does not name the revision", rev, err)
		}
	}
	if _, err := os.Stat(leak); err == nil {
		t.Errorf("an option-like revision reached git")
	}
}

func TestDiff_NotWorkTree(t *testing.T) {
	if Binary() == "" {
		t.Skip("git is not on PATH")
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	_, err := Diff(context.Background(), t.TempDir(), "HEAD")
	if !errors.Is(err, ErrNotWorkTree) {
		t.Fatalf("Diff outside git = %v, want ErrNotWorkTree", err)
	}
}

func TestDiff_NoCommitYet(t *testing.T) {
	r := newDiffRepo(t)
	r.write("a.txt", "a\nb\n")
	r.git("add", "a.txt")
	r.write("b.txt", "c\n")
	got, err := Diff(context.Background(), r.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	m := byPath(t, got)
	if m["a.txt"].Status != StatusAdded || m["b.txt"].Status != StatusAdded || len(m) != 2 {
		t.Errorf("got %+v, want a.txt and b.txt added", got)
	}
}

func TestDiff_TypeChange(t *testing.T) {
	r := newDiffRepo(t)
	r.write("t.txt", "x\ny\n")
	r.commit("base")
	if err := os.Remove(filepath.Join(r.dir, "t.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(r.dir, "t.txt")); err != nil {
		t.Skip("no symbolic links here")
	}
	got, err := Diff(context.Background(), r.dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Status != StatusModified || got[0].OldMode != "100644" || got[0].NewMode != "120000" {
		t.Errorf("got %+v, want one modified file 100644 → 120000", got)
	}
}

func TestShow(t *testing.T) {
	r := newDiffRepo(t)
	r.write("sub/a.txt", "base\n")
	r.commit("base")
	r.write("sub/a.txt", "now\n")
	ctx := context.Background()
	b, ok, err := Show(ctx, filepath.Join(r.dir, "sub"), "HEAD", "a.txt")
	if err != nil || !ok || string(b) != "base\n" {
		t.Errorf("Show = %q, %v, %v; want the base content", b, ok, err)
	}
	if _, ok, err := Show(ctx, r.dir, "HEAD", "missing.txt"); err != nil || ok {
		t.Errorf("Show of a missing file = %v, %v; want not found", ok, err)
	}
	if _, _, err := Show(ctx, r.dir, "nope", "sub/a.txt"); !errors.Is(err, ErrBadRevision) {
		t.Errorf("Show at a bad revision = %v", err)
	}
}

func TestParsePatch_Quoted(t *testing.T) {
	patch := "diff --git \"a/tab\\there.txt\" \"b/tab\\there.txt\"\n" +
		"index 1..2 100644\n" +
		"--- \"a/tab\\there.txt\"\n" +
		"+++ \"b/tab\\there.txt\"\n" +
		"@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/x y.txt b/x y.txt\n" +
		"old mode 100644\nnew mode 100755\n" +
		"diff --git \"a/\\303\\251t\\303\\251.txt\" \"b/\\303\\251t\\303\\251.txt\"\n" +
		"new file mode 100644\n" +
		"--- /dev/null\n" +
		"+++ \"b/\\303\\251t\\303\\251.txt\"\n" +
		"@@ -0,0 +1,2 @@\n+1\n+2\n\\ No newline at end of file\n"
	got, err := ParsePatch([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{OldPath: "tab\there.txt", NewPath: "tab\there.txt", Status: StatusModified, Hunks: []Hunk{{LineRange{1, 1}, LineRange{1, 1}}}},
		{OldPath: "x y.txt", NewPath: "x y.txt", Status: StatusModified, OldMode: "100644", NewMode: "100755"},
		{NewPath: "été.txt", Status: StatusAdded, Hunks: []Hunk{{LineRange{0, 0}, LineRange{1, 2}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if _, err := ParsePatch([]byte("diff --git a/x b/x\n@@ -1,3 +1 @@\n-a\n")); !errors.Is(err, ErrPatch) {
		t.Errorf("a cut hunk = %v, want ErrPatch", err)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\n@@ -1,2 +1 @@\n-a\n-b\n+c\n"))
	f.Add([]byte("diff --git \"a/\\303\" b/y\nrename from \"\\303\"\nrename to y\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParsePatch(b)
		if err != nil {
			return
		}
		for _, c := range got {
			for _, h := range c.Hunks {
				if h.Old.Count < 0 || h.New.Count < 0 {
					t.Fatalf("negative count %+v", h)
				}
			}
		}
	})
}

func TestShowFiles(t *testing.T) {
	r := newDiffRepo(t)
	r.write("sub/a.txt", "base a\n")
	r.write("sub/b c.txt", "base b\n")
	r.write("sub/empty.txt", "")
	r.commit("base")
	r.write("sub/a.txt", "now\n")
	got, err := ShowFiles(context.Background(), filepath.Join(r.dir, "sub"), "HEAD", []string{"a.txt", "b c.txt", "missing.txt", "empty.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"a.txt": []byte("base a\n"), "b c.txt": []byte("base b\n"), "empty.txt": {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
