package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// writeCTree writes a C tree shaped like a kernel subsystem under root:
// dirs folders of files .c files each, a header per folder, a shared
// include/ header, and calls from every function into the next file and
// the next folder (through the headers), so that resolution crosses
// files and folders. It returns the repo-relative paths of the .c files.
func writeCTree(tb testing.TB, root string, dirs, files int) []string {
	tb.Helper()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("include/common.h", "#ifndef COMMON_H\n#define COMMON_H\nstruct dev { int id; void *priv; };\n#define DEV_ID(d) ((d)->id)\nint common_log(const char *msg, int level);\n#endif\n")
	var cs []string
	for d := range dirs {
		var h strings.Builder
		fmt.Fprintf(&h, "#ifndef SUB%d_H\n#define SUB%d_H\n#include \"../include/common.h\"\n", d, d)
		for f := range files {
			for k := range 4 {
				fmt.Fprintf(&h, "int sub%d_f%d_fn%d(struct dev *d, int n);\n", d, f, k)
			}
		}
		h.WriteString("#endif\n")
		write(fmt.Sprintf("sub%d/sub%d.h", d, d), h.String())
		for f := range files {
			var c strings.Builder
			fmt.Fprintf(&c, "#include \"sub%d.h\"\n#include \"../sub%d/sub%d.h\"\n\n", d, (d+1)%dirs, (d+1)%dirs)
			fmt.Fprintf(&c, "struct sub%d_f%d_state {\n\tstruct dev *dev;\n\tint count;\n};\n\n", d, f)
			fmt.Fprintf(&c, "static int sub%d_f%d_helper(struct sub%d_f%d_state *s)\n{\n\treturn s->count + DEV_ID(s->dev);\n}\n\n", d, f, d, f)
			for k := range 4 {
				fmt.Fprintf(&c, "int sub%d_f%d_fn%d(struct dev *d, int n)\n{\n\tstruct sub%d_f%d_state s = { .dev = d, .count = n };\n", d, f, k, d, f)
				fmt.Fprintf(&c, "\tif (n <= 0)\n\t\treturn common_log(\"done\", %d);\n", k)
				fmt.Fprintf(&c, "\tn = sub%d_f%d_fn%d(d, n - 1);\n", d, (f+1)%files, (k+1)%4)
				fmt.Fprintf(&c, "\tn += sub%d_f%d_fn%d(d, n - 2);\n", (d+1)%dirs, f, k)
				fmt.Fprintf(&c, "\treturn n + sub%d_f%d_helper(&s);\n}\n\n", d, f)
			}
			rel := fmt.Sprintf("sub%d/file%d.c", d, f)
			write(rel, c.String())
			cs = append(cs, rel)
		}
	}
	write("lib/common.c", "#include \"../include/common.h\"\n\nint common_log(const char *msg, int level)\n{\n\treturn level + (msg != 0);\n}\n")
	return cs
}

// runPayloads runs Run on root and returns the payloads emitted, in
// order, as JSON (what the log would append, without the extraction's
// duration), and the new previous map.
func runPayloads(tb testing.TB, root string, opts Options, previous map[string]string) ([]string, map[string]string) {
	tb.Helper()
	next := make(map[string]string, len(previous))
	for k, v := range previous {
		next[k] = v
	}
	var out []string
	_, err := Run(context.Background(), root, opts, previous, func(batch []graph.FileExtracted, removed []string) error {
		for _, p := range batch {
			p.DurationMS = 0 // the one field that differs run to run
			data, err := json.Marshal(p)
			if err != nil {
				return err
			}
			out = append(out, string(data))
			next[p.Path] = p.ContentHash
		}
		for _, p := range removed {
			delete(next, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out, next
}

// TestRun_CTreeBatchesEmitAlike runs the generated C tree in batches of
// one file (each handed to emit while the next is resolved) and in one
// batch: the payloads, their order and the calls resolved across files
// are the same. It also keeps the code of BenchmarkRun_CTree running in
// the test suite on a small tree.
func TestRun_CTreeBatchesEmitAlike(t *testing.T) {
	root := t.TempDir()
	writeCTree(t, root, 4, 6)
	one, _ := runPayloads(t, root, Options{CacheDir: t.TempDir(), BatchFiles: 1}, nil)
	whole, _ := runPayloads(t, root, Options{CacheDir: t.TempDir(), BatchFiles: 1 << 20, BatchBytes: 1 << 30}, nil)
	if len(one) != 4*6+4+2 {
		t.Fatalf("%d payloads emitted, want %d", len(one), 4*6+4+2)
	}
	if !reflect.DeepEqual(one, whole) {
		for i := range one {
			if i < len(whole) && one[i] != whole[i] {
				a, b := one[i], whole[i]
				j := 0
				for j < len(a) && j < len(b) && a[j] == b[j] {
					j++
				}
				t.Logf("payload %d differs at %d: %q vs %q", i, j, a[max(j-80, 0):min(j+80, len(a))], b[max(j-80, 0):min(j+80, len(b))])
				break
			}
		}
		t.Fatalf("payloads differ between batches of one file and one batch")
	}
	// A call into the next folder resolved to its definition there.
	var p graph.FileExtracted
	for _, s := range one {
		if strings.Contains(s, `"path":"sub0/file0.c"`) {
			if err := json.Unmarshal([]byte(s), &p); err != nil {
				t.Fatal(err)
			}
		}
	}
	var crossed bool
	for _, e := range p.Edges {
		if e.Type == graph.EdgeCalls && strings.Contains(e.Target, "sub1/file0.c") {
			crossed = true
		}
	}
	if !crossed {
		t.Fatalf("no calls edge from sub0/file0.c into sub1/file0.c: %v", p.Edges)
	}
	benchCTree(t, root, 10)
}

// benchCTree runs a fresh index, a no-change re-index and an edit of
// edits .c files of the C tree at root, once each, as the benchmark does;
// tb is a *testing.T in the test suite.
func benchCTree(tb testing.TB, root string, edits int) (fresh, none, edited int) {
	tb.Helper()
	cache := tb.TempDir()
	out, prev := runPayloads(tb, root, Options{CacheDir: cache}, nil)
	fresh = len(out)
	out, prev = runPayloads(tb, root, Options{CacheDir: cache}, prev)
	none = len(out)
	var cs []string
	for p := range prev {
		if filepath.Ext(p) == ".c" {
			cs = append(cs, p)
		}
	}
	sort.Strings(cs)
	step := max(len(cs)/edits, 1)
	for k := 0; k < edits && k*step < len(cs); k++ {
		f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(cs[k*step])), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(f, "\n/* edit %d */\n", k)
		f.Close()
	}
	out, _ = runPayloads(tb, root, Options{CacheDir: cache}, prev)
	edited = len(out)
	if none != 0 || edited < min(edits, len(cs)) {
		tb.Fatalf("no-change run emitted %d files, the edit %d (want 0 and at least %d)", none, edited, min(edits, len(cs)))
	}
	return fresh, none, edited
}

// BenchmarkRun_CTree indexes a generated C tree (COS_BENCH_CTREE names a
// real one instead, e.g. a copy of the Linux kernel, which it edits),
// re-indexes it with no change and after a 10-file edit, per iteration.
func BenchmarkRun_CTree(b *testing.B) {
	root := os.Getenv("COS_BENCH_CTREE")
	if root == "" {
		root = b.TempDir()
		writeCTree(b, root, 40, 50)
	}
	var fresh int
	for b.Loop() {
		fresh, _, _ = benchCTree(b, root, 10)
	}
	b.ReportMetric(float64(fresh), "files")
}

// TestRun_EmitFailureMidway: emit refuses the third batch while later
// batches are being resolved; Run ends with ErrEmit, having handed emit
// nothing after the refusal, and the next run emits exactly the files not
// accepted.
func TestRun_EmitFailureMidway(t *testing.T) {
	root := t.TempDir()
	writeCTree(t, root, 2, 5)
	cache := t.TempDir()
	graphHashes := map[string]string{}
	calls := 0
	_, err := Run(context.Background(), root, Options{CacheDir: cache, BatchFiles: 1}, nil, func(b []graph.FileExtracted, _ []string) error {
		calls++
		if calls == 3 {
			return fmt.Errorf("disk full")
		}
		if calls > 3 {
			t.Errorf("emit called again after it failed")
		}
		for _, p := range b {
			graphHashes[p.Path] = p.ContentHash
		}
		return nil
	})
	if !errors.Is(err, ErrEmit) {
		t.Fatalf("Run = %v, want ErrEmit", err)
	}
	if len(graphHashes) != 2 {
		t.Fatalf("%d files accepted, want 2", len(graphHashes))
	}
	rest, next := runPayloads(t, root, Options{CacheDir: cache}, clone(graphHashes))
	all, want := runPayloads(t, root, Options{CacheDir: t.TempDir()}, nil)
	if len(rest) != len(all)-2 || !reflect.DeepEqual(next, want) {
		t.Fatalf("resumed run emitted %d files, want %d; graph %d files, want %d", len(rest), len(all)-2, len(next), len(want))
	}
}

// BenchmarkRun_CTreeDeclEdit re-indexes the generated C tree (40 folders of
// 50 files) after a function is appended to one .c file and after it is
// removed again, per iteration: declaration edits in the one C scope. The
// files each run extracts again as dependents are reported (reextracted/op:
// those that read the new name; before names were recorded, every C file).
func BenchmarkRun_CTreeDeclEdit(b *testing.B) {
	root := b.TempDir()
	cs := writeCTree(b, root, 40, 50)
	ageTree(b, root, time.Hour) // stats trusted: only the edited file is read to be hashed
	cache := b.TempDir()
	_, prev := runPayloads(b, root, Options{CacheDir: cache}, nil)
	target := filepath.Join(root, filepath.FromSlash(cs[len(cs)/2]))
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	var opened atomic.Int64
	opts := Options{CacheDir: cache, open: func(name string) (io.ReadCloser, error) { opened.Add(1); return os.Open(name) }}
	runs := 0
	for b.Loop() {
		for _, content := range [][]byte{append(slices.Clip(orig), "\nint bench_new_fn(int x) { return x; }\n"...), orig} {
			if err := os.WriteFile(target, content, 0o644); err != nil {
				b.Fatal(err)
			}
			at := time.Now().Add(-time.Hour + time.Duration(runs)*time.Second)
			if err := os.Chtimes(target, at, at); err != nil {
				b.Fatal(err)
			}
			_, prev = runPayloads(b, root, opts, prev)
			runs++
		}
	}
	b.ReportMetric(float64(opened.Load())/float64(runs), "files_read/run")
}
