package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestRun_LangProject indexes the tree named by COS_LANG_DIR (a real
// project exported outside the repository) and reports what a new
// language's extractor made of it: files and lines per extractor, nodes,
// edges by type, wall time and lines/s. The run must complete with no
// dangling edge and no node emitted differently by two files.
func TestRun_LangProject(t *testing.T) {
	root := os.Getenv("COS_LANG_DIR")
	if root == "" {
		t.Skip("set COS_LANG_DIR to a project folder")
	}
	start, cpu0 := time.Now(), cpuTime()
	res := index(t, root, Options{CacheDir: t.TempDir()}, nil)
	wall, cpu := time.Since(start), cpuTime()-cpu0
	files, lines := map[string]int{}, map[string]int{}
	edges := map[string]int{}
	nodes := 0
	for p, pl := range res.Payloads {
		files[pl.Extractor]++
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			lines[pl.Extractor] += bytes.Count(data, []byte("\n"))
		}
		nodes += len(pl.Nodes)
		for _, e := range pl.Edges {
			edges[e.Type]++
			if e.Type == "calls" && strings.HasPrefix(e.Target, "code:external:") {
				edges["calls to stubs"]++
			}
		}
	}
	var byType []string
	for k, v := range edges {
		byType = append(byType, k+"="+itoa(v))
	}
	sort.Strings(byType)
	var byX []string
	for k, v := range files {
		byX = append(byX, k+": "+itoa(v)+" files, "+itoa(lines[k])+" lines")
	}
	sort.Strings(byX)
	total := 0
	for _, n := range lines {
		total += n
	}
	t.Logf("%s\n  %s\n  nodes %d (stats %d), edges %d: %s\n  parse errors in %d files, failed %d, skipped %d\n  wall %v, %.0f lines/s; CPU %v, %.0f lines/s/core (all files, run and checks)",
		root, strings.Join(byX, "\n  "), nodes, res.Stats.Nodes, res.Stats.Edges, strings.Join(byType, " "),
		res.Stats.FilesWithParseErrors, res.Stats.FilesFailed, res.Stats.FilesSkipped, wall, float64(total)/wall.Seconds(), cpu, float64(total)/cpu.Seconds())
	if d := dangling(res.Payloads); len(d) > 0 {
		t.Errorf("%d dangling edges, e.g. %v", len(d), d[:min(5, len(d))])
	}
	if c := conflicting(res.Payloads); len(c) > 0 {
		t.Errorf("%d nodes emitted differently by several files, e.g. %v", len(c), c[:min(5, len(c))])
	}
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
