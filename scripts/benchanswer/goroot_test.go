package benchanswer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/mcp"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// sampleSize is how many function nodes the calls cycle through.
const sampleSize = 100

// gorootSrc is $(go env GOROOT)/src.
func gorootSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// openIndexed opens the state folder (COS_BENCH_STATE, or a temporary one)
// and indexes root into it unless its graph already records an index of
// root. It returns the runner and the state, closed at the benchmark's end.
func openIndexed(b *testing.B, root string) (*tools.Runner, *state.State) {
	b.Helper()
	ctx := context.Background()
	dir := os.Getenv("COS_BENCH_STATE")
	if dir == "" {
		dir = b.TempDir()
	}
	st, err := state.Open(ctx, state.Options{Dir: dir, NoBackgroundSnapshots: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close(context.Background()) })
	ix, err := indexing.New(st, indexing.Options{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	var indexed bool
	st.View(func(v state.View) {
		run, ok := v.Graph.LastIndex()
		indexed = ok && run.Root == root && run.Finished.Seq > 0
	})
	if !indexed {
		start := time.Now()
		rep, err := ix.IndexWith(ctx, root, indexing.RunOptions{})
		if err != nil {
			b.Fatalf("index %s: %v", root, err)
		}
		if err := st.WaitFor(ctx, rep.LastSeq); err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %s in %s", root, time.Since(start).Round(time.Second))
	}
	return tools.New(st, ix, tools.Options{Version: "bench"}), st
}

// sampleFunctions returns sampleSize function uids spread evenly over the
// graph's function nodes in uid order: the same nodes on every run over the
// same index.
func sampleFunctions(b *testing.B, st *state.State) []string {
	b.Helper()
	var uids []string
	st.View(func(v state.View) {
		v.Graph.Nodes(func(n graph.Node) bool {
			if n.Kind == graph.KindFunction && !strings.HasSuffix(n.Path, "_test.go") && !strings.Contains(n.Path, "testdata/") {
				uids = append(uids, n.UID)
			}
			return true
		})
	})
	if len(uids) < sampleSize {
		b.Fatalf("only %d function nodes in the graph", len(uids))
	}
	slices.Sort(uids)
	out := make([]string, sampleSize)
	for i := range out {
		out[i] = uids[i*len(uids)/sampleSize]
	}
	return out
}

// BenchmarkGorootAnswers measures, per call, cos_graph_context and
// cos_graph_references over GOROOT/src as an MCP client receives them: the
// tools/call request handled by the MCP server (Runner.Call with the agent
// budget, the tool result built from the envelope) and the JSON-RPC
// response encoded to bytes. It reports ns/op, allocs/op, B/op and p50-ns
// (the median call), and resp-B (mean response size).
func BenchmarkGorootAnswers(b *testing.B) {
	if os.Getenv("COS_BENCH_GOROOT") != "1" {
		b.Skip("indexes GOROOT/src (one to two minutes): run with COS_BENCH_GOROOT=1")
	}
	root := gorootSrc(b)
	r, st := openIndexed(b, root)
	uids := sampleFunctions(b, st)
	srv := mcp.New(r, mcp.Options{Budget: envelope.Options{}}).MCP()
	ctx := context.Background()

	requests := func(tool, arg string) [][]byte {
		out := make([][]byte, len(uids))
		for i, uid := range uids {
			args, _ := json.Marshal(map[string]string{arg: uid})
			out[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tool, args)
		}
		return out
	}
	for _, tc := range []struct{ tool, arg string }{
		{"cos_graph_context", "uid_or_name"},
		{"cos_graph_references", "uid"},
	} {
		reqs := requests(tc.tool, tc.arg)
		// Every sampled call must answer ok: a failure would measure the
		// failure path. The digest of the responses tells two builds that
		// answer byte for byte the same apart from two that do not.
		digest := sha256.New()
		for i, req := range reqs {
			resp, _ := json.Marshal(srv.HandleMessage(ctx, req))
			if strings.Contains(string(resp), `"isError":true`) {
				b.Fatalf("%s %s: %s", tc.tool, uids[i], resp[:min(len(resp), 400)])
			}
			digest.Write(resp)
		}
		b.Logf("%s: sha256 of the %d responses %x", tc.tool, len(reqs), digest.Sum(nil))
		b.Run(strings.TrimPrefix(tc.tool, "cos_"), func(b *testing.B) {
			var (
				times     []time.Duration
				respBytes int
			)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				start := time.Now()
				resp, err := json.Marshal(srv.HandleMessage(ctx, reqs[i%len(reqs)]))
				times = append(times, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				respBytes += len(resp)
				i++
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(respBytes)/float64(i), "resp-B")
		})
	}
}
