package indexing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

// graphLines is the graph's content line by line (what graphDigest
// hashes, with each node's and edge's extractor), sorted.
func graphLines(tb testing.TB, st *state.State) []string {
	tb.Helper()
	var lines []string
	if err := st.Read(context.Background(), func(v state.View) {
		v.Graph.Nodes(func(n graph.Node) bool {
			lines = append(lines, fmt.Sprintf("node %s %s %s %s %d %d %s", n.UID, n.Kind, n.Label, n.Path, n.Line, n.EndLine, n.Extractor))
			for _, e := range v.Graph.Out(n.UID) {
				lines = append(lines, fmt.Sprintf("edge %s %s %s %s %d", e.Source, e.Target, e.Type, e.Extractor, e.Line))
			}
			return true
		})
	}); err != nil {
		tb.Fatal(err)
	}
	slices.Sort(lines)
	return lines
}

// diffLines reports the lines only in got (+) and only in want (-).
func diffLines(got, want []string) string {
	var out string
	for _, l := range got {
		if _, found := slices.BinarySearch(want, l); !found {
			out += "+ " + l + "\n"
		}
	}
	for _, l := range want {
		if _, found := slices.BinarySearch(got, l); !found {
			out += "- " + l + "\n"
		}
	}
	return out
}

// freshLines indexes root into a new state folder and returns its lines.
func freshLines(tb testing.TB, root string) []string {
	tb.Helper()
	x, st := openIndexer(tb, tb.TempDir(), Options{Roots: []string{root}})
	if _, err := x.index(context.Background(), root, nil); err != nil {
		tb.Fatal(err)
	}
	return graphLines(tb, st)
}

// BenchmarkWatch_HeapGOROOTSrc: the Go heap the watcher keeps on a git
// copy of GOROOT/src (10k files), measured inside one process after
// garbage collection: the state folder open and caught up, then the
// watcher started and its first run over. It needs the copy and its
// indexed state folder that the cli benchmarks keep in
// $COS_BENCH_WATCH_CACHE (src/, state/):
//
//	COS_BENCH_WATCH=1 COS_BENCH_WATCH_CACHE=DIR go test -run '^$' -bench BenchmarkWatch_HeapGOROOTSrc -benchtime 1x ./indexing
func BenchmarkWatch_HeapGOROOTSrc(b *testing.B) {
	cache := os.Getenv("COS_BENCH_WATCH_CACHE")
	if os.Getenv("COS_BENCH_WATCH") != "1" || cache == "" {
		b.Skip("set COS_BENCH_WATCH=1 and COS_BENCH_WATCH_CACHE (made by the cli watch benchmarks)")
	}
	repo, dir := filepath.Join(cache, "src"), filepath.Join(cache, "state")
	if _, err := os.Stat(filepath.Join(dir, state.LogFile)); err != nil {
		b.Skipf("no indexed state folder in %s: run the cli watch benchmarks first", cache)
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for b.Loop() {
		x, st := openIndexer(b, dir, Options{Roots: []string{repo}})
		if err := st.Read(context.Background(), func(state.View) {}); err != nil {
			b.Fatal(err)
		}
		// The state settles first (the search follower's first batches,
		// the snapshot's buffers): two readings 5 s apart show the drift
		// without a watcher.
		time.Sleep(5 * time.Second)
		settled := heap()
		time.Sleep(5 * time.Second)
		before := heap()
		ctx, cancel := context.WithCancel(context.Background())
		var first atomic.Bool
		done := make(chan error, 1)
		go func() {
			done <- x.Watch(ctx, WatchOptions{OnRun: func(WatchRun) { first.Store(true) }})
		}()
		start := time.Now()
		for !first.Load() {
			if time.Since(start) > 5*time.Minute {
				b.Fatal("no first watch run in 5 minutes")
			}
			time.Sleep(50 * time.Millisecond)
		}
		took := time.Since(start)
		time.Sleep(2 * time.Second) // idle
		after := heap()
		_, root := x.Watching()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		delta := float64(int64(after)-int64(before)) / (1 << 20)
		b.ReportMetric(delta, "heap-delta-MB")
		b.Logf("watching %s: first run %v; heap %.1f MB, 5 s later (no watcher) %.1f MB, while watching %.1f MB: %+.1f MB", root, took.Round(time.Millisecond),
			float64(settled)/(1<<20), float64(before)/(1<<20), float64(after)/(1<<20), delta)
		if err := st.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
