package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/cli"
)

// asCosEnv makes the test binary act as the cos command (cli.Run on its
// arguments), so `benchmcp reads` can run end to end without a go build.
const asCosEnv = "BENCHMCP_AS_COS"

func TestSampleUIDs(t *testing.T) {
	uids := make([]string, 1000)
	for i := range uids {
		uids[i] = "code:function:f.go::F" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
	}
	reversed := slices.Clone(uids)
	slices.Reverse(reversed)
	a := sampleUIDs(uids, 200, 7)
	if b := sampleUIDs(reversed, 200, 7); !slices.Equal(a, b) {
		t.Error("the sample depends on the order the uids came in")
	}
	if c := sampleUIDs(uids, 200, 8); slices.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same sample")
	}
	seen := map[string]bool{}
	for _, u := range a {
		if seen[u] {
			t.Fatalf("%s sampled twice out of %d", u, len(uids))
		}
		seen[u] = true
	}
	// Uniform: every uid equally likely, so ranks in sorted order are not
	// bunched (a sample of the first or last uids would fail this).
	sorted := slices.Sorted(slices.Values(uids))
	sum := 0
	for _, u := range a {
		sum += slices.Index(sorted, u)
	}
	if mean := float64(sum) / float64(len(a)); mean < 400 || mean > 600 {
		t.Errorf("mean rank %.0f of 1000: not a uniform sample", mean)
	}
	if got := sampleUIDs([]string{"b", "a"}, 5, 1); len(got) != 5 || !slices.Contains(got, "a") || !slices.Contains(got, "b") {
		t.Errorf("sample of 5 from 2 uids = %v", got)
	}
}

func TestParseGraphDump(t *testing.T) {
	dump := `{"counts": {"nodes": 4}, "nodes": [
	  {"uid": "folder:.", "kind": "folder", "metadata": {"x": [1, {"kind": "function"}]}},
	  {"uid": "code:function:a.go::F", "kind": "function", "owners": ["go:a.go"]},
	  {"uid": "code:function:a.go::T.M", "kind": "method"},
	  {"uid": "code:class:a.go::T", "kind": "class"}
	], "edges": [not even json`
	uids, total, err := parseGraphDump(strings.NewReader(dump), []string{"function", "method"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"code:function:a.go::F", "code:function:a.go::T.M"}; !slices.Equal(uids, want) || total != 4 {
		t.Errorf("got %v of %d nodes, want %v of 4", uids, total, want)
	}
	if _, _, err := parseGraphDump(strings.NewReader(`{"counts": {}}`), []string{"function"}); err == nil {
		t.Error("a dump without nodes parsed")
	}
}

func TestNotOK(t *testing.T) {
	text := func(s string) ToolResult {
		var tr ToolResult
		tr.Content = append(tr.Content, struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", s})
		return tr
	}
	if why := notOK(text(`{"ok":true,"data":{}}`)); why != "" {
		t.Errorf("ok envelope: %q", why)
	}
	if why := notOK(text(`{"ok":false,"error":{"code":"E_NOT_FOUND","message":"no node"}}`)); !strings.Contains(why, "E_NOT_FOUND") {
		t.Errorf("failed envelope: %q", why)
	}
	if why := notOK(text(`plain text`)); why == "" {
		t.Error("plain text passed as ok")
	}
}

// TestReads_TinyModule indexes a three-function Go module with the test
// binary acting as cos, runs `benchmcp reads` on it and renders the table.
func TestReads_TinyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("starts cos processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asCosEnv, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	state := indexTiny(ctx, t, map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.22\n",
		"a.go":   "package tiny\n\ntype T struct{ n int }\n\nfunc (t *T) Inc() { t.n++ }\n\nfunc New() *T { return &T{} }\n\nfunc Use() int { t := New(); t.Inc(); return t.n }\n",
	})
	var jsonl strings.Builder
	if err := run(ctx, []string{"reads", "-cos", exe, "-state", state, "-calls", "4", "-runs", "2", "-seed", "3", "-label", "tiny"}, nil, &jsonl); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadJSONL(strings.NewReader(jsonl.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Row+" | "+r.Col] = r
	}
	for _, o := range append(slices.Clone(readOps), readOp{row: rowAmbiguous}) {
		for _, col := range []string{"p50", "p95", "p99", colAnswer} {
			if r := got["tiny: "+o.row+" | "+col]; len(r.Samples) != 2 || r.Median() <= 0 {
				t.Errorf("%s %s: samples %v, want 2 positive", o.row, col, r.Samples)
			}
		}
		// CPU time counts in 10 ms ticks: a tiny tree's calls may take none.
		if r := got["tiny: "+o.row+" | "+colServerCPU]; len(r.Samples) != 2 || slices.Min(r.Samples) < 0 {
			t.Errorf("%s %s: samples %v, want 2 ≥ 0", o.row, colServerCPU, r.Samples)
		}
	}
	var of []float64
	for _, r := range rs {
		if strings.HasPrefix(r.Row, "tiny: function + method uids, seed 3 ") && r.Col == colOf {
			of = r.Samples
		}
	}
	if len(of) != 1 || of[0] != 3 {
		t.Errorf("function + method nodes = %v, want [3] (New, Use, T.Inc); results: %v", of, rs)
	}
	var table strings.Builder
	if err := renderTables(&table, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "MCP round trips on a real repository") || !strings.Contains(table.String(), "| tiny: cos_graph_impact (depth 2) |") {
		t.Errorf("table:\n%s", table.String())
	}
	var rec Recorder
	if err := realReads(ctx, &rec, config{Cos: exe, State: t.TempDir(), Calls: 1, Runs: 1}); err == nil {
		t.Error("reads on an empty state folder succeeded")
	}
}

// TestTimeReads_FailuresCounted: answers that are not ok envelopes are
// counted and fail the run after it has finished.
func TestTimeReads_FailuresCounted(t *testing.T) {
	c := startFake(t)
	ops := []readOp{
		{"ok", "echo", func(uid string) map[string]any { return map[string]any{"ok": true, "uid": uid} }},
		{"not ok", "echo", func(uid string) map[string]any { return map[string]any{"ok": false, "uid": uid} }},
		{"is error", "fail", func(uid string) map[string]any { return map[string]any{"uid": uid} }},
	}
	var rec Recorder
	err := timeReads(context.Background(), c, &rec, "fake", ops, []string{"a", "b"}, 2)
	if err == nil || !strings.Contains(err.Error(), "8 of 12 answers were not ok") {
		t.Fatalf("err = %v, want 8 of 12 not ok", err)
	}
	if n := len(rec.Results()); n != 3*5 {
		t.Errorf("%d results, want every run recorded before failing (15: p50, p95, p99, server CPU, size of 3 ops)", n)
	}
	if err := timeReads(context.Background(), c, &rec, "fake", ops[:1], []string{"a"}, 1); err != nil {
		t.Errorf("all ok: %v", err)
	}
}

// indexTiny writes files (name → content) into a new folder and indexes
// it with `cos index` into a new state folder, which it returns.
func indexTiny(ctx context.Context, t *testing.T, files map[string]string) (state string) {
	t.Helper()
	root, state := t.TempDir(), t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if code := cli.Run(ctx, []string{"--state-dir", state, "index", "--no-progress", root}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &out}); code != 0 {
		t.Fatalf("cos index: exit %d: %s", code, out.String())
	}
	return state
}
