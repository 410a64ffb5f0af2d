package tools

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
)

// BenchmarkIndex_GoSrc indexes a copy of $(go env GOROOT)/src (about 10,000
// files) the way `cos index` does: Indexer.Index, then the projections and
// the search index catch up and a snapshot is written, so the next run
// starts warm. Targets on 2 cores (issue 6): full ≤ 90 s, no change ≤ 5 s,
// ten edited files ≤ 2 s. It reports events and bytes appended per run
// and, for the full run, the catch-up ("project-s"). Run with
//
//	go test -run '^$' -bench BenchmarkIndex_GoSrc -benchtime 1x ./tools
func BenchmarkIndex_GoSrc(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no GOROOT/src: %v", err)
	}
	root := filepath.Join(b.TempDir(), "src")
	if err := copyTree(src, root); err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	ctx := context.Background()
	open := func() *testServer {
		s, err := openTestServer(ctx, testOptions{StateDir: state, Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	report := func(b *testing.B, rep indexing.Report) {
		b.ReportMetric(float64(rep.Events), "events/op")
		b.ReportMetric(float64(rep.Bytes), "bytes-appended/op")
		b.ReportMetric(float64(rep.FilesSeen), "files/op")
		b.ReportMetric(rep.Seconds, "index-s/op")
	}
	settle := func(b *testing.B, s *testServer) float64 {
		start := time.Now()
		if _, err := s.tailer.CatchUp(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := s.tailer.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start).Seconds()
	}

	indexed := false // whether state holds an index of root
	warm := func(b *testing.B) {
		if indexed {
			return
		}
		s := open()
		defer s.Close()
		if _, err := s.Index(ctx, root, nil); err != nil {
			b.Fatal(err)
		}
		settle(b, s)
		indexed = true
	}

	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			_ = os.RemoveAll(state)
			s := open()
			b.StartTimer()
			rep, err := s.Index(ctx, root, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(settle(b, s), "project-s/op")
			s.Close()
			indexed = true
			report(b, rep)
			b.StartTimer()
		}
	})
	if b.Failed() {
		return
	}
	b.Run("nochange", func(b *testing.B) {
		warm(b)
		s := open()
		defer s.Close()
		for b.Loop() {
			rep, err := s.Index(ctx, root, nil)
			if err != nil {
				b.Fatal(err)
			}
			if rep.Events != 0 {
				b.Fatalf("no-change index appended %d events", rep.Events)
			}
			report(b, rep)
		}
	})
	b.Run("edit10", func(b *testing.B) {
		warm(b)
		s := open()
		files := tenGoFiles(b, s, root)
		defer s.Close()
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			for _, f := range files {
				appendLine(b, f, fmt.Sprintf("\n// edit %d\n", i))
			}
			b.StartTimer()
			rep, err := s.Index(ctx, root, nil)
			if err != nil {
				b.Fatal(err)
			}
			if rep.FilesChanged != len(files) {
				b.Fatalf("%d files changed, want %d", rep.FilesChanged, len(files))
			}
			report(b, rep)
		}
	})
}

// tenGoFiles picks ten indexed, non-test Go files spread over the tree
// (files the walk skips — vendor/, too large — would not count as changed).
func tenGoFiles(b *testing.B, s *testServer, root string) []string {
	var all []string
	s.tailer.View(func(projections.Position) {
		for p := range s.graph.FileHashes() {
			if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "testdata") {
				all = append(all, filepath.Join(root, filepath.FromSlash(p)))
			}
		}
	})
	sort.Strings(all)
	if len(all) < 10 {
		b.Fatalf("only %d Go files", len(all))
	}
	out := make([]string, 0, 10)
	for i := 0; i < 10; i++ {
		out = append(out, all[i*len(all)/10])
	}
	return out
}

func appendLine(b *testing.B, path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		b.Fatal(err)
	}
}

// copyTree copies regular files and folders (not symlinks) from src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
