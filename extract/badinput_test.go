package extract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestRun_BadInput indexes one repository full of bad input: every case must
// be recorded and the rest of the index must go on.
func TestRun_BadInput(t *testing.T) {
	root := t.TempDir()
	latin1 := []byte("package enc\n\n// caf\xe9 na\xefve\nfunc Caf\xe9() {}\n\nfunc Good() { Caf\xe9() }\n")
	euckr := []byte("# \xc7\xd1\xb1\xb9\xbe\xee heading\n\ndef f():\n    return '\xc7\xd1'\n")
	lateNUL := append(bytes.Repeat([]byte("x = 1\n"), 2000), []byte("y = '\x00'\ndef after_nul():\n    pass\n")...)
	files := map[string][]byte{
		"ok.go":            []byte("package ok\n\nfunc OK() {}\n"),
		"enc/latin1.go":    latin1,
		"enc/euckr.py":     euckr,
		"enc/latin1.md":    []byte("# Caf\xe9 cr\xe8me\n\n## \xbf\xa1\n"),
		"enc/late_nul.py":  lateNUL,
		"bin/blob.dat":     append([]byte("head\x00"), bytes.Repeat([]byte{1, 2, 3}, 100)...),
		"syntax/broken.go": []byte("package broken\n\nfunc Before() { After() }\n\nfunc After() {\n\tif {\n}\n\nfunc (\n"),
		"syntax/broken.py": []byte("def good():\n    pass\n\ndef bad(:\n    pass\n\nclass Later:\n    def m(self):\n        good()\n"),
		"syntax/broken.js": []byte("function good() { return 1 }\nfunction bad( { \nclass Later { m() { good() } }\n"),
		"syntax/bad.json":  []byte(`{"a": 1, "b": `),
		"syntax/bad.toml":  []byte("a = \n[b\n"),
		"syntax/bad.yaml":  []byte("a: [1, 2\nb: {\n"),
		"syntax/deep.json": []byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)),
		"unreadable.go":    []byte("package unreadable\n"),
	}
	for p, data := range files {
		writeFile(t, root, p, data)
	}
	// A 50 MB minified file: skipped by size without being read.
	big := bytes.Repeat([]byte("var a=1;"), 50<<20/8)
	writeFile(t, root, "web/huge.min.js", big)
	// A symlink loop and a symlink to a file.
	if err := os.Symlink("..", filepath.Join(root, "enc", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	opts := Options{CacheDir: t.TempDir()}
	opts.open = func(name string) (io.ReadCloser, error) {
		if filepath.Base(name) == "unreadable.go" {
			return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrPermission}
		}
		return os.Open(name)
	}
	res := index(t, root, opts, map[string]string{"unreadable.go": "feed"})

	st := res.Stats
	note := func(list []FileNote, p string) string {
		for _, n := range list {
			if n.Path == p {
				return n.Reason
			}
		}
		return ""
	}
	if got := note(st.Skipped, "web/huge.min.js"); got != SkipTooLarge {
		t.Errorf("huge.min.js skip reason = %q, want %q", got, SkipTooLarge)
	}
	if got := note(st.Skipped, "bin/blob.dat"); got != SkipBinary {
		t.Errorf("blob.dat skip reason = %q, want %q", got, SkipBinary)
	}
	if got := note(st.Skipped, "enc/loop"); got != SkipSymlink {
		t.Errorf("loop skip reason = %q, want %q", got, SkipSymlink)
	}
	if got := note(st.Failed, "unreadable.go"); !strings.Contains(got, "permission") {
		t.Errorf("unreadable.go failure = %q, want a permission error", got)
	}
	for _, p := range res.Removed {
		if p == "unreadable.go" {
			t.Errorf("an unreadable file was reported removed; it may still exist")
		}
	}
	for _, p := range []string{"web/huge.min.js", "bin/blob.dat", "unreadable.go", "link.go"} {
		if _, ok := res.Payloads[p]; ok {
			t.Errorf("%s was emitted", p)
		}
	}
	for _, p := range []string{"ok.go", "enc/latin1.go", "enc/euckr.py", "enc/latin1.md", "enc/late_nul.py", "syntax/broken.go", "syntax/broken.py", "syntax/broken.js", "syntax/bad.json", "syntax/bad.toml", "syntax/bad.yaml", "syntax/deep.json"} {
		if _, ok := res.Payloads[p]; !ok {
			t.Errorf("%s was not emitted", p)
		}
	}
	for _, p := range []string{"syntax/broken.go", "syntax/broken.py", "syntax/broken.js", "syntax/bad.json", "syntax/bad.toml", "syntax/bad.yaml", "syntax/deep.json"} {
		if len(res.Payloads[p].ParseErrors) == 0 {
			t.Errorf("%s: no parse error recorded", p)
		}
	}
	if st.FilesWithParseErrors < 7 {
		t.Errorf("FilesWithParseErrors = %d, want ≥ 7", st.FilesWithParseErrors)
	}
	// Partial results survive syntax errors.
	has := func(p, uid string) bool {
		for _, n := range res.Payloads[p].Nodes {
			if n.UID == uid {
				return true
			}
		}
		return false
	}
	for _, c := range []struct{ path, uid string }{
		{"syntax/broken.go", "code:function:syntax/broken.go::Before"},
		{"syntax/broken.py", "code:function:syntax/broken.py::good"},
		{"syntax/broken.py", "code:class:syntax/broken.py::Later"},
		{"syntax/broken.js", "code:function:syntax/broken.js::good"},
		{"enc/latin1.go", "code:function:enc/latin1.go::Café"},
		{"enc/late_nul.py", "code:function:enc/late_nul.py::after_nul"},
		{"enc/latin1.md", "doc:heading:enc/latin1.md#café-crème:1"},
	} {
		if !has(c.path, c.uid) {
			t.Errorf("%s: node %s missing", c.path, c.uid)
		}
	}
	// A heading made only of converted non-ASCII symbols still has a slug.
	for _, n := range res.Payloads["enc/latin1.md"].Nodes {
		if n.Kind == graph.KindHeading && strings.Contains(n.UID, "#:") {
			t.Errorf("empty slug: %s", n.UID)
		}
	}
}

// TestRun_Errors provokes each error Run returns.
func TestRun_Errors(t *testing.T) {
	nop := func([]graph.FileExtracted, []string) error { return nil }
	root := copyTree(t, filepath.Join("testdata", "mixed"))
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		root string
		opts Options
		emit EmitFunc
		want error
	}{
		{"missing root", context.Background(), filepath.Join(root, "nope"), Options{}, nop, ErrRoot},
		{"root is a file", context.Background(), filepath.Join(root, "notes.txt"), Options{}, nop, ErrRoot},
		{"negative size", context.Background(), root, Options{MaxFileSize: -1}, nop, ErrOptions},
		{"negative workers", context.Background(), root, Options{Workers: -1}, nop, ErrOptions},
		{"depth out of range", context.Background(), root, Options{MaxConfigDepth: 65}, nop, ErrOptions},
		{"emit fails", context.Background(), root, Options{}, func([]graph.FileExtracted, []string) error { return boom }, ErrEmit},
		{"cancelled", cancelled, root, Options{}, nop, context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(c.ctx, c.root, c.opts, nil, c.emit)
			if !errors.Is(err, c.want) {
				t.Fatalf("Run: %v, want %v", err, c.want)
			}
		})
	}
}

// TestRun_InvalidUTF8Names re-indexes an unchanged tree whose file and
// folder names are not valid UTF-8 three times: each keeps one converted
// (Latin-1) path, and the 2nd and 3rd runs emit nothing and remove nothing.
// Two raw names that convert to the same path keep the valid UTF-8 one and
// record the other as SkipNameCollision.
func TestRun_InvalidUTF8Names(t *testing.T) {
	valid := []byte("package b\n\nfunc Valid() {}\n")
	files := map[string][]byte{
		"b/good.go":            []byte("package b\n\nfunc Good() { Bad() }\n"),
		"b/bad\xff.go":         []byte("package b\n\nfunc Bad() {}\n"),
		"b/caf\xe9.go":         []byte("package b\n\nfunc Latin() {}\n"),
		"b/café.go":            valid,
		"m\xe9/go.mod":         []byte("module example.com/m\n"),
		"m\xe9/m.go":           []byte("package m\n\nfunc M() {}\n"),
		"use/use.go":           []byte("package use\n\nimport \"example.com/m\"\n\nfunc U() { m.M() }\n"),
		"docs/r\xe9sum\xe9.md": []byte("# Title\n\n[bad](../b/bad\xff.go)\n"),
	}
	for _, c := range []struct {
		name  string
		cache bool
	}{{"stat cache", true}, {"no cache", false}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			probe := filepath.Join(root, "probe\xff")
			if err := os.WriteFile(probe, nil, 0o644); err != nil {
				t.Skipf("this file system refuses names that are not UTF-8: %v", err)
			}
			if err := os.Remove(probe); err != nil {
				t.Fatal(err)
			}
			for p, data := range files {
				writeFile(t, root, p, data)
			}
			var opts Options
			if c.cache {
				opts.CacheDir = t.TempDir()
			}
			graphPaths := map[string]string{}
			wantPaths := []string{"b/badÿ.go", "b/café.go", "b/good.go", "docs/résumé.md", "mé/go.mod", "mé/m.go", "use/use.go"}
			for run := 1; run <= 3; run++ {
				res := index(t, root, opts, maps.Clone(graphPaths))
				for p, pl := range res.Payloads {
					graphPaths[p] = pl.ContentHash
				}
				for _, p := range res.Removed {
					delete(graphPaths, p)
				}
				if got := slices.Sorted(maps.Keys(graphPaths)); !slices.Equal(got, wantPaths) {
					t.Fatalf("run %d: graph paths = %q, want %q", run, got, wantPaths)
				}
				if run == 1 {
					sum := sha256.Sum256(valid)
					if got := res.Payloads["b/café.go"].ContentHash; got != hex.EncodeToString(sum[:]) {
						t.Errorf("b/café.go: the Latin-1 named file won the collision (hash %s)", got)
					}
					if !slices.Contains(res.Stats.Skipped, FileNote{Path: "b/café.go", Reason: SkipNameCollision}) {
						t.Errorf("collision not recorded: skipped = %v", res.Stats.Skipped)
					}
					if !hasEdge(res.Payloads["use/use.go"], "code:function:use/use.go::U", "code:function:mé/m.go::M") {
						t.Errorf("the call into the module in folder mé did not resolve")
					}
					continue
				}
				st := res.Stats
				if len(res.Payloads) != 0 || len(res.Removed) != 0 || st.FilesChanged != 0 || st.FilesRemoved != 0 {
					t.Errorf("run %d on an unchanged tree: %d changed %q, %d removed %q", run, st.FilesChanged, slices.Sorted(maps.Keys(res.Payloads)), st.FilesRemoved, res.Removed)
				}
			}
		})
	}
}

// hasEdge reports whether pl carries an edge from source to target.
func hasEdge(pl graph.FileExtracted, source, target string) bool {
	for _, e := range pl.Edges {
		if e.Source == source && e.Target == target {
			return true
		}
	}
	return false
}
