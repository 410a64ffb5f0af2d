package envelope

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. The benchmarks report it
// per op next to wall time because this machine is shared: wall time there
// measures the neighbours as much as the code.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs op b.N times and reports cpu-ms/op.
func loop(b *testing.B, op func()) {
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		op()
		n++
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
}

type benchHit struct {
	UID     string  `json:"uid"`
	Kind    string  `json:"kind"`
	Label   string  `json:"label"`
	Path    string  `json:"path"`
	Line    int     `json:"line"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

type benchBody struct {
	Query   string     `json:"query"`
	Total   int        `json:"total"`
	Results []benchHit `json:"results"`
}

// listHeavy returns a search-shaped body whose JSON is about size bytes.
func listHeavy(size int) benchBody {
	var b benchBody
	b.Query = "envelope budget"
	snippet := strings.Repeat("func trim(body map[string]any) — ", 3)
	for n := 0; n < size; {
		h := benchHit{
			UID: fmt.Sprintf("code:tools/envelope/budget.go:trim%d", len(b.Results)), Kind: "function",
			Label: fmt.Sprintf("trim%d", len(b.Results)), Path: "tools/envelope/budget.go",
			Line: len(b.Results) % 900, Score: 0.5, Snippet: snippet,
		}
		b.Results = append(b.Results, h)
		n += 200
	}
	b.Total = len(b.Results)
	return b
}

var benchSizes = []struct {
	name  string
	bytes int
}{{"0.5MB", 500_000}, {"5MB", 5_000_000}, {"50MB", 50_000_000}}

// BenchmarkOK_ListHeavy is the whole path a handler pays: encode the struct,
// decode it generically, trim to the default budget, serialize.
func BenchmarkOK_ListHeavy(b *testing.B) {
	for _, s := range benchSizes {
		body := listHeavy(s.bytes)
		raw, _ := json.Marshal(body)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			loop(b, func() {
				env := OK(body, Meta{Layer: layerDocs}, Options{})
				if env.Meta()[KeyTruncated] != true {
					b.Fatal("not trimmed")
				}
			})
		})
	}
}

// BenchmarkOK_ListHeavyGeneric is OK on a body that is already a generic
// map: no round trip, one validating walk, then the trim.
func BenchmarkOK_ListHeavyGeneric(b *testing.B) {
	for _, s := range benchSizes {
		tree, err := normalize(listHeavy(s.bytes))
		if err != nil {
			b.Fatal(err)
		}
		raw := appendValue(nil, tree)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			loop(b, func() {
				env := OK(tree, Meta{Layer: layerDocs}, Options{})
				if env.Meta()[KeyTruncated] != true {
					b.Fatal("not trimmed")
				}
			})
		})
	}
}

// BenchmarkTrim_ListHeavy is the trim alone, on an already decoded body.
func BenchmarkTrim_ListHeavy(b *testing.B) {
	for _, s := range benchSizes {
		tree, err := normalize(listHeavy(s.bytes))
		if err != nil {
			b.Fatal(err)
		}
		raw := appendValue(nil, tree)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			loop(b, func() {
				env := okBody(maps.Clone(tree), Meta{Layer: layerDocs}, Options{}.withDefaults())
				if env.Meta()[KeyTruncated] != true || len(env.JSON()) > DefaultBudgetChars {
					b.Fatal("not trimmed to budget")
				}
			})
		})
	}
}

// BenchmarkTrim_ManyLists spreads the bytes over five list keys, so the
// ladder walks several rungs.
func BenchmarkTrim_ManyLists(b *testing.B) {
	tree, err := normalize(listHeavy(5_000_000))
	if err != nil {
		b.Fatal(err)
	}
	all := tree["results"].([]any)
	keys := []string{"results", "references", "call_sites", "samples", "dead"}
	per := len(all) / len(keys)
	for i, k := range keys {
		tree[k] = all[i*per : (i+1)*per]
	}
	b.Run("5MB", func(b *testing.B) {
		loop(b, func() {
			okBody(maps.Clone(tree), Meta{}, Options{}.withDefaults())
		})
	})
}

// BenchmarkOK_Subgraph trims a 10 MB graph export to the 5 MB ceiling.
func BenchmarkOK_Subgraph(b *testing.B) {
	n := 40_000
	nodes := make([]any, n)
	for i := range nodes {
		nodes[i] = map[string]any{"uid": fmt.Sprintf("code:pkg/file%d.go", i), "kind": "file", "label": strings.Repeat("l", 120)}
	}
	edges := make([]any, 3*n)
	for j := range edges {
		edges[j] = map[string]any{"source": fmt.Sprintf("code:pkg/file%d.go", j%n), "target": fmt.Sprintf("code:pkg/file%d.go", (j*7919)%n), "type": "calls"}
	}
	tree := map[string]any{"nodes": nodes, "edges": edges}
	b.SetBytes(int64(len(appendValue(nil, tree))))
	loop(b, func() {
		env := okBody(maps.Clone(tree), Meta{}, Options{}.withDefaults())
		if env.Meta()[KeyTruncatedSubgraph] != true {
			b.Fatal("not trimmed")
		}
	})
}
