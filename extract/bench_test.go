package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/graph"
)

var (
	gorootOnce sync.Once
	goroot     string
)

// goStdlib is the real Go input: $(go env GOROOT)/src.
func goStdlib(tb testing.TB) string {
	tb.Helper()
	gorootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err == nil {
			goroot = strings.TrimSpace(string(out))
		}
	})
	if goroot == "" {
		tb.Skip("go env GOROOT failed")
	}
	return filepath.Join(goroot, "src")
}

// runCounting runs Run and returns the new previous map, the number of
// payloads (events) and their JSON size in bytes (what the log would add).
func runCounting(b *testing.B, root string, opts Options, previous map[string]string) (map[string]string, int, int) {
	b.Helper()
	next := make(map[string]string, len(previous))
	for k, v := range previous {
		next[k] = v
	}
	events, bytes := 0, 0
	_, err := Run(context.Background(), root, opts, previous, func(batch []graph.FileExtracted, removed []string) error {
		for _, p := range batch {
			data, err := json.Marshal(p)
			if err != nil {
				return err
			}
			events++
			bytes += len(data)
			next[p.Path] = p.ContentHash
		}
		for _, p := range removed {
			events++
			delete(next, p)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return next, events, bytes
}

// BenchmarkRun_GoStdlibFull extracts GOROOT/src from scratch (empty graph,
// empty cache) and marshals every payload, as the log append would.
func BenchmarkRun_GoStdlibFull(b *testing.B) {
	var events, bytes int
	for b.Loop() {
		_, events, bytes = runCounting(b, goStdlib(b), Options{CacheDir: b.TempDir()}, nil)
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(bytes)/(1<<20), "MiB")
}

// BenchmarkRun_GoStdlibNoChange re-indexes GOROOT/src with nothing changed.
func BenchmarkRun_GoStdlibNoChange(b *testing.B) {
	cache := b.TempDir()
	prev, _, _ := runCounting(b, goStdlib(b), Options{CacheDir: cache}, nil)
	var events int
	for b.Loop() {
		_, events, _ = runCounting(b, goStdlib(b), Options{CacheDir: cache}, prev)
	}
	b.ReportMetric(float64(events), "events")
}

// BenchmarkRun_GoStdlibEdit10 re-indexes a copy of GOROOT/src after a body
// edit of 10 files (a comment appended to each).
func BenchmarkRun_GoStdlibEdit10(b *testing.B) {
	root := copyTree(b, goStdlib(b))
	cache := b.TempDir()
	prev, _, _ := runCounting(b, root, Options{CacheDir: cache}, nil)
	var files []string
	for p := range prev {
		if filepath.Ext(p) == ".go" {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	step := len(files) / 10
	var events, bytes int
	i := 0
	for b.Loop() {
		b.StopTimer()
		for k := range 10 {
			p := filepath.Join(root, filepath.FromSlash(files[k*step]))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "\n// edit %d\n", i)
			f.Close()
		}
		i++
		b.StartTimer()
		prev, events, bytes = runCounting(b, root, Options{CacheDir: cache}, prev)
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(bytes)/(1<<10), "KiB")
}

// BenchmarkRun_GoStdlibInterfaceEdit re-indexes a copy of GOROOT/src
// after a new interface is added to image (one method, Opaque): the image
// packages and the packages declaring a type with an Opaque method are
// checked again, not the whole tree. typed_files is how many Go files the
// run extracted with types.
func BenchmarkRun_GoStdlibInterfaceEdit(b *testing.B) {
	root := copyTree(b, goStdlib(b))
	cache := b.TempDir()
	prev, _, _ := runCounting(b, root, Options{CacheDir: cache}, nil)
	p := filepath.Join(root, "image", "image.go")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	var st Stats
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		src := fmt.Sprintf("%s\n// Opaquer%d is an image that says whether it is opaque.\ntype Opaquer%d interface{ Opaque() bool }\n", orig, i, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		next := maps.Clone(prev)
		st, err = Run(context.Background(), root, Options{CacheDir: cache}, prev, func(batch []graph.FileExtracted, removed []string) error {
			for _, pl := range batch {
				next[pl.Path] = pl.ContentHash
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		prev = next
	}
	b.ReportMetric(float64(st.GoFilesTyped), "typed_files")
	b.ReportMetric(float64(st.GoPackagesChecked), "packages_checked")
}
