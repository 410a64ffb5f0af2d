package acc

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTagList(t *testing.T) {
	for _, tc := range []struct {
		m    map[string]int
		of   int
		want string
	}{
		{nil, 0, "none"},
		{nil, -1, "none"},
		{nil, 3, "no other edge 3"},
		{map[string]int{"b": 1, "a": 1, "c": 2}, 0, "c 2, a 1, b 1"},
		{map[string]int{"a": 2}, 5, "a 2, no other edge 3"},
		{map[string]int{"a": 2}, 2, "a 2"},
	} {
		if got := TagList(tc.m, tc.of); got != tc.want {
			t.Errorf("TagList(%v, %d) = %q, want %q", tc.m, tc.of, got, tc.want)
		}
	}
}

func TestPct_NoShare(t *testing.T) {
	if got, want := Pct(NewRatio(1, 0).Share), "–"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Pct(NewRatio(2, 3).Share), "66.7%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTopNotes_Order(t *testing.T) {
	notes := []EdgeNote{
		{Caller: "b", Callee: "x", Site: Site{File: "a.go", Line: 2}, Sites: 1},
		{Caller: "a", Callee: "x", Site: Site{File: "a.go", Line: 2}, Sites: 1},
		{Caller: "c", Callee: "x", Site: Site{File: "a.go", Line: 9}, Sites: 3},
		{Caller: "d", Callee: "x", Site: Site{File: "a.go", Line: 1}, Sites: 1},
	}
	var got []string
	for _, n := range TopNotes(notes, 3) {
		got = append(got, n.Caller)
	}
	if want := []string{"c", "d", "a"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestCopyTree_Skip(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, p := range []string{"a.py", "sub/b.py", "sub/__pycache__/b.pyc"} {
		p = filepath.Join(src, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	skip := func(d fs.DirEntry) bool { return d.Name() == "__pycache__" }
	if err := CopyTree(src, dst, skip); err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, filepath.ToSlash(rel))
			if info, err := d.Info(); err != nil || info.Mode().Perm()&0o200 == 0 {
				t.Errorf("%s is not writable", rel)
			}
		}
		return nil
	})
	if want := []string{"a.py", "sub/b.py"}; !slices.Equal(got, want) {
		t.Errorf("copied %v, want %v", got, want)
	}
}
