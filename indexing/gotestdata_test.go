package indexing

import (
	"context"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// A Go file under testdata is left out of `go list ./...`, so a full run
// extracts it at the syntax level; an incremental run that lists its
// folder alone (it changed, or it imports a package that changed) must
// leave it out too, or it gets type-checked under another module path. The
// watcher's runs after a branch switch of a git copy of GOROOT/src hit this
// (runtime/testdata/..., go/doc/testdata/...: ~170 nodes and ~5,700 edges
// unlike a fresh index of the same checkout) until narrow go list runs
// skipped what "..." skips.
func TestWatch_IncrementalEqualsFresh_TestdataPackage(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.22\n",
		"a/a.go":                  "package a\n\nfunc F() int { return 1 }\n",
		"a/testdata/prog/main.go": "package main\n\nimport \"example.com/m/a\"\n\nfunc main() { _ = a.F() }\n",
	})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Fatalf("a first index differs from a fresh index:\n%s", d)
	}
	g.Write("a/testdata/prog/main.go", "package main\n\nimport \"example.com/m/a\"\n\n// edited\nfunc main() { a.New().M() }\n")
	if _, err := x.IndexWith(context.Background(), g.Root, RunOptions{Paths: []string{"a/testdata/prog/main.go"}}); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Errorf("targeted run of an edited testdata file: the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
	g.Write("a/a.go", "package a\n\ntype T struct{}\n\nfunc New() *T { return &T{} }\n\nfunc (*T) M() {}\n\nfunc G() {}\n")
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Errorf("incremental run after the imported package changed: the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
}
