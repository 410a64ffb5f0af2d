//go:build unix

package kotlin

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

// project reads the .kt files of the tree named by COS_LANG_DIR (a real
// project outside the repository); it skips b when the variable is unset.
func project(b *testing.B) (paths []string, data [][]byte, env *lang.Env, lines int) {
	root := os.Getenv("COS_LANG_DIR")
	if root == "" {
		b.Skip("set COS_LANG_DIR to a project folder")
	}
	env = &lang.Env{Files: map[string]bool{}}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".kt") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		env.Files[rel] = true
		paths, data = append(paths, rel), append(data, src)
		lines += bytes.Count(src, []byte("\n"))
		return nil
	})
	return paths, data, env, lines
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds lines/s of wall time and lines per CPU-second (the figure
// that holds on a shared machine).
func report(b *testing.B, lines int, cpu0 time.Duration) {
	total := float64(lines) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(total/(cpuTime()-cpu0).Seconds(), "lines/cpu-s")
}

// BenchmarkExtract_Project extracts every .kt file of COS_LANG_DIR: the
// extractor alone (parse, walk, references), resolution excluded.
func BenchmarkExtract_Project(b *testing.B) {
	paths, data, env, lines := project(b)
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		for i := range paths {
			r := &lang.Result{Path: paths[i], Extractor: lang.ExtractorKotlin}
			Extractor{}.Extract(r, data[i], env)
		}
	}
	report(b, lines, cpu0)
}

// BenchmarkParse_Project parses every .kt file of COS_LANG_DIR: the
// grammar's share of BenchmarkExtract_Project.
func BenchmarkParse_Project(b *testing.B) {
	_, data, _, lines := project(b)
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		for _, src := range data {
			if tree, err := ts.Parse(language, src); err == nil {
				tree.Close()
			}
		}
	}
	report(b, lines, cpu0)
}
