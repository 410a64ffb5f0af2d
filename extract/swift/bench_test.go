//go:build unix

package swift

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"
)

// The benchmarks report lines per CPU-second besides lines per second:
// the machine they run on may be shared, and the figure that matters is
// the CPU an extraction costs.

// projectFiles reads the .swift files under $COS_SWIFT_ROOT (the
// benchmarks skip when unset).
func projectFiles(b *testing.B) (map[string][]byte, int) {
	root := os.Getenv("COS_SWIFT_ROOT")
	if root == "" {
		b.Skip("set COS_SWIFT_ROOT to a Swift project's folder")
	}
	files, lines := map[string][]byte{}, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".swift") {
			if data, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				files[filepath.ToSlash(rel)] = data
				lines += bytes.Count(data, []byte("\n"))
			}
		}
		return nil
	})
	return files, lines
}

// cpuSeconds is the CPU time (user and system) the process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkParse parses every file of the project: the grammar's share.
func BenchmarkParse(b *testing.B) {
	files, lines := projectFiles(b)
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for range b.N {
		for _, data := range files {
			tree, err := ts.Parse(language, data)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(lines*b.N)/(cpuSeconds()-cpu0), "lines/cpu-s")
}

// BenchmarkExtract extracts every file of the project (no resolution).
func BenchmarkExtract(b *testing.B) {
	files, lines := projectFiles(b)
	env := &lang.Env{Files: map[string]bool{}}
	for p := range files {
		env.Files[p] = true
	}
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for range b.N {
		for p, data := range files {
			extract(&lang.Result{Path: p, Extractor: lang.ExtractorSwift}, data, env)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(lines*b.N)/(cpuSeconds()-cpu0), "lines/cpu-s")
}
