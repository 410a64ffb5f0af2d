package scala

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/lang"
)

// BenchmarkExtract extracts every .scala file under COS_LANG_DIR (a real
// project exported outside the repository), reporting lines/s on one
// core (parse and extraction; resolution is package resolve's).
func BenchmarkExtract(b *testing.B) {
	root := os.Getenv("COS_LANG_DIR")
	if root == "" {
		b.Skip("set COS_LANG_DIR to a project folder")
	}
	type src struct {
		path string
		data []byte
	}
	var files []src
	lines := 0
	files2 := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(Extractor{}).Owns(p) {
			return nil
		}
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		files = append(files, src{rel, data})
		files2[rel] = true
		lines += bytes.Count(data, []byte("\n"))
		return nil
	})
	env := &lang.Env{Files: files2}
	b.ResetTimer()
	for range b.N {
		for _, f := range files {
			r := &lang.Result{Path: f.path, Extractor: lang.ExtractorScala}
			Extractor{}.Extract(r, f.data, env)
			if strings.HasPrefix(r.Path, "/") {
				b.Fatal("absolute path")
			}
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}
