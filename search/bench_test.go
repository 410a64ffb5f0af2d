package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// benchNodes is the size of the synthetic graph of the benchmarks (issue 4:
// 100,000 nodes).
const benchNodes = 100_000

var benchWords = strings.Fields(`
	parse load save read write open close flush sync apply append build render
	resolve lookup find search index scan merge split join encode decode format
	validate check verify compute update delete insert create remove handle serve
	start stop run wait notify publish subscribe fetch store cache evict refresh
	config server client request response handler router session token event log
	stream cursor snapshot state graph node edge task board metric evidence bundle
	user profile account auth policy role permission file folder path module
	package import export schema field column table query result error status
	buffer reader writer queue worker pool batch chunk segment block page record
	json yaml toml http grpc sql url uuid id api tcp tls dns xml csv html
	manager factory builder visitor adapter provider context option value key
	name label kind type size count limit offset range window timer clock
`)

var benchDirs = strings.Fields(`src lib internal pkg cmd core server client api web ui store
	eventlog projections search tools extract bus docs scripts util common auth`)

// synthGraph returns n nodes with the identifier shapes of a real repository:
// folders, Go/Python/TS files, camelCase functions, PascalCase types,
// Type.method methods, snake_case Python functions, Markdown headings and
// packages. The same seed gives the same graph.
func synthGraph(n int, seed uint64) []graph.Node {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	word := func() string { return benchWords[rng.IntN(len(benchWords))] }
	title := func(w string) string {
		if w == "id" || w == "url" || w == "http" || w == "json" || w == "api" || w == "sql" || w == "xml" {
			return strings.ToUpper(w) // acronyms as Go writes them
		}
		return strings.ToUpper(w[:1]) + w[1:]
	}
	ident := func(words int, exported bool) string {
		var b strings.Builder
		for i := 0; i < words; i++ {
			w := word()
			if i == 0 && !exported {
				b.WriteString(w)
			} else {
				b.WriteString(title(w))
			}
		}
		return b.String()
	}
	seen := map[string]bool{}
	out := make([]graph.Node, 0, n)
	add := func(nd graph.Node) {
		if !seen[nd.UID] && len(out) < n {
			seen[nd.UID] = true
			out = append(out, nd)
		}
	}
	var files []string
	for len(out) < n {
		// A folder, then a file in it, then that file's symbols.
		depth := 1 + rng.IntN(3)
		parts := make([]string, depth)
		for i := range parts {
			parts[i] = benchDirs[rng.IntN(len(benchDirs))]
		}
		dir := strings.Join(parts, "/")
		add(graph.Node{UID: graph.FolderUID(dir), Kind: graph.KindFolder, Label: parts[depth-1], Path: dir})
		ext := []string{".go", ".go", ".go", ".py", ".ts", ".md"}[rng.IntN(6)]
		base := word() + "_" + word()
		if ext == ".ts" {
			base = word() + "-" + word()
		}
		file := dir + "/" + base + ext
		files = append(files, file)
		add(graph.Node{UID: graph.FileUID(file), Kind: kindOfFile(file), Label: base + ext, Path: file})
		for s := 0; s < 8+rng.IntN(10); s++ {
			switch ext {
			case ".go":
				typ := ident(1+rng.IntN(3), true)
				add(graph.Node{UID: "code:class:" + file + "::" + typ, Kind: graph.KindClass, Label: typ, Path: file})
				for m := 0; m < 1+rng.IntN(3); m++ {
					name := ident(1+rng.IntN(3), rng.IntN(2) == 0)
					add(graph.Node{UID: "code:function:" + file + "::" + typ + "." + name, Kind: graph.KindMethod, Label: name, Path: file})
				}
				fn := ident(2+rng.IntN(2), rng.IntN(2) == 0)
				add(graph.Node{UID: "code:function:" + file + "::" + fn, Kind: graph.KindFunction, Label: fn, Path: file})
			case ".py":
				fn := word() + "_" + word() + "_" + word()
				add(graph.Node{UID: "code:function:" + file + "::" + fn, Kind: graph.KindFunction, Label: fn, Path: file})
			case ".ts":
				fn := ident(2+rng.IntN(2), false)
				add(graph.Node{UID: "code:function:" + file + "::" + fn, Kind: graph.KindFunction, Label: fn, Path: file})
			case ".md":
				h := title(word()) + " " + word() + " " + word()
				slug := strings.ReplaceAll(strings.ToLower(h), " ", "-")
				add(graph.Node{UID: fmt.Sprintf("doc:heading:%s#%s:%d", file, slug, 2+rng.IntN(2)), Kind: graph.KindHeading, Label: h, Path: file})
			}
		}
		if rng.IntN(50) == 0 {
			pkg := word() + "-" + word()
			add(graph.Node{UID: "npm:package:" + pkg, Kind: graph.KindDependency, Label: pkg})
		}
	}
	_ = files
	return out
}

func kindOfFile(p string) string {
	if graph.IsDocPath(p) {
		return graph.KindDocFile
	}
	return graph.KindFile
}

// typo returns s with edits random single-rune substitutions, deletions or
// transpositions (a transposition counts as two edits).
func typo(rng *rand.Rand, s string, edits int) string {
	r := []rune(s)
	for e := 0; e < edits && len(r) > 3; {
		i := 1 + rng.IntN(len(r)-2)
		switch rng.IntN(3) {
		case 0:
			r[i] = 'a' + rune(rng.IntN(26))
			e++
		case 1:
			r = slices.Delete(r, i, i+1)
			e++
		default:
			if e+2 <= edits {
				r[i], r[i+1] = r[i+1], r[i]
				e += 2
			}
		}
	}
	return string(r)
}

// benchFixture is the 100k-node graph and its index, built once per test
// binary run and closed by TestMain.
var benchFixture struct {
	once  sync.Once
	dir   string
	nodes []graph.Node
	src   *memSource
	ix    *Index
	err   error
	build time.Duration
}

func loadBenchFixture(b *testing.B) (*Index, *memSource, []graph.Node) {
	b.Helper()
	f := &benchFixture
	f.once.Do(func() {
		f.nodes = synthGraph(benchNodes, 1)
		f.src = newMemSource(f.nodes)
		dir := os.Getenv("COS_SEARCH_BENCH_DIR")
		if dir == "" {
			if f.dir, f.err = os.MkdirTemp("", "cos-search-bench-"); f.err != nil {
				return
			}
			dir = f.dir
		}
		start := time.Now()
		f.ix, f.err = buildIndex(filepath.Join(dir, "search"), f.nodes)
		f.build = time.Since(start)
	})
	if f.err != nil {
		b.Fatal(f.err)
	}
	return f.ix, f.src, f.nodes
}

// closeBenchFixture releases what loadBenchFixture built; TestMain calls it.
func closeBenchFixture() {
	f := &benchFixture
	if f.ix != nil {
		_ = f.ix.Close()
	}
	if f.dir != "" {
		_ = os.RemoveAll(f.dir)
	}
}

// buildIndex indexes nodes in batches of 10,000, one seq per batch, the way
// a tailer catching up from an empty index would. Like a tailer it resumes
// after the checkpoint of a slot it reopens: with COS_SEARCH_BENCH_DIR set,
// the resolve benchmarks reuse the index a previous run left there.
func buildIndex(dir string, nodes []graph.Node) (*Index, error) {
	ctx := context.Background()
	ix, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	const chunk = 10_000
	for i, seq := 0, uint64(1); i < len(nodes); i, seq = i+chunk, seq+1 {
		if seq <= ix.Checkpoint() {
			continue
		}
		if err := ix.Apply(ctx, nodes[i:min(i+chunk, len(nodes))], nil, seq); err != nil {
			_ = ix.Close()
			return nil, err
		}
	}
	return ix, nil
}

// reportLatency reports the p50 and p99 of samples, in µs, with the metric
// names prefix+"p50-µs" and prefix+"p99-µs".
func reportLatency(b *testing.B, prefix string, samples []time.Duration) {
	b.Helper()
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		return float64(samples[min(len(samples)-1, int(q*float64(len(samples))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), prefix+"p50-µs")
	b.ReportMetric(at(0.99), prefix+"p99-µs")
}

// BenchmarkIndexBuild indexes 100,000 synthetic nodes into an empty on-disk
// index (10 batches). Run with -benchtime=1x.
func BenchmarkIndexBuild(b *testing.B) {
	nodes := synthGraph(benchNodes, 1)
	cpu0, cpuOK := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		ix, err := buildIndex(filepath.Join(dir, "search"), nodes)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(benchNodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
	if cpu1, ok := processCPU(); ok && cpuOK {
		// Includes closing each index (bleve's final merge and persist).
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
}

// benchResolve resolves queries round-robin and reports p50/p99 per call.
func benchResolve(b *testing.B, queries []string, strict bool) {
	ix, src, _ := loadBenchFixture(b)
	r, err := NewResolver(src, ix, ResolverOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// Wall time per call, and the calling thread's CPU time per call: the
	// cost without the wait for a CPU on a shared machine (GC work done by
	// other threads is not in it).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wall := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		cpu0, cpuOK := threadCPU()
		start := time.Now()
		if strict {
			_, err = r.ResolveStrict(ctx, q)
		} else {
			_, err = r.Resolve(ctx, q)
		}
		wall = append(wall, time.Since(start))
		if cpu1, ok := threadCPU(); ok && cpuOK {
			cpu = append(cpu, cpu1-cpu0)
		}
		if err != nil && !isResolveMiss(err) {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportLatency(b, "", wall)
	reportLatency(b, "cpu-", cpu)
}

func isResolveMiss(err error) bool {
	return errors.Is(err, ErrAmbiguous) || errors.Is(err, ErrNotFound)
}

// BenchmarkResolve_Direct resolves exact uids (target p99 ≤ 50 µs).
func BenchmarkResolve_Direct(b *testing.B) {
	_, _, nodes := loadBenchFixture(b)
	rng := rand.New(rand.NewPCG(2, 2))
	qs := make([]string, 4096)
	for i := range qs {
		qs[i] = nodes[rng.IntN(len(nodes))].UID
	}
	benchResolve(b, qs, false)
}

// BenchmarkResolve_PathPrefix resolves raw repo-relative file paths.
func BenchmarkResolve_PathPrefix(b *testing.B) {
	_, _, nodes := loadBenchFixture(b)
	var qs []string
	for _, n := range nodes {
		if n.Kind == graph.KindFile || n.Kind == graph.KindDocFile {
			qs = append(qs, n.Path)
		}
	}
	benchResolve(b, qs, false)
}

// BenchmarkResolve_ExactName resolves bare labels (unique or ambiguous).
func BenchmarkResolve_ExactName(b *testing.B) {
	_, _, nodes := loadBenchFixture(b)
	rng := rand.New(rand.NewPCG(3, 3))
	qs := make([]string, 4096)
	for i := range qs {
		qs[i] = nodes[rng.IntN(len(nodes))].Label
	}
	benchResolve(b, qs, false)
}

// BenchmarkResolve_Fuzzy resolves labels with one or two typos and camelCase
// fragments (target p99 ≤ 5 ms). Ambiguous and not-found answers count.
func BenchmarkResolve_Fuzzy(b *testing.B) {
	_, _, nodes := loadBenchFixture(b)
	rng := rand.New(rand.NewPCG(4, 4))
	qs := make([]string, 2048)
	for i := range qs {
		label := nodes[rng.IntN(len(nodes))].Label
		switch i % 3 {
		case 0:
			qs[i] = typo(rng, label, 1)
		case 1:
			qs[i] = typo(rng, label, 2)
		default:
			w := Tokens(label)
			qs[i] = strings.Join(w[len(w)/2:], "")
		}
	}
	benchResolve(b, qs, false)
}

// BenchmarkResolveStrict_Miss is a mutation's near miss: not found with
// suggestions.
func BenchmarkResolveStrict_Miss(b *testing.B) {
	_, _, nodes := loadBenchFixture(b)
	rng := rand.New(rand.NewPCG(5, 5))
	qs := make([]string, 2048)
	for i := range qs {
		qs[i] = typo(rng, nodes[rng.IntN(len(nodes))].UID, 1)
	}
	benchResolve(b, qs, true)
}
