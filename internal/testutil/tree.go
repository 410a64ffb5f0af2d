package testutil

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DemoRepo is a small Go + Markdown repository (a module with two
// packages, a non-ASCII identifier and a README with a link), for WriteTree.
// Its files are testdata/demorepo/<path>.txt: the suffix keeps the Go
// sources out of the build and the go.mod from making a nested module.
var DemoRepo = func() map[string]string {
	files := map[string]string{}
	err := fs.WalkDir(demoRepo, "testdata/demorepo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := demoRepo.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimSuffix(strings.TrimPrefix(p, "testdata/demorepo/"), ".txt")] = string(b)
		return nil
	})
	if err != nil {
		panic("testutil: the embedded demo repository: " + err.Error()) // static data
	}
	return files
}()

//go:embed testdata/demorepo
var demoRepo embed.FS

// WriteTree writes files (slash-separated path → content) into a fresh
// temporary folder and returns it.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Envelope is a decoded cos envelope, for tests that read answers as JSON.
type Envelope struct {
	OK    bool           `json:"ok"`
	Data  map[string]any `json:"data"`
	Error struct {
		Category string         `json:"category"`
		Code     string         `json:"code"`
		Message  string         `json:"message"`
		Details  map[string]any `json:"details"`
	} `json:"error"`
}

// FlipEvery flips one byte of every copy of marker in the file at path —
// how a test damages one event of a bbolt log, which is copy-on-write, so
// freed pages may hold older copies of the same record.
func FlipEvery(tb testing.TB, path, marker string) {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for i := bytes.Index(raw, []byte(marker)); i >= 0; i = bytes.Index(raw, []byte(marker)) {
		raw[i] ^= 0x20
		n++
	}
	if n == 0 {
		tb.Fatalf("marker %q not in %s", marker, path)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
}
