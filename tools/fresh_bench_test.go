package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// BenchmarkContext_Freshness20Files measures what read-your-edits adds to
// a cos_graph_context answer that names 20 files when nothing changed:
// "check" runs the freshness check, "no_check" a runner without one. Each
// reports p50-ns, the median of one call.
func BenchmarkContext_Freshness20Files(b *testing.B) {
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "hub.go": "package m\n\nfunc Hub() {}\n"}
	for i := range 20 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package m\n\nfunc F%02d() { Hub() }\n", i)
	}
	root := testutil.WriteTree(b, files)
	root, _ = filepath.EvalSymlinks(root)
	old := time.Now().Add(-time.Hour) // not racy: the stat path
	for p := range files {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			b.Fatal(err)
		}
	}
	s := idxOpen(b, b.TempDir(), root)
	if _, err := s.Index(context.Background(), root, nil); err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"uid_or_name": "code:function:hub.go::Hub"}`)
	fresh := s.r.fresh
	for _, mode := range []string{"check", "no_check"} {
		b.Run(mode, func(b *testing.B) {
			s.r.fresh = fresh
			if mode == "no_check" {
				s.r.fresh = nil
			}
			defer func() { s.r.fresh = fresh }()
			e := s.Call(context.Background(), "cos_graph_context", args)
			if !e.OK() {
				b.Fatalf("%s", e.JSON())
			}
			if n := len(jsonPaths(b, e.Data())); n < 20 {
				b.Fatalf("the answer names %d files, want ≥ 20", n)
			}
			var times []time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				e := s.Call(context.Background(), "cos_graph_context", args)
				times = append(times, time.Since(start))
				if !e.OK() {
					b.Fatal(string(e.JSON()))
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
		})
	}
}
