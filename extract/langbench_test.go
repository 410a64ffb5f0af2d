package extract

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/c"
	"github.com/cos-dev/cos/extract/cpp"
	"github.com/cos-dev/cos/extract/java"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/php"
	"github.com/cos-dev/cos/extract/ruby"
	"github.com/cos-dev/cos/extract/rust"
	"github.com/cos-dev/cos/graph"
)

// langBenches are the syntax-level languages measured on a real project:
// the environment variable naming the project's folder (the benchmark is
// skipped when it is unset) and the extractors whose files are counted
// (C and C++ together: a C++ project's headers go to the C extractor).
var langBenches = []struct {
	name, env string
	xs        []lang.Extractor
}{
	{"Java", "COS_JAVA_ROOT", []lang.Extractor{java.Extractor{}}},
	{"C", "COS_C_ROOT", []lang.Extractor{c.Extractor{}, cpp.Extractor{}}},
	{"CPP", "COS_CPP_ROOT", []lang.Extractor{c.Extractor{}, cpp.Extractor{}}},
	{"Rust", "COS_RUST_ROOT", []lang.Extractor{rust.Extractor{}}},
	{"PHP", "COS_PHP_ROOT", []lang.Extractor{php.Extractor{}}},
	{"Ruby", "COS_RUBY_ROOT", []lang.Extractor{ruby.Extractor{}}},
}

// langFile is one source file of a benchmarked project.
type langFile struct {
	rel  string
	x    lang.Extractor
	data []byte
}

// langProject reads the files under root the extractors xs own, with
// their line count, and the environment Run would give them.
func langProject(b *testing.B, root string, xs []lang.Extractor) ([]langFile, int, *lang.Env) {
	b.Helper()
	var files []langFile
	lines := 0
	env := &lang.Env{Files: map[string]bool{}, MaxDepth: DefaultMaxConfigDepth}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		env.Files[rel] = true
		if x := extractorOf(rel); x != nil {
			for _, want := range xs {
				if x.Name() != want.Name() {
					continue
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				files = append(files, langFile{rel: rel, x: x, data: data})
				lines += bytes.Count(data, []byte("\n"))
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Skipf("no file of the language under %s", root)
	}
	env.PHPAutoload = php.Autoload(env.Files, func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	})
	return files, lines, env
}

// BenchmarkLang measures each syntax-level language on the real project
// its environment variable names (COS_JAVA_ROOT, COS_C_ROOT, COS_CPP_ROOT,
// COS_RUST_ROOT, COS_PHP_ROOT, COS_RUBY_ROOT; skipped when unset):
// "extract" runs the language's extractor over every file it owns on one
// goroutine; "run" indexes the whole folder with Run (every file, the
// declarations table, resolution, payloads). Both report the language's
// lines per wall second (lines/s) and per second of process CPU time
// (lines/cpu-s, i.e. lines/s/core: on a shared machine wall time does not
// measure the extractor).
func BenchmarkLang(b *testing.B) {
	for _, lb := range langBenches {
		b.Run(lb.name, func(b *testing.B) {
			root := os.Getenv(lb.env)
			if root == "" {
				b.Skipf("set %s to a project's folder", lb.env)
			}
			files, lines, env := langProject(b, root, lb.xs)
			b.Run("extract", func(b *testing.B) {
				cpu0 := cpuTime()
				for b.Loop() {
					for _, f := range files {
						r := &lang.Result{Path: f.rel, Extractor: f.x.Name(), Hash: "h", Size: int64(len(f.data))}
						f.x.Extract(r, f.data, env)
					}
				}
				reportLines(b, lines, cpuTime()-cpu0)
			})
			b.Run("run", func(b *testing.B) {
				cpu0 := cpuTime()
				for b.Loop() {
					_, err := Run(context.Background(), root, Options{}, nil, func([]graph.FileExtracted, []string) error { return nil })
					if err != nil {
						b.Fatal(err)
					}
				}
				reportLines(b, lines, cpuTime()-cpu0)
			})
		})
	}
}

// reportLines reports lines per wall second and per CPU second over the
// b.N iterations that took cpu of process CPU time.
func reportLines(b *testing.B, lines int, cpu time.Duration) {
	b.Helper()
	total := float64(lines) * float64(b.N)
	b.ReportMetric(float64(lines), "lines")
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(total/s, "lines/s")
	}
	if s := cpu.Seconds(); s > 0 {
		b.ReportMetric(total/s, "lines/cpu-s")
	}
}
