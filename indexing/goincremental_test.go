package indexing

import (
	"context"
	"slices"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// When a package's test variant does not type-check, its non-test files
// are checked again from the plain package by a second checker. Their
// implements edges must still be computed against the interfaces of the
// first check: a method mentioning another package's type (io.Writer in
// WriteTo) names that package as the second checker loaded it, so
// types.Implements against io.WriterTo of the first checker said no and a
// fresh index lost the edge. An incremental run whose interfaces changed
// checks every package once more, this time from the plain package
// directly, and found it — so the graph differed from a fresh index of the
// same tree. A watched branch switch of a git copy of GOROOT/src hit this
// (net/http/httputil's dumpConn implements net.Conn: one edge).
func TestWatch_IncrementalEqualsFresh_BrokenTestVariantImplements(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"p/p.go": "package p\n\nimport \"io\"\n\ntype T struct{}\n\nfunc (T) WriteTo(w io.Writer) (int64, error) { return 0, nil }\n",
		// The test variant "p [p.test]" has a type error.
		"p/p_test.go": "package p\n\nvar broken int = \"not an int\"\n",
		"q/q.go":      "package q\n\nfunc Q() {}\n",
	})
	const want = "edge code:class:p/p.go::T code:external:io.WriterTo implements go 5"
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(graphLines(t, st), want) {
		t.Errorf("a first index lacks %q: T's WriteTo takes an io.Writer, so T implements io.WriterTo", want)
	}
	// A new interface: the tree's interfaces change, so the incremental run
	// extracts every package again after p's importers.
	g.Write("p/p.go", "package p\n\nimport \"io\"\n\ntype T struct{}\n\nfunc (T) WriteTo(w io.Writer) (int64, error) { return 0, nil }\n\ntype I interface{ M() }\n")
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	got, fresh := graphLines(t, st), freshLines(t, g.Root)
	if d := diffLines(got, fresh); d != "" {
		t.Errorf("incremental run after p gained an interface: the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
	if !slices.Contains(fresh, want) {
		t.Errorf("a fresh index lacks %q", want)
	}
}

// A Markdown link to a file of the tree is a links_to edge only while the
// file exists, but an incremental run extracts a document again only when
// the document changed: a link target removed leaves its edge behind, one
// added gets none. Nothing makes a document depend on the paths it links
// to (extract/markdown.go mdLink reads e.files; extract/run.go's
// dependents know declaration scopes and the missing: keys of watchKeys,
// not file paths). A watched branch switch of a git copy of GOROOT/src hit
// this (cmd/compile/internal/ssa/README.md links to value.go, removed on
// the branch: one edge).
func TestWatch_IncrementalEqualsFresh_MarkdownLinkTarget(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"README.md": "# Doc\n\nSee [a](a.go) and [b](b.go).\n",
		"a.go":      "package m\n",
	})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	g.Run("rm", "-q", "a.go")
	g.Write("b.go", "package m\n")
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Errorf("incremental run after a link target was removed and another added: the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
}

// An external stub called from files of several extractors (x.call() in
// Go, JavaScript and Python: code:external:*.call) is one node with one
// owner per file; the projection keeps the fields of the owner applied
// last (projections/graph.go, "the last one applied wins"). A fresh index
// applies the files in path order, so the stub's extractor is the last
// file's; an incremental run applies only the files it extracted, so the
// stub takes the extractor of the last edited one. A watched branch switch
// of a git copy of GOROOT/src hit this: 12 stubs (*.call, *.split, …)
// whose extractor is go after the switch back to main and jsts or python
// in a fresh index of main.
func TestWatch_IncrementalEqualsFresh_StubOfSeveralExtractors(t *testing.T) {
	files := map[string]string{
		"a.go": "package m\n\nfunc F(x T) { x.call() }\n",
		"b.js": "export function g(x) { x.call(); }\n",
		"c.py": "def h(x):\n    x.call()\n",
	}
	g := testutil.GitRepo(t, files)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.go", "b.js", "c.py"} {
		g.Write(p, "// edited\n"+files[p])
		if _, err := x.index(context.Background(), g.Root, nil); err != nil {
			t.Fatal(err)
		}
		if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
			t.Errorf("incremental run after editing %s: the graph differs from a fresh index (+ graph, - fresh):\n%s", p, d)
		}
	}
}

// A stub several files emit shows the version of its greatest (path,
// extractor) owner. When that owner stops emitting it (the file was
// removed, or edited not to call the name), the stub must show the next
// greatest owner's version, as a fresh index would: it kept the fields of
// the owner that left. A watched branch switch of a git copy of GOROOT/src
// hit this: back on main, 8 stubs (*.call, *.pointer, …) kept extractor go
// from files only the branch had, where a fresh index of main shows jsts
// or python.
func TestWatch_IncrementalEqualsFresh_StubOwnerLeaves(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		"b.js": "export function g(x) { x.call(); }\n",
		"m.go": "package m\n",
	})
	g.Run("checkout", "-q", "-b", "other")
	g.Write("z.go", "package m\n\nfunc F(x T) { x.call() }\n")
	g.Run("add", "z.go")
	g.Run("commit", "-q", "-m", "z")
	g.Run("checkout", "-q", "main")
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	for _, branch := range []string{"main", "other", "main"} {
		g.Run("checkout", "-q", branch)
		if _, err := x.index(context.Background(), g.Root, nil); err != nil {
			t.Fatal(err)
		}
		if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
			t.Errorf("incremental run at %s: the graph differs from a fresh index (+ graph, - fresh):\n%s", branch, d)
		}
	}
}
