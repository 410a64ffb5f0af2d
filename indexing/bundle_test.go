package indexing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/state"
)

// writeBundle writes a minified bundle: one line of n tiny functions, each
// calling the one before it, after an import whose specifier is spec
// repeated specLen times (a string the payload encodes at 6 bytes a
// character, such as "<", makes one node over the event limit).
func writeBundle(tb testing.TB, path string, n int, spec string, specLen int) {
	tb.Helper()
	var b strings.Builder
	if specLen > 0 {
		fmt.Fprintf(&b, "import x from %q;", strings.Repeat(spec, specLen))
	}
	for i := range n {
		fmt.Fprintf(&b, "function f%d(a){return a?f%d(a-1):x}", i, max(i-1, 0))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// A minified bundle (one 1.2 MB line of ~33,000 functions) is indexed, or
// skipped with a reason, and every other file of the tree is indexed: the
// run does not panic.
func TestIndexer_MinifiedBundle(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "app.js"), []byte("export function main() { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeBundle(t, filepath.Join(root, "bundle.min.js"), 33000, "<", 200_000)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{root}})
	rep, err := x.index(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesSeen != 2 {
		t.Fatalf("report %+v", rep)
	}
	var files map[string]string
	if err := st.Read(context.Background(), func(v state.View) { files = v.Graph.FileHashes() }); err != nil {
		t.Fatal(err)
	}
	if _, ok := files["app.js"]; !ok {
		t.Fatalf("app.js not indexed beside the bundle: %v", files)
	}
	if _, ok := files["bundle.min.js"]; !ok {
		t.Fatalf("bundle not indexed: %+v", rep.Skipped)
	}
	if rep.FilesTrimmed != 1 || len(rep.TrimmedPaths) != 1 || rep.TrimmedPaths[0] != "bundle.min.js" {
		t.Fatalf("trimmed %d %v, want the bundle reported trimmed", rep.FilesTrimmed, rep.TrimmedPaths)
	}
	// Only the import over the limit on its own is dropped: every function
	// of the bundle is in the graph, and the file says what was trimmed.
	var last, trimNote bool
	if err := st.Read(context.Background(), func(v state.View) {
		last = v.Graph.HasNode("code:function:bundle.min.js::f32999")
		for _, fi := range v.Graph.Files() {
			if fi.Extractor != extract.ExtractorJSTS || fi.Path != "bundle.min.js" {
				continue
			}
			for _, e := range fi.ParseErrors {
				trimNote = trimNote || strings.Contains(e, "trimmed to fit")
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !last || !trimNote {
		t.Fatalf("last function in the graph %v, trim noted %v", last, trimNote)
	}
	t.Logf("bundle: %d bytes, %d nodes, %d edges, %d split, %d trimmed, %d events, %.1f s", rep.Bytes, rep.Nodes, rep.Edges, rep.FilesSplit, rep.FilesTrimmed, rep.Events, rep.Seconds)
}
