package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/cli"
)

// fakeServerEnv makes the test binary act as a tiny MCP server on stdio:
// tools/call "echo" answers its arguments as text, "fail" answers isError,
// "exit" exits without answering.
const fakeServerEnv = "BENCHMCP_FAKE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeServerEnv) == "1" {
		fakeServer()
		os.Exit(0)
	}
	if os.Getenv(asCosEnv) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	}
	if os.Getenv(asBenchmcpEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		var req struct {
			ID     *int64 `json:"id"`
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch {
		case req.Method == "initialize":
			result = map[string]any{"protocolVersion": protocolVersion, "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "fake", "version": "0"}}
		case req.Params.Name == "echo":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": string(req.Params.Arguments)}}}
		case req.Params.Name == "fail":
			result = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no"}}}
		case req.Params.Name == "exit":
			return
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": *req.ID, "error": map[string]any{"code": -32601, "message": "unknown"}})
			out.Write(append(b, '\n'))
			out.Flush()
			continue
		}
		// A notification first: the client must skip it.
		out.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n")
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": *req.ID, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
}

func startFake(t *testing.T) *Client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := Start(ctx, Server{Argv: []string{exe, "-test.run=^$"}, Env: []string{fakeServerEnv + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestClient_Call(t *testing.T) {
	c := startFake(t)
	ctx := context.Background()
	tests := []struct {
		tool      string
		args      any
		wantText  string
		wantIsErr bool
		wantErr   bool
	}{
		{tool: "echo", args: map[string]any{"q": "x"}, wantText: `{"q":"x"}`},
		{tool: "fail", args: map[string]any{}, wantText: "no", wantIsErr: true},
		{tool: "nope", args: map[string]any{}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tr, err := c.Call(ctx, tt.tool, tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if tr.Text() != tt.wantText || tr.IsError != tt.wantIsErr || tr.Bytes == 0 {
				t.Errorf("got text %q isError %v bytes %d, want %q %v >0", tr.Text(), tr.IsError, tr.Bytes, tt.wantText, tt.wantIsErr)
			}
			_, err = c.MustOK(ctx, tt.tool, tt.args)
			if (err != nil) != tt.wantIsErr {
				t.Errorf("MustOK err = %v, want error %v", err, tt.wantIsErr)
			}
		})
	}
}

func TestClient_ServerExits(t *testing.T) {
	c := startFake(t)
	_, err := c.Call(context.Background(), "exit", map[string]any{})
	if !errors.Is(err, errClosed) {
		t.Fatalf("err = %v, want errClosed", err)
	}
	if _, err := c.Call(context.Background(), "echo", map[string]any{}); !errors.Is(err, errClosed) {
		t.Fatalf("after exit: err = %v, want errClosed", err)
	}
}

func TestParseGoBench_Lines(t *testing.T) {
	out := `goos: linux
pkg: github.com/cos-dev/cos/eventlog
BenchmarkFloor_Fdatasync-2     	       1	   6795377 ns/op	       147.9 syncs/s
BenchmarkAppend_Concurrent/appenders=64-2        	       1	  30351315 ns/op	      2109 events/s	        32.00 req/tx
BenchmarkAppend_Concurrent/appenders=64-2        	       1	  30351315 ns/op	      2500 events/s	        30.00 req/tx
--- FAIL: BenchmarkAppend_Processes
    bench_test.go:147: child: exec: Stderr already set
FAIL
`
	var rec Recorder
	failed, err := parseGoBench(strings.NewReader(out), tableEventLog, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || failed[0] != "Append_Processes" {
		t.Errorf("failed = %v, want [Append_Processes]", failed)
	}
	got := map[string][]float64{}
	for _, r := range rec.Results() {
		got[r.Row+" "+r.Col] = r.Samples
	}
	want := map[string][]float64{
		"Floor_Fdatasync ns/op":                   {6795377},
		"Floor_Fdatasync syncs/s":                 {147.9},
		"Append_Concurrent/appenders=64 ns/op":    {30351315, 30351315},
		"Append_Concurrent/appenders=64 events/s": {2109, 2500},
		"Append_Concurrent/appenders=64 req/tx":   {32, 30},
	}
	if len(got) != len(want) {
		t.Errorf("got %d figures %v, want %d", len(got), got, len(want))
	}
	for k, w := range want {
		if g := got[k]; len(g) != len(w) || (len(g) > 0 && (g[0] != w[0] || g[len(g)-1] != w[len(w)-1])) {
			t.Errorf("%s = %v, want %v", k, g, w)
		}
	}
}

func TestMedianPercentile(t *testing.T) {
	tests := []struct {
		xs          []float64
		median, p95 float64
	}{
		{xs: []float64{3, 1, 2}, median: 2, p95: 3},
		{xs: []float64{4, 1, 3, 2}, median: 2.5, p95: 4},
		{xs: []float64{7}, median: 7, p95: 7},
	}
	for _, tt := range tests {
		if got := median(tt.xs); got != tt.median {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.median)
		}
		if got := percentile(tt.xs, 0.95); got != tt.p95 {
			t.Errorf("p95(%v) = %v, want %v", tt.xs, got, tt.p95)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median(nil) is not NaN")
	}
}

func TestFormatNum(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{12345.6, "12,346"}, {100, "100"}, {45.67, "45.7"}, {1.234, "1.23"}, {0.01234, "0.0123"}, {0, "0"}, {3, "3"}, {-2500, "-2,500"},
	}
	for _, tt := range tests {
		if got := formatNum(tt.v); got != tt.want {
			t.Errorf("formatNum(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestRenderTables_MedianSpreadRatio(t *testing.T) {
	var rec Recorder
	for _, v := range []float64{100, 300, 200} {
		rec.Add(tableEventLog, "Floor_Fdatasync", "syncs/s", "syncs/s", v)
	}
	for _, v := range []float64{2000, 1000, 4000} {
		rec.Add(tableEventLog, "Append_Concurrent/appenders=64", "events/s", "events/s", v)
	}
	rec.SetText(tableEventLog, "Append_Processes", colError, "FAILED")
	rec.Add(tableCompare, "look up", colCos, "ms", 2)
	rec.Add(tableCompare, "look up", colMemory, "ms", 10)
	rec.SetText(tableConcurrent, "store loads afterwards", colCos, "yes")
	rec.SetText(tableConcurrent, "store loads afterwards", colCos, "NO")
	var b strings.Builder
	if err := renderTables(&b, rec.Results()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"| disk: fdatasync of a 4 KiB rewrite | 200 syncs/s (100–300) |",
		"| cos log, 64 appender goroutines | 2,000 events/s (1,000–4,000) |",
		" 10× |", // 2000 events/s ÷ 200 syncs/s
		"| look up | 2 ms | 10 ms | 5× |",
		"| cos log, 4 processes × 16 appenders | FAILED |",
		"| store loads afterwards | yes / NO |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| raw bbolt, one") {
		t.Errorf("a row without results is shown:\n%s", got)
	}
}

func TestSynth_NamesDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < maxSynthNodes; i++ {
		n := name(i)
		if seen[n] {
			t.Fatalf("name(%d) = %q repeats", i, n)
		}
		seen[n] = true
	}
	for _, i := range []int{0, 1, 4242, maxSynthNodes - 1} {
		if seen[typo(i)] {
			t.Errorf("typo(%d) = %q is an existing name", i, typo(i))
		}
	}
	nodes, edges := synthGraph(10100)
	if len(nodes) != 10100 || len(edges) == 0 {
		t.Errorf("synthGraph(10100): %d nodes, %d edges", len(nodes), len(edges))
	}
}

func TestWorkloadRelations_Distinct(t *testing.T) {
	rels := workloadRelations(1250, 2500)
	seen := map[relation]bool{}
	for _, r := range rels {
		if seen[r] || r.from == r.to || r.to < 1250 || r.to >= 2500 {
			t.Fatalf("relation %v repeats, loops or leaves the range", r)
		}
		seen[r] = true
	}
	if len(rels) != 2*1250 {
		t.Errorf("%d relations, want %d", len(rels), 2*1250)
	}
}
