package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkResolve_ExactName_5k: cos_graph_resolve of an exact name through
// Runner.Call over 5,000 function nodes (created with cos_graph_upsert in
// batches of 100, as an agent would). Reports p50 and p99 in µs.
func BenchmarkResolve_ExactName_5k(b *testing.B) {
	s, err := openTestServer(context.Background(), testOptions{StateDir: b.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	bigGraph(b, s, 5000)
	args := []json.RawMessage{}
	for i := range 64 {
		args = append(args, json.RawMessage(fmt.Sprintf(`{"q": "Fn%d"}`, (i*797)%5000)))
	}
	if e := call(b, s, "cos_graph_resolve", string(args[0])); !e.OK || e.Data["results"] == nil {
		b.Fatalf("resolve: %v %v", e.Error, e.Data)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		env := s.Call(context.Background(), "cos_graph_resolve", args[i%len(args)])
		lat = append(lat, time.Since(t0))
		if !env.OK() {
			b.Fatal(string(env.JSON()))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkUpsert_5kIn100s: creating 5,000 entities in batches of 100 with
// cos_graph_upsert (about 4 edges a node), the whole run per iteration.
func BenchmarkUpsert_5kIn100s(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := openTestServer(context.Background(), testOptions{StateDir: b.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		bigGraph(b, s, 5000)
		b.StopTimer()
		s.Close()
		_ = os.RemoveAll(s.StateDir())
	}
}
