package extract

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// TestRun_RustProject indexes the Rust project at $COS_RUST_ROOT (skipped
// when unset): no file fails, no edge dangles, no node conflicts; it logs
// files, nodes, edges by type, the share of calls resolved in the tree,
// the wall time and the .rs lines per second.
func TestRun_RustProject(t *testing.T) {
	root := os.Getenv("COS_RUST_ROOT")
	if root == "" {
		t.Skip("set COS_RUST_ROOT to a Rust project's folder")
	}
	lines, rsFiles := 0, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rs") {
			if data, err := os.ReadFile(p); err == nil {
				rsFiles++
				lines += bytes.Count(data, []byte("\n"))
			}
		}
		return nil
	})
	cpu0 := cpuTime()
	start := time.Now()
	res := index(t, root, Options{}, nil)
	wall := time.Since(start)
	cpu := cpuTime() - cpu0
	if res.Stats.FilesFailed > 0 {
		t.Errorf("failed files: %v", res.Stats.Failed)
	}
	if d := dangling(res.Payloads); len(d) > 0 {
		t.Errorf("%d dangling edges, e.g. %v", len(d), d[:min(5, len(d))])
	}
	if c := conflicting(res.Payloads); len(c) > 0 {
		t.Errorf("%d nodes emitted differently by several files, e.g. %v", len(c), c[:min(5, len(c))])
	}
	byType := map[string]int{}
	nodes, parseErr, inTree, stubbed := 0, 0, 0, 0
	for _, pl := range res.Payloads {
		nodes += len(pl.Nodes)
		if len(pl.ParseErrors) > 0 && strings.HasSuffix(pl.Path, ".rs") {
			parseErr++
		}
		for _, e := range pl.Edges {
			byType[e.Type]++
			if e.Type == graph.EdgeCalls && strings.HasSuffix(pl.Path, ".rs") {
				if strings.HasPrefix(e.Target, "code:external:") {
					stubbed++
				} else {
					inTree++
				}
			}
		}
	}
	var types []string
	for k := range byType {
		types = append(types, k)
	}
	sort.Strings(types)
	var parts []string
	for _, k := range types {
		parts = append(parts, k+"="+strconv.Itoa(byType[k]))
	}
	t.Logf("files %d (.rs %d, %d lines, %d with syntax errors), nodes %d, edges %s", res.Stats.FilesSeen, rsFiles, lines, parseErr, nodes, strings.Join(parts, " "))
	t.Logf("calls from .rs: %d in tree, %d to stubs; wall %v (%.0f .rs lines/s), CPU %v (%.0f .rs lines per CPU-second)",
		inTree, stubbed, wall.Round(time.Millisecond), float64(lines)/wall.Seconds(), cpu.Round(time.Millisecond), float64(lines)/cpu.Seconds())
}
