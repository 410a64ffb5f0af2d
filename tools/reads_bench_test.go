package tools

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// readsStateEnv names a state folder `cos index` filled (a copy: the
// benchmark opens it for writing) for BenchmarkReads_State.
const readsStateEnv = "COS_READS_STATE"

// BenchmarkReads_State times the graph read tools through Runner.Call (no
// transport: the envelope, its budget and the freshness check included) on
// the indexed repository in $COS_READS_STATE, as `benchmcp reads` does over
// MCP: 200 function and method uids sampled with a fixed seed; resolve by
// the sampled names and by the ten most repeated bare names. It reports
// p50 and p99 in µs and the process's CPU per call. Skipped when
// $COS_READS_STATE is unset.
func BenchmarkReads_State(b *testing.B) {
	dir := os.Getenv(readsStateEnv)
	if dir == "" {
		b.Skip("set " + readsStateEnv + " to a copy of an indexed state folder")
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: dir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	settle(b)
	var uids []string
	count := map[string]int{}
	s.graph.Nodes(func(n graph.Node) bool {
		if n.Kind == graph.KindFunction || n.Kind == graph.KindMethod {
			uids = append(uids, n.UID)
			name := n.UID[strings.LastIndex(n.UID, "::")+2:]
			count[name[strings.LastIndexByte(name, '.')+1:]]++
		}
		return true
	})
	if len(uids) == 0 {
		b.Fatalf("%s holds no function or method", dir)
	}
	slices.Sort(uids)
	r := rand.New(rand.NewPCG(1, 1))
	r.Shuffle(len(uids), func(i, j int) { uids[i], uids[j] = uids[j], uids[i] })
	uids = uids[:min(200, len(uids))]
	var common []string
	for n := range count {
		common = append(common, n)
	}
	slices.SortFunc(common, func(a, b string) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	common = common[:min(10, len(common))]
	quote := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	cases := []struct {
		name, tool string
		args       func(i int, uid string) string
	}{
		{"resolve_name", "cos_graph_resolve", func(_ int, uid string) string {
			return `{"q": ` + quote(uid[strings.LastIndex(uid, "::")+2:]) + `}`
		}},
		{"resolve_ambiguous", "cos_graph_resolve", func(i int, _ string) string { return `{"q": ` + quote(common[i%len(common)]) + `}` }},
		{"context_depth1", "cos_graph_context", func(_ int, uid string) string { return `{"uid_or_name": ` + quote(uid) + `, "depth": 1}` }},
		{"references_calls", "cos_graph_references", func(_ int, uid string) string { return `{"uid": ` + quote(uid) + `, "kinds": ["calls"]}` }},
		{"impact_depth2", "cos_graph_impact", func(_ int, uid string) string { return `{"uid": ` + quote(uid) + `, "depth": 2}` }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			args := make([]json.RawMessage, len(uids))
			for i, u := range uids {
				args[i] = json.RawMessage(tc.args(i, u))
				if env := s.Call(context.Background(), tc.tool, args[i]); !env.OK() {
					b.Fatalf("%s %s: %s", tc.tool, args[i], env.JSON())
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				env := s.Call(context.Background(), tc.tool, args[i%len(args)])
				lat = append(lat, time.Since(t0))
				if !env.OK() {
					b.Fatal(env.Err())
				}
			}
			cpu := processCPU() - cpu0
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// settle waits until the process is idle (under 10 ms of CPU in 200 ms, at
// most 30 s): the hash chain check state.Open starts in the background
// would otherwise be counted in the first case's CPU.
func settle(b *testing.B) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		cpu0 := processCPU()
		time.Sleep(200 * time.Millisecond)
		if processCPU()-cpu0 < 10*time.Millisecond {
			return
		}
	}
}
