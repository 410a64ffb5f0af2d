package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

const fixture = "../internal/calloracle/testdata"

// The oracle on the 3-file fixture prints exactly the calls of
// testdata/java.jsonl, which the comparison's tests score.
func TestOracle_Fixture(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("javac is not on PATH")
	}
	root, err := filepath.Abs(filepath.Join(fixture, "java"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := runOracle(context.Background(), root, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := calloracle.Read(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "java.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := calloracle.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Files, want.Files) {
		t.Errorf("files = %v, want %v", got.Files, want.Files)
	}
	if !reflect.DeepEqual(got.Calls, want.Calls) {
		t.Errorf("calls differ:\n got %+v\nwant %+v", got.Calls, want.Calls)
	}
	if got.Stats["in_tree"] != 14 || got.Stats["external"] != 4 || got.Stats["compiler_errors"] != 0 {
		t.Errorf("stats = %v, want 14 in-tree, 4 external, no errors", got.Stats)
	}
}
