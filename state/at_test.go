package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// appendSyntheticGraph appends files graph.file_extracted events through
// the real log, each with perFile function nodes (plus the file node)
// calling one another, and returns the last seq: a large graph in seconds.
func appendSyntheticGraph(tb testing.TB, s *State, files, perFile int) uint64 {
	tb.Helper()
	const perAppend = 200
	var last uint64
	for start := 0; start < files; start += perAppend {
		var reqs []eventlog.AppendRequest
		for f := start; f < min(files, start+perAppend); f++ {
			path := fmt.Sprintf("pkg%03d/file%05d.go", f/100, f)
			p := graph.FileExtracted{Path: path, Extractor: "go", ContentHash: fmt.Sprintf("%064x", f), Size: 1000}
			fileUID := graph.FileUID(path)
			p.Nodes = append(p.Nodes, graph.Node{UID: fileUID, Kind: graph.KindFile, Label: path, Path: path})
			for i := range perFile {
				uid := fmt.Sprintf("code:function:%s::Func%d_%d", path, f, i)
				p.Nodes = append(p.Nodes, graph.Node{UID: uid, Kind: graph.KindFunction, Label: fmt.Sprintf("Func%d_%d", f, i), Path: path, Line: 10 * (i + 1), EndLine: 10*(i+1) + 5})
				p.Edges = append(p.Edges, graph.Edge{Source: fileUID, Target: uid, Type: graph.EdgeContains})
				if i > 0 {
					p.Edges = append(p.Edges, graph.Edge{Source: uid, Target: fmt.Sprintf("code:function:%s::Func%d_%d", path, f, i-1), Type: graph.EdgeCalls})
				}
			}
			data, err := json.Marshal(p)
			if err != nil {
				tb.Fatal(err)
			}
			reqs = append(reqs, eventlog.AppendRequest{Stream: graph.Stream, Events: []eventlog.Payload{{Type: graph.TypeFileExtracted, Data: data}}})
		}
		recs, err := s.Append(context.Background(), reqs...)
		if err != nil {
			tb.Fatalf("append: %v", err)
		}
		last = recs[len(recs)-1].LastSeq
	}
	return last
}

// bigState opens a state folder holding a graph of about files×(perFile+1)
// nodes with a snapshot at its head, and returns the state and that seq.
func bigState(tb testing.TB, files, perFile int, opts Options) (*State, uint64) {
	tb.Helper()
	opts.Dir, opts.NATS, opts.NoBackgroundSnapshots = tb.TempDir(), bus.ModeOff, true
	s, err := Open(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close(context.Background()) })
	start := time.Now()
	seq := appendSyntheticGraph(tb, s, files, perFile)
	if err := s.WaitFor(context.Background(), seq); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Snapshot(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("graph of %d files built and snapshotted in %s", files, time.Since(start).Round(time.Millisecond))
	return s, seq
}

// BenchmarkPast_100kNodes measures the first answer at a seq on a
// 100,000-node graph (snapshot load, replay, search index: target ≤ 2 s)
// and the next ones at the same seq (target ≤ 10 ms).
func BenchmarkPast_100kNodes(b *testing.B) {
	s, _ := bigState(b, 5000, 19, Options{})
	// Events past the snapshot: the view at their end replays them.
	seq := appendSyntheticGraph(b, s, 100, 19)
	ctx := context.Background()
	var nodes int
	b.Run("first", func(b *testing.B) {
		for i := range b.N {
			// A fresh seq each time: every one is a build.
			at := seq - uint64(i%50)
			s.past.closeAll()
			s.past = pastCache{}
			p, err := s.Past(ctx, at)
			if err != nil {
				b.Fatal(err)
			}
			_ = p.State().Read(ctx, func(v View) { nodes = v.Graph.Counts().Nodes })
			p.Release()
		}
		b.ReportMetric(float64(nodes), "nodes")
	})
	b.Run("next", func(b *testing.B) {
		p, err := s.Past(ctx, seq)
		if err != nil {
			b.Fatal(err)
		}
		p.Release()
		b.ResetTimer()
		for range b.N {
			p, err := s.Past(ctx, seq)
			if err != nil {
				b.Fatal(err)
			}
			_ = p.State().Read(ctx, func(v View) { nodes = v.Graph.Counts().Nodes })
			p.Release()
		}
	})
}

// TestPast_SeqAt: a time resolves to the last event at or before it, a
// time before the first event to 0, a seq past the head to the head.
func TestPast_SeqAt(t *testing.T) {
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var times []time.Time
	for i := range 5 {
		seq := upsert(t, s, fmt.Sprintf("code:function:a.go::F%d", i))
		tm, err := s.eventTime(context.Background(), seq)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, tm)
	}
	for _, c := range []struct {
		name  string
		until projections.Until
		want  uint64
	}{
		{"seq", projections.Until{Seq: 3}, 3},
		{"past the head", projections.Until{Seq: 99}, 5},
		{"no bound", projections.Until{}, 5},
		{"time of seq 2", projections.Until{Time: times[1]}, 2},
		{"just after seq 4", projections.Until{Time: times[3].Add(time.Nanosecond)}, 4},
		{"before everything", projections.Until{Time: times[0].Add(-time.Second)}, 0},
		{"seq and time", projections.Until{Seq: 2, Time: times[4]}, 2},
	} {
		got, head, err := s.SeqAt(context.Background(), c.until)
		if err != nil || got != c.want || head != 5 {
			t.Errorf("%s: SeqAt = %d, head %d, %v; want %d, head 5", c.name, got, head, err, c.want)
		}
	}
}

// TestPast_CloseWhileInUse: Close closes the idle views at once and a
// view a call still reads at its release; Past after Close fails.
func TestPast_CloseWhileInUse(t *testing.T) {
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	upsert(t, s, "code:function:a.go::A")
	upsert(t, s, "code:function:a.go::B")
	idle, err := s.Past(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	idle.Release()
	busy, err := s.Past(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.PastCached(); n != 1 {
		t.Errorf("after Close with one view in use: %d open, want 1", n)
	}
	var has bool
	if err := busy.State().Read(ctx, func(v View) { has = v.Graph.HasNode("code:function:a.go::B") && v.Pos.Seq == 2 }); err != nil || !has {
		t.Errorf("a view in use stopped answering after Close: %v %v (seq %d)", err, has, busy.Seq())
	}
	busy.Release()
	busy.Release() // idempotent
	if n := s.PastCached(); n != 0 {
		t.Errorf("after the last release: %d open, want 0", n)
	}
	if _, err := s.Past(ctx, 1); !errors.Is(err, ErrPastClosed) {
		t.Errorf("Past after Close = %v, want ErrPastClosed", err)
	}
}

// TestPast_ReplaysFromTheSnapshot: a view past the newest snapshot holds
// what the log says at its seq, and at seq 0 nothing.
func TestPast_ReplaysFromTheSnapshot(t *testing.T) {
	s, head := bigState(t, 50, 3, Options{})
	more := appendSyntheticGraph(t, s, 10, 5) // file0..9 re-extracted with 5 functions
	ctx := context.Background()
	for _, c := range []struct {
		seq   uint64
		nodes int
	}{{head, 50 * 4}, {more, 50*4 + 10*2}, {0, 0}, {1, 4}} {
		p, err := s.Past(ctx, c.seq)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		var pos uint64
		_ = p.State().Read(ctx, func(v View) { n, pos = v.Graph.Counts().Nodes, v.Pos.Seq })
		p.Release()
		if n != c.nodes || pos != c.seq {
			t.Errorf("at %d: %d nodes at seq %d, want %d", c.seq, n, pos, c.nodes)
		}
	}
}
