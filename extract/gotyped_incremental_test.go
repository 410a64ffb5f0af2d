package extract_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
)

// writeModule writes a small module under a temp folder: files maps
// repo-relative paths to contents; go.mod is added.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(filepath.FromSlash(p))), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFixtureFile(t, root, p, c)
	}
	return root
}

// edgesOf returns the edges of type typ in the payload of path, as
// "source -> target".
func edgesOf(x extraction, path, typ string) map[string]bool {
	out := map[string]bool{}
	for _, e := range x.payloads[path].Edges {
		if e.Type == typ {
			out[e.Source+" -> "+e.Target] = true
		}
	}
	return out
}

// fileMeta returns the metadata of a payload's file node.
func fileMeta(x extraction, path string) map[string]any {
	for _, n := range x.payloads[path].Nodes {
		if n.UID == "code:file:"+path {
			return n.Metadata
		}
	}
	return nil
}

// TestRun_GoTypesIncremental_BodyEditStaysLocal: an edit of a function body
// changes no package's shape, so the importer is not checked again; only
// the edited file is emitted, and with the cached implements edges.
func TestRun_GoTypesIncremental_BodyEditStaysLocal(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/p.go": "package p\n\ntype Shape interface{ Area() int }\n\ntype Sq struct{ N int }\n\nfunc (s Sq) Area() int { return s.N * s.N }\n\nfunc F() int { return 1 }\n",
		"q/q.go": "package q\n\nimport \"example.com/m/p\"\n\nfunc Use() int { return p.F() + p.Sq{N: 2}.Area() }\n",
	})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	writeFixtureFile(t, root, "p/p.go", "package p\n\ntype Shape interface{ Area() int }\n\ntype Sq struct{ N int }\n\nfunc (s Sq) Area() int { return s.N * s.N * 1 }\n\nfunc F() int { return 2 }\n")
	second := runIndex(t, root, cache, first.hashes(nil))
	if got := second.paths(); len(got) != 1 || got[0] != "p/p.go" {
		t.Fatalf("emitted %v, want only p/p.go", got)
	}
	want := "code:class:p/p.go::Sq -> code:class:p/p.go::Shape"
	if !edgesOf(second, "p/p.go", graph.EdgeImplements)[want] {
		t.Errorf("the re-extracted p/p.go lost its implements edge %s (cached edges not reused): %v", want, second.payloads["p/p.go"].Edges)
	}
	if second.stats.GoPackagesChecked >= first.stats.GoPackagesChecked {
		t.Errorf("a body edit checked %d packages, the first index %d: want fewer", second.stats.GoPackagesChecked, first.stats.GoPackagesChecked)
	}
}

// TestRun_GoTypesIncremental_NewMethodImplementsElsewhere: a method added
// to a type of a package that does not import the interface's package
// gives the type its implements edge on the next run.
func TestRun_GoTypesIncremental_NewMethodImplementsElsewhere(t *testing.T) {
	root := writeModule(t, map[string]string{
		"iface/iface.go": "package iface\n\ntype Closer interface{ Close() error }\n",
		"impl/impl.go":   "package impl\n\ntype File struct{}\n\nfunc (f *File) Name() string { return \"\" }\n",
	})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	edge := "code:class:impl/impl.go::File -> code:class:iface/iface.go::Closer"
	if edgesOf(first, "impl/impl.go", graph.EdgeImplements)[edge] {
		t.Fatalf("first run already has %s", edge)
	}
	writeFixtureFile(t, root, "impl/impl.go", "package impl\n\ntype File struct{}\n\nfunc (f *File) Name() string { return \"\" }\n\nfunc (f *File) Close() error { return nil }\n")
	second := runIndex(t, root, cache, first.hashes(nil))
	if !edgesOf(second, "impl/impl.go", graph.EdgeImplements)[edge] {
		t.Errorf("after adding Close, %s is missing: %v", edge, second.payloads["impl/impl.go"].Edges)
	}
}

// TestRun_GoTypesIncremental_InterfaceChangeReachesEveryType: a method
// added to an interface removes the implements edge of a type in a package
// that neither changed nor imports the interface's package.
func TestRun_GoTypesIncremental_InterfaceChangeReachesEveryType(t *testing.T) {
	root := writeModule(t, map[string]string{
		"iface/iface.go": "package iface\n\ntype Closer interface{ Close() error }\n",
		"impl/impl.go":   "package impl\n\ntype File struct{}\n\nfunc (f *File) Close() error { return nil }\n",
	})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	edge := "code:class:impl/impl.go::File -> code:class:iface/iface.go::Closer"
	if !edgesOf(first, "impl/impl.go", graph.EdgeImplements)[edge] {
		t.Fatalf("first run lacks %s: %v", edge, first.payloads["impl/impl.go"].Edges)
	}
	writeFixtureFile(t, root, "iface/iface.go", "package iface\n\ntype Closer interface {\n\tClose() error\n\tFlush() error\n}\n")
	second := runIndex(t, root, cache, first.hashes(nil))
	pl, ok := second.payloads["impl/impl.go"]
	if !ok {
		t.Fatalf("impl/impl.go not emitted again after Closer gained a method; emitted %v", second.paths())
	}
	for _, e := range pl.Edges {
		if e.Type == graph.EdgeImplements && e.Source+" -> "+e.Target == edge {
			t.Errorf("%s still there after Closer gained Flush", edge)
		}
	}
}

// TestRun_GoTypesIncremental_PackageDeleted: deleting a whole package
// re-extracts its importer, which no longer type-checks (a load error:
// the import is missing) and has no edge into the deleted files.
func TestRun_GoTypesIncremental_PackageDeleted(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/p.go": "package p\n\nfunc F() int { return 1 }\n",
		"q/q.go": "package q\n\nimport \"example.com/m/p\"\n\nfunc Use() int { return p.F() }\n",
	})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	if !edgesOf(first, "q/q.go", graph.EdgeCalls)["code:function:q/q.go::Use -> code:function:p/p.go::F"] {
		t.Fatalf("first run: q does not call p.F: %v", first.payloads["q/q.go"].Edges)
	}
	if err := os.RemoveAll(filepath.Join(root, "p")); err != nil {
		t.Fatal(err)
	}
	second := runIndex(t, root, cache, first.hashes(nil))
	if len(second.removed) != 1 || second.removed[0] != "p/p.go" {
		t.Errorf("removed %v, want [p/p.go]", second.removed)
	}
	pl, ok := second.payloads["q/q.go"]
	if !ok {
		t.Fatalf("q/q.go not emitted again after its import was deleted; emitted %v", second.paths())
	}
	for _, e := range pl.Edges {
		if e.Target == "code:function:p/p.go::F" {
			t.Errorf("q/q.go still has an edge into the deleted package: %v", e)
		}
	}
	if m := fileMeta(second, "q/q.go"); m[graph.MetaExtraction] != graph.ExtractionSyntax || !graph.LowerBoundFallback(stringOf(m[graph.MetaFallback])) {
		t.Errorf("q/q.go file metadata %v: want syntax extraction with a load or type error", m)
	}
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// TestRun_OutdatedCacheReextractsAll: a cache written by an older
// extractor (another version) makes every file count as changed, although
// previous holds their current hashes: the graph was extracted by the old
// extractor too.
func TestRun_OutdatedCacheReextractsAll(t *testing.T) {
	root := writeModule(t, map[string]string{"p/p.go": "package p\n\nfunc F() int { return 1 }\n"})
	cache := t.TempDir()
	first := runIndex(t, root, cache, nil)
	prev := first.hashes(nil)
	if again := runIndex(t, root, cache, prev); len(again.payloads) != 0 {
		t.Fatalf("unchanged tree emitted %v", again.paths())
	}
	extract.SetCacheVersionForTest(t, cache, -1)
	after := runIndex(t, root, cache, prev)
	if got, want := len(after.payloads), len(first.payloads); got != want {
		t.Errorf("after an extractor change: emitted %v, want all %d files", after.paths(), want)
	}
}

// TestRun_SymlinkedRoot: a root reached through a symbolic link indexes
// the folder it points to, with the same paths.
func TestRun_SymlinkedRoot(t *testing.T) {
	root := writeModule(t, map[string]string{"p/p.go": "package p\n\nfunc F() int { return G() }\n\nfunc G() int { return 1 }\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	x := runIndex(t, link, t.TempDir(), nil)
	if !edgesOf(x, "p/p.go", graph.EdgeCalls)["code:function:p/p.go::F -> code:function:p/p.go::G"] {
		t.Errorf("through the link: emitted %v, p/p.go edges %v", x.paths(), x.payloads["p/p.go"].Edges)
	}
	if m := fileMeta(x, "p/p.go"); m[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Errorf("p/p.go through the link: metadata %v, want extraction types", m)
	}
}

// TestRun_BuildSettingsChangeReextracts: a file left out by build
// constraints under one GOEXPERIMENT is typed under another: changing the
// setting extracts the tree again instead of answering "0 changed".
func TestRun_BuildSettingsChangeReextracts(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/p.go":      "package p\n\nfunc F() int { return 1 }\n",
		"p/tagged.go": "//go:build cosexperiment\n\npackage p\n\nfunc T() int { return F() }\n",
	})
	cache := t.TempDir()
	t.Setenv("GOFLAGS", "")
	first := runIndex(t, root, cache, nil)
	if m := fileMeta(first, "p/tagged.go"); m[graph.MetaFallback] != graph.FallbackBuildExcluded {
		t.Fatalf("without the tag: tagged.go metadata %v, want build_excluded", m)
	}
	t.Setenv("GOFLAGS", "-tags=cosexperiment")
	second := runIndex(t, root, cache, first.hashes(nil))
	if m := fileMeta(second, "p/tagged.go"); m[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Errorf("with -tags=cosexperiment: tagged.go emitted %v, metadata %v; want typed", second.paths(), m)
	}
}

// TestRun_SyntaxErrorFallback: a file that does not parse keeps its
// package out of the type checker; the reason says so and names the parse
// error, not a type error that follows from it.
func TestRun_SyntaxErrorFallback(t *testing.T) {
	root := writeModule(t, map[string]string{
		"a/a.go":   "package a\n\nfunc Helper(x int) int { return x }\n",
		"a/bad.go": "package a\n\nfunc Broken( { return Helper(1, 2) }\n",
	})
	x := runIndex(t, root, t.TempDir(), nil)
	m := fileMeta(x, "a/bad.go")
	if m[graph.MetaFallback] != graph.FallbackSyntaxError {
		t.Errorf("bad.go metadata %v, want fallback syntax_error", m)
	}
	if d, _ := m[graph.MetaFallbackDetail].(string); !strings.Contains(d, "bad.go:3") {
		t.Errorf("fallback_detail %q does not name the parse error in bad.go", d)
	}
}

// TestRun_InvalidUTF8FileName: a Go file whose name is not valid UTF-8 is
// type-checked with its package (go list reports it with U+FFFD for the
// bad bytes), and its neighbour keeps its types.
func TestRun_InvalidUTF8FileName(t *testing.T) {
	root := writeModule(t, map[string]string{"p/normal.go": "package p\n\nfunc F() int { return G() }\n"})
	if err := os.WriteFile(filepath.Join(root, "p", "bad\xff\xfename.go"), []byte("package p\n\nfunc G() int { return 1 }\n"), 0o644); err != nil {
		t.Skip("this file system refuses the name:", err)
	}
	x := runIndex(t, root, t.TempDir(), nil)
	if m := fileMeta(x, "p/normal.go"); m[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Errorf("normal.go metadata %v, want typed", m)
	}
	var bad string
	for p := range x.payloads {
		if strings.HasPrefix(p, "p/bad") {
			bad = p
		}
	}
	if m := fileMeta(x, bad); m[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Errorf("%s metadata %v, want typed", bad, m)
	}
	if !edgesOf(x, "p/normal.go", graph.EdgeCalls)["code:function:p/normal.go::F -> code:function:"+bad+"::G"] {
		t.Errorf("F does not call G in %s: %v", bad, x.payloads["p/normal.go"].Edges)
	}
}

// TestRun_GoEnvFileSettings: settings written with `go env -w` (the GOENV
// file) count like the environment's: they select files, and a change of
// them extracts the tree again.
func TestRun_GoEnvFileSettings(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/p.go":      "package p\n\nfunc F() int { return 1 }\n",
		"p/tagged.go": "//go:build cosexperiment\n\npackage p\n\nfunc T() int { return F() }\n",
	})
	cache := t.TempDir()
	t.Setenv("GOFLAGS", "")
	envFile := filepath.Join(t.TempDir(), "goenv")
	if err := os.WriteFile(envFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOENV", envFile)
	first := runIndex(t, root, cache, nil)
	if m := fileMeta(first, "p/tagged.go"); m[graph.MetaFallback] != graph.FallbackBuildExcluded {
		t.Fatalf("without the tag: tagged.go metadata %v, want build_excluded", m)
	}
	if err := os.WriteFile(envFile, []byte("GOFLAGS=-tags=cosexperiment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := runIndex(t, root, cache, first.hashes(nil))
	if m := fileMeta(second, "p/tagged.go"); m[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Errorf("with GOFLAGS=-tags=cosexperiment in GOENV: tagged.go emitted %v, metadata %v; want typed", second.paths(), m)
	}
}

// TestRun_BrokenTestFileKeepsPackageTyped: a test file that does not
// compile leaves the package's other files typed (go build still works);
// only the test file falls back.
func TestRun_BrokenTestFileKeepsPackageTyped(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/a.go":      "package p\n\nfunc A() int { return B() }\n",
		"p/b.go":      "package p\n\nfunc B() int { return 1 }\n",
		"p/x_test.go": "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { var s string = 1; _ = s }\n",
	})
	x := runIndex(t, root, t.TempDir(), nil)
	for _, f := range []string{"p/a.go", "p/b.go"} {
		if m := fileMeta(x, f); m[graph.MetaExtraction] != graph.ExtractionTypes {
			t.Errorf("%s metadata %v, want typed despite the broken test file", f, m)
		}
	}
	if !edgesOf(x, "p/a.go", graph.EdgeCalls)["code:function:p/a.go::A -> code:function:p/b.go::B"] {
		t.Errorf("A does not call B: %v", x.payloads["p/a.go"].Edges)
	}
	if m := fileMeta(x, "p/x_test.go"); m[graph.MetaFallback] != graph.FallbackTypeError {
		t.Errorf("x_test.go metadata %v, want a type_error fallback", m)
	}
}

// TestRun_SkippedFileMakesPackageIncomplete: a file of a package skipped as
// too large is not in the graph, so the package's other files say their
// package is incomplete (a lower bound for their callers).
func TestRun_SkippedFileMakesPackageIncomplete(t *testing.T) {
	root := writeModule(t, map[string]string{
		"p/small.go": "package p\n\nfunc Small() int { return 1 }\n",
		"p/big.go":   "package p\n\n// " + strings.Repeat("x", 400) + "\nfunc Big() int { return Small() }\n",
	})
	payloads := map[string]graph.FileExtracted{}
	_, err := extract.Run(context.Background(), root, extract.Options{CacheDir: t.TempDir(), MaxFileSize: 300}, nil,
		func(batch []graph.FileExtracted, _ []string) error {
			for _, p := range batch {
				payloads[p.Path] = p
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := payloads["p/big.go"]; ok {
		t.Fatal("big.go was emitted although over MaxFileSize")
	}
	m := fileMeta(extraction{payloads: payloads}, "p/small.go")
	if m[graph.MetaExtraction] != graph.ExtractionTypes || m[graph.MetaFallback] != graph.FallbackIncompletePackage {
		t.Errorf("small.go metadata %v, want typed with fallback incomplete_package", m)
	}
	if d, _ := m[graph.MetaFallbackDetail].(string); !strings.Contains(d, "big.go") {
		t.Errorf("fallback_detail %q does not name big.go", d)
	}
}
