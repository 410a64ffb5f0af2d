package projections

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/graph"
)

// The synthetic log of the benchmarks: benchFiles graph.file_extracted
// events (10 nodes and 50 edges each: a file node, 9 functions, a contains
// edge from the file's folder, 9 contains edges, 40 calls to functions of
// other files and to 1,000 shared external stubs), which yield ≈ 100,000
// nodes and 500,000 edges, followed by a tail of benchTail events: nine in
// ten an agent upsert of 2 nodes or 3 edges, one in ten a re-extraction of
// an existing file.
const (
	benchFiles   = 10_000
	benchFolders = 100
	benchTail    = 10_000
)

var bench struct {
	once sync.Once
	dir  string
	err  error
}

// benchLog returns the state folder holding the synthetic log, building it
// once per test binary run (removed by TestMain).
func benchLog(b *testing.B) (*boltlog.Log, string) {
	b.Helper()
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "cos-projections-bench-")
		if bench.err != nil {
			return
		}
		bench.err = buildBenchLog(filepath.Join(bench.dir, "events.db"))
	})
	if bench.err != nil {
		b.Fatalf("build synthetic log: %v", bench.err)
	}
	l, err := boltlog.Open(context.Background(), filepath.Join(bench.dir, "events.db"), boltlog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close(context.Background()) })
	return l, bench.dir
}

func benchCleanup() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

func benchFilePath(i int) string { return fmt.Sprintf("pkg%03d/file%05d.go", i%benchFolders, i) }

func benchFunc(i, j int) string {
	return fmt.Sprintf("code:function:%s::Func%d", benchFilePath(i), j)
}

// benchFileEvent is the extraction of file i; version changes one line
// number so a re-extraction is a real change.
func benchFileEvent(i, version int) graph.FileExtracted {
	path := benchFilePath(i)
	file := graph.FileUID(path)
	folder := graph.FolderUID(fmt.Sprintf("pkg%03d", i%benchFolders))
	p := graph.FileExtracted{Path: path, Extractor: "go", ContentHash: fmt.Sprintf("%064x", i*7+version), Size: 4096, DurationMS: 0.8}
	p.Nodes = append(p.Nodes, graph.Node{UID: file, Kind: graph.KindFile, Label: filepath.Base(path), Path: path})
	p.Edges = append(p.Edges, graph.Edge{Source: folder, Target: file, Type: graph.EdgeContains})
	for j := range 9 {
		uid := benchFunc(i, j)
		p.Nodes = append(p.Nodes, graph.Node{UID: uid, Kind: graph.KindFunction, Label: fmt.Sprintf("Func%d", j), Path: path, Line: 10*j + 1 + version, EndLine: 10*j + 8})
		p.Edges = append(p.Edges, graph.Edge{Source: file, Target: uid, Type: graph.EdgeContains})
	}
	for k := range 40 {
		src := benchFunc(i, k%9)
		var dst string
		if k%4 == 0 {
			dst = fmt.Sprintf("code:external:lib%d.Call", (i*40+k)%1000)
		} else {
			dst = benchFunc((i*31+k*97)%benchFiles, k%9)
		}
		p.Edges = append(p.Edges, graph.Edge{Source: src, Target: dst, Type: graph.EdgeCalls, Line: 10*(k%9) + 3})
	}
	return p
}

func benchTailEvent(n int) eventlog.Payload {
	var typ string
	var v any
	switch {
	case n%10 == 0:
		typ, v = graph.TypeFileExtracted, benchFileEvent((n*13)%benchFiles, 1)
	case n%2 == 0:
		typ = graph.TypeNodesUpserted
		v = graph.NodesUpserted{Nodes: []graph.Node{
			{UID: fmt.Sprintf("code:external:agent%d.a", n), Label: "a"},
			{UID: fmt.Sprintf("code:external:agent%d.b", n), Label: "b"},
		}}
	default:
		typ = graph.TypeEdgesUpserted
		v = graph.EdgesUpserted{Edges: []graph.Edge{
			{Source: benchFunc(n%benchFiles, 1), Target: benchFunc((n+1)%benchFiles, 2), Type: graph.EdgeCalls},
			{Source: benchFunc(n%benchFiles, 2), Target: fmt.Sprintf("code:external:agent%d.a", n-1), Type: graph.EdgeCalls},
			{Source: benchFunc(n%benchFiles, 3), Target: benchFunc((n+7)%benchFiles, 4), Type: graph.EdgeCalls},
		}}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return eventlog.Payload{Type: typ, Data: raw}
}

func buildBenchLog(path string) error {
	ctx := context.Background()
	l, err := boltlog.Open(ctx, path, boltlog.Options{})
	if err != nil {
		return err
	}
	defer l.Close(ctx)
	const perTxn = 500
	var reqs []eventlog.AppendRequest
	flush := func() error {
		res, err := l.Append(ctx, reqs...)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Err != nil {
				return r.Err
			}
		}
		reqs = reqs[:0]
		return nil
	}
	add := func(p eventlog.Payload) error {
		reqs = append(reqs, eventlog.AppendRequest{Stream: graph.Stream, Events: []eventlog.Payload{p}})
		if len(reqs) == perTxn {
			return flush()
		}
		return nil
	}
	for i := range benchFiles {
		raw, err := json.Marshal(benchFileEvent(i, 0))
		if err != nil {
			return err
		}
		if err := add(eventlog.Payload{Type: graph.TypeFileExtracted, Data: raw}); err != nil {
			return err
		}
	}
	for n := range benchTail {
		if err := add(benchTailEvent(n)); err != nil {
			return err
		}
	}
	return flush()
}

// cpuClock returns the process's user+system CPU time. On this shared
// machine wall time is inflated by other work; CPU time is what the code
// costs.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuClock()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// reportMemory reports the live heap after a GC and the resident set size
// (which also counts the log's memory-mapped pages).
func reportMemory(b *testing.B) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				b.ReportMetric(kb/1024, "rss-MB")
			}
		}
	}
}

// BenchmarkReplay_Full replays the benchFiles extraction events from an empty
// graph (target ≤ 10 s) and reports the graph's memory.
func BenchmarkReplay_Full(b *testing.B) {
	l, _ := benchLog(b)
	ctx := context.Background()
	var g *Graph
	b.ResetTimer()
	cpu := cpuClock()
	for range b.N {
		g = NewGraph()
		v, err := OpenAt(ctx, l, []Projection{g}, Until{Seq: benchFiles}, TailerOptions{NoSnapshotLoad: true})
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
	b.StopTimer()
	reportCPU(b, cpu)
	c := g.Counts()
	b.ReportMetric(float64(c.Nodes), "nodes")
	b.ReportMetric(float64(c.Edges), "edges")
	b.ReportMetric(float64(benchFiles*b.N)/b.Elapsed().Seconds(), "events/s")
	reportMemory(b)
	runtime.KeepAlive(g)
}

// BenchmarkStart_SnapshotPlusTail starts a tailer from a snapshot at
// benchFiles plus the benchTail-event tail (target ≤ 1.5 s).
func BenchmarkStart_SnapshotPlusTail(b *testing.B) {
	l, _ := benchLog(b)
	ctx := context.Background()
	stateDir := b.TempDir()
	base := NewGraph()
	v, err := OpenAt(ctx, l, []Projection{base}, Until{Seq: benchFiles}, TailerOptions{NoSnapshotLoad: true, StateDir: stateDir})
	if err != nil {
		b.Fatal(err)
	}
	if pos, err := v.Snapshot(ctx); err != nil || pos.Seq != benchFiles {
		b.Fatalf("snapshot: %v at %d", err, pos.Seq)
	}
	v.Close()
	var g *Graph
	var counted *countingProjection
	b.ResetTimer()
	cpu := cpuClock()
	for range b.N {
		g = NewGraph()
		counted = &countingProjection{Projection: g}
		t, err := NewTailer(l, []Projection{counted}, TailerOptions{StateDir: stateDir, NoBackgroundSnapshots: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := t.Start(ctx); err != nil {
			b.Fatal(err)
		}
		t.Close()
	}
	b.StopTimer()
	reportCPU(b, cpu)
	if counted.applied != benchTail {
		b.Fatalf("applied %d events after the snapshot, want %d", counted.applied, benchTail)
	}
	c := g.Counts()
	b.ReportMetric(float64(c.Nodes), "nodes")
	b.ReportMetric(float64(c.Edges), "edges")
	reportMemory(b)
	runtime.KeepAlive(g)
}

// BenchmarkGraph_StateHash measures an uncached state hash of the full
// synthetic graph (what a snapshot's marshalling also costs).
func BenchmarkGraph_StateHash(b *testing.B) {
	l, _ := benchLog(b)
	g := NewGraph()
	v, err := OpenAt(context.Background(), l, []Projection{g}, Until{}, TailerOptions{NoSnapshotLoad: true})
	if err != nil {
		b.Fatal(err)
	}
	v.Close()
	b.ResetTimer()
	cpu := cpuClock()
	for range b.N {
		g.invalidate()
		g.StateHash()
	}
	b.StopTimer()
	reportCPU(b, cpu)
}

// BenchmarkGraph_UnmarshalSnapshot measures decoding the full synthetic
// graph's snapshot section (a cold start's snapshot load); cpu-s/op is
// both goroutines' CPU.
func BenchmarkGraph_UnmarshalSnapshot(b *testing.B) {
	l, _ := benchLog(b)
	g := NewGraph()
	v, err := OpenAt(context.Background(), l, []Projection{g}, Until{}, TailerOptions{NoSnapshotLoad: true})
	if err != nil {
		b.Fatal(err)
	}
	v.Close()
	data, err := g.MarshalSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu := cpuClock()
	for range b.N {
		if err := NewGraph().UnmarshalSnapshot(data); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu)
}
