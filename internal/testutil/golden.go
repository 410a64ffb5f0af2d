package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is the -update flag: golden tests rewrite their files from the
// current output instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite golden files under testdata from the current output")

// Golden compares got with the file at path. Under -update it first writes
// got there (creating the folder), so the comparison passes and the diff
// is left for review.
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from golden (run with -update after checking):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
