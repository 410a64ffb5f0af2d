package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

// benchGraph appends a synthetic graph of files × perFile function nodes
// (plus the file nodes) through the log: every function is contained by its
// file and calls two others; every 20th calls the hub.
func benchGraph(b *testing.B, s *testServer, files, perFile int) (hub string) {
	b.Helper()
	ctx := context.Background()
	fn := func(i int) string {
		return fmt.Sprintf("code:function:pkg%03d/f%d.go::Func%d", i/perFile/100, i/perFile, i)
	}
	n := files * perFile
	hub = fn(0)
	var nodes []graph.Node
	var edges []graph.Edge
	flush := func(force bool) {
		if len(nodes) >= 4000 || (force && len(nodes) > 0) {
			data, _ := json.Marshal(graph.NodesUpserted{Nodes: nodes})
			if _, err := state.AppendOne(ctx, s.Log(), eventlog.AppendRequest{Stream: graph.Stream, Events: []eventlog.Payload{{Type: graph.TypeNodesUpserted, Data: data}}}); err != nil {
				b.Fatal(err)
			}
			nodes = nodes[:0]
		}
		if len(edges) >= 4000 || (force && len(edges) > 0) {
			data, _ := json.Marshal(graph.EdgesUpserted{Edges: edges})
			if _, err := state.AppendOne(ctx, s.Log(), eventlog.AppendRequest{Stream: graph.Stream, Events: []eventlog.Payload{{Type: graph.TypeEdgesUpserted, Data: data}}}); err != nil {
				b.Fatal(err)
			}
			edges = edges[:0]
		}
	}
	for f := range files {
		path := fmt.Sprintf("pkg%03d/f%d.go", f/100, f)
		file := "code:file:" + path
		nodes = append(nodes, graph.Node{UID: file, Kind: graph.KindFile, Label: fmt.Sprintf("f%d.go", f), Path: path})
		for j := range perFile {
			i := f*perFile + j
			nodes = append(nodes, graph.Node{UID: fn(i), Kind: graph.KindFunction, Label: fmt.Sprintf("Func%d", i), Path: path, Line: j + 1})
			edges = append(edges,
				graph.Edge{Source: file, Target: fn(i), Type: graph.EdgeContains},
				graph.Edge{Source: fn(i), Target: fn((i*7 + 3) % n), Type: graph.EdgeCalls},
				graph.Edge{Source: fn(i), Target: fn(i / 2), Type: graph.EdgeCalls})
			if i%20 == 0 && i > 0 {
				edges = append(edges, graph.Edge{Source: fn(i), Target: hub, Type: graph.EdgeCalls})
			}
			flush(false)
		}
	}
	flush(true)
	if _, err := s.tailer.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	return hub
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGraphTools_100k runs the graph tools through Runner.Call (the
// envelope and its budget included) on a 100,000-node graph: 1,000 files ×
// 99 functions plus the file nodes, about 305,000 edges.
func BenchmarkGraphTools_100k(b *testing.B) {
	s, err := openTestServer(context.Background(), testOptions{StateDir: b.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	hub := benchGraph(b, s, 1000, 99)
	cases := []struct{ name, tool, args string }{
		{"impact_hub_depth3", "cos_graph_impact", `{"uid": "` + hub + `", "depth": 3}`},
		{"context_hub_depth1", "cos_graph_context", `{"uid_or_name": "` + hub + `"}`},
		{"export_root_2000", "cos_graph_export", `{"root": "` + hub + `", "max_nodes": 2000, "max_hops": 3}`},
		{"export_top_degree_2000", "cos_graph_export", `{"max_nodes": 2000}`},
		{"references_hub", "cos_graph_references", `{"uid": "` + hub + `"}`},
		{"path_6_hops", "cos_graph_path", `{"source": "` + hub + `", "target": "code:function:pkg009/f999.go::Func98999"}`},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			env := s.Call(context.Background(), tc.tool, json.RawMessage(tc.args))
			if !env.OK() {
				b.Fatalf("%s", env.JSON())
			}
			if tc.tool == "cos_graph_export" {
				if nodes, _ := env.Data()["nodes"].([]any); len(nodes) != 2000 {
					b.Fatalf("exported %d nodes, want 2000", len(nodes))
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for b.Loop() {
				if env := s.Call(context.Background(), tc.tool, json.RawMessage(tc.args)); !env.OK() {
					b.Fatal(env.Err())
				}
			}
			// On a shared, overloaded machine wall time mostly measures the
			// wait for a core; the process's CPU time per call does not.
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
