package indexing

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// TestFreshness_Scan_NewSkipsWhatIndexingSkips: Scan.New counts the
// untracked files an index would take and has not, never the ones every
// index skips — a symbolic link (here a loop), a binary file, a file over
// the size limit — so an index run brings it back to 0.
func TestFreshness_Scan_NewSkipsWhatIndexingSkips(t *testing.T) {
	ctx := context.Background()
	g := testutil.GitRepo(t, map[string]string{"a.go": "package m\n\nfunc A() {}\n"})
	t.Setenv("HOME", g.Home)
	root := g.Root
	if err := os.Symlink(filepath.Join(root, "loop"), filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	g.Write("img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00")
	g.Write("big.txt", strings.Repeat("a", 3<<20))
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	if _, err := x.index(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	f := NewFreshness(st)
	scan := func() Scan {
		t.Helper()
		var tg Target
		var ok bool
		if err := st.Read(ctx, func(v state.View) { tg, ok = f.Target(v) }); err != nil || !ok {
			t.Fatalf("target: %v, %v", ok, err)
		}
		s, err := f.Scan(ctx, tg, 20)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := scan(); s.New != 0 || s.Changed != 0 {
		t.Errorf("after the index: new %d changed %d %q; want 0 and 0", s.New, s.Changed, s.Paths)
	}
	g.Write("b.go", "package m\n\nfunc B() {}\n")
	if s := scan(); s.New != 1 || !slices.Equal(s.Paths, []string{"b.go"}) {
		t.Errorf("with b.go new: new %d %q; want 1 [b.go]", s.New, s.Paths)
	}
}

// TestFreshness_Scan_NewOutsideGit: in a folder that is not in git, Scan
// walks it for the files an index would take and the graph does not hold:
// a new file counts, an ignored one and an excluded folder's do not.
func TestFreshness_Scan_NewOutsideGit(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, map[string]string{"a.py": "def a():\n    pass\n", ".gitignore": "*.log\n"})
	root, _ = filepath.EvalSymlinks(root)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	if _, err := x.index(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	f := NewFreshness(st)
	scan := func() Scan {
		t.Helper()
		var tg Target
		var ok bool
		if err := st.Read(ctx, func(v state.View) { tg, ok = f.Target(v) }); err != nil || !ok {
			t.Fatalf("target: %v, %v", ok, err)
		}
		s, err := f.Scan(ctx, tg, 20)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := scan(); s.Git || s.New != 0 || s.Changed != 0 {
		t.Fatalf("after the index: %+v; want no git, 0 new, 0 changed", s)
	}
	for p, body := range map[string]string{"b.py": "def b():\n    pass\n", "run.log": "x\n",
		"node_modules/m/index.js": "export const m = 1\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if s := scan(); s.New != 1 || !slices.Equal(s.Paths, []string{"b.py"}) {
		t.Fatalf("with b.py new: new %d %q", s.New, s.Paths)
	}
}
