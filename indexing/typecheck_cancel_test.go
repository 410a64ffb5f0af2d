package indexing

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// leafStdPackages are standard packages importing nothing: copied into a
// module, every package the run checks is one of the tree's.
var leafStdPackages = []string{"cmp", "container/list", "container/ring", "encoding", "image/color", "structs", "unicode", "unicode/utf16", "unicode/utf8"}

// A run cancelled while Go packages are type-checked commits the packages
// it had extracted (it dropped the whole run): the graph answers for them,
// the files not reached stay out, and the next run indexes only those and
// ends where a fresh index does.
func TestIndex_CancelDuringTypeCheckKeepsPackagesExtracted(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n\ngo " + goLine(t) + "\n"}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	goFiles := 0
	for _, pkg := range leafStdPackages {
		dir := filepath.Join(goroot, "src", filepath.FromSlash(pkg))
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[path.Join(pkg, e.Name())] = string(b)
			goFiles++
		}
	}
	g := testutil.GitRepo(t, files)
	// One package checked at a time: the cancel from the first package's
	// progress leaves the others unchecked.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := x.IndexWith(ctx, g.Root, RunOptions{Report: func(p Progress) {
		if p.PackagesChecked >= 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want context.Canceled", err)
	}
	if err := st.WaitFor(context.Background(), rep.LastSeq); err != nil {
		t.Fatal(err)
	}
	held := map[string]string{}
	if err := st.Read(context.Background(), func(v state.View) { held = v.Graph.FileHashes() }); err != nil {
		t.Fatal(err)
	}
	var keptGo []string
	for p := range held {
		if strings.HasSuffix(p, ".go") {
			keptGo = append(keptGo, p)
		}
	}
	if len(keptGo) == 0 || len(keptGo) >= goFiles || held["go.mod"] == "" || rep.FilesKept != len(held) {
		t.Fatalf("after a cancel while packages were checked the graph holds %d of %d Go files (go.mod: %v), report kept %d; want some but not all, all reported",
			len(keptGo), goFiles, held["go.mod"] != "", rep.FilesKept)
	}
	if !strings.Contains(err.Error(), "files finished are committed") {
		t.Errorf("the error does not say what was kept: %v", err)
	}
	h := health(t, st.Dir())
	if h.LastIndex == nil || h.LastIndex.State != state.IndexCancelled || h.LastIndex.Error != graph.IndexCancelled {
		t.Fatalf("last index after a cancel: %+v, want state %q", h.LastIndex, state.IndexCancelled)
	}
	// A kept file is in the graph as a complete, typed extraction.
	kept := keptGo[0]
	var meta map[string]any
	if err := st.Read(context.Background(), func(v state.View) {
		if n, ok := v.Graph.Node(lang.FileUID(kept)); ok {
			meta = n.Metadata
		}
	}); err != nil {
		t.Fatal(err)
	}
	if meta[graph.MetaExtraction] != graph.ExtractionTypes {
		t.Fatalf("kept file %s: file node metadata %v, want extraction %q", kept, meta, graph.ExtractionTypes)
	}

	t.Logf("cancelled run kept %d files (%d of %d Go files), %d packages checked", rep.FilesKept, len(keptGo), goFiles, rep.GoPackagesChecked)
	again, err := x.IndexWith(context.Background(), g.Root, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.FilesChanged != goFiles-len(keptGo) {
		t.Errorf("the next run extracted %d changed files, want the %d not kept", again.FilesChanged, goFiles-len(keptGo))
	}
	t.Logf("next run: %d changed, %d re-extracted, %d packages checked", again.FilesChanged, again.FilesReextracted, again.GoPackagesChecked)
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Errorf("after the next run the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
}

// goLine is the go line of the toolchain running the test ("1.26"), so
// that the standard library's code type-checks as it does in GOROOT.
func goLine(t *testing.T) string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		t.Skipf("toolchain version %q", runtime.Version())
	}
	return parts[0] + "." + parts[1]
}

// A package kept by a cancelled incremental run got its implements edges
// against the interfaces checked before the cancel only: the next run
// extracts it again for the rest, though its content is committed.
func TestIndex_CancelDuringTypeCheckRepairsImplements(t *testing.T) {
	const aGo = "package a\n\ntype T struct{}\n\nfunc (T) M() {}\n"
	// b imports a: a is checked first, and the cancel stops before b.
	const bGo = "package b\n\nimport \"example.com/m/a\"\n\ntype I interface{ M() }\n\nvar _ = a.T{}\n"
	g := testutil.GitRepo(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/a.go": aGo, "b/b.go": bGo})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	const want = "edge code:class:a/a.go::T code:class:b/b.go::I implements go 3"
	if !slices.Contains(graphLines(t, st), want) {
		t.Fatalf("a first index lacks %q", want)
	}
	g.Write("a/a.go", aGo+"\nfunc F() {}\n")
	g.Write("b/b.go", bGo+"\n// A comment.\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := x.IndexWith(ctx, g.Root, RunOptions{Report: func(p Progress) {
		if p.PackagesChecked >= 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || rep.FilesKept != 1 {
		t.Fatalf("run: kept %d, %v; want a/a.go kept and context.Canceled", rep.FilesKept, err)
	}
	if _, err := x.index(context.Background(), g.Root, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffLines(graphLines(t, st), freshLines(t, g.Root)); d != "" {
		t.Errorf("after the next run the graph differs from a fresh index (+ graph, - fresh):\n%s", d)
	}
}
