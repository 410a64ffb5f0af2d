package rust

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"
)

// BenchmarkExtract extracts every .rs file under $COS_RUST_ROOT (skipped
// when unset) once per iteration and reports lines per second, with the
// share of the time tree-sitter's parse alone takes (BenchmarkParse).
func BenchmarkExtract(b *testing.B) { benchFiles(b, false) }

// BenchmarkParse only parses the same files.
func BenchmarkParse(b *testing.B) { benchFiles(b, true) }

func benchFiles(b *testing.B, parseOnly bool) {
	root := os.Getenv("COS_RUST_ROOT")
	if root == "" {
		b.Skip("set COS_RUST_ROOT to a Rust project's folder")
	}
	files := map[string][]byte{}
	paths := map[string]bool{}
	lines := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		paths[rel] = true
		if strings.HasSuffix(p, ".rs") {
			data, _ := os.ReadFile(p)
			files[rel] = data
			lines += bytes.Count(data, []byte("\n"))
		}
		return nil
	})
	env := &lang.Env{Files: paths}
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		for p, data := range files {
			if parseOnly {
				tree, err := ts.Parse(language, data)
				if err == nil {
					tree.Close()
				}
				continue
			}
			extract(&lang.Result{Path: p, Extractor: lang.ExtractorRust}, data, env)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(lines*b.N)/(cpuTime()-cpu0).Seconds(), "lines/cpu-s")
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine, wall time does not measure the extractor.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
