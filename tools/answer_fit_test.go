package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// bigGraph upserts n nodes in a ring with chords (about 4 edges a node)
// through cos_graph_upsert, in batches of 100, and returns the last
// upsert's envelope.
func bigGraph(t testing.TB, s *testServer, n int) envOf {
	t.Helper()
	var last envOf
	for start := 0; start < n; start += 100 {
		var nodes, edges []string
		for i := start; i < min(start+100, n); i++ {
			nodes = append(nodes, fmt.Sprintf(`{"uid": "code:function:pkg/f%d.go::Fn%d", "kind": "function", "label": "Fn%d", "path": "pkg/f%d.go", "line": 1}`, i, i, i, i))
		}
		for i := start; i < min(start+100, n); i++ {
			for _, j := range []int{i - 1, i - 7, i - 31, i - 97} {
				if j >= 0 {
					edges = append(edges, fmt.Sprintf(`{"source": "code:function:pkg/f%d.go::Fn%d", "target": "code:function:pkg/f%d.go::Fn%d", "type": "calls"}`, i, i, j, j))
				}
			}
		}
		last = graphOK(t, s, "cos_graph_upsert", `{"nodes": [`+strings.Join(nodes, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`)
	}
	return last
}

// TestExport_DefaultAnswerFitsTheAgentBudget: cos_graph_export with no
// arguments answers within the agent budget by the coherent subgraph trim;
// max_chars asks for more; without a budget (browser routes) every node
// stays.
func TestExport_DefaultAnswerFitsTheAgentBudget(t *testing.T) {
	s := openServer(t, "")
	bigGraph(t, s, 600)
	env := s.r.Call(context.Background(), "cos_graph_export", json.RawMessage(`{}`), envelope.Options{})
	size := len(env.JSON())
	meta := env.Meta()
	t.Logf("default export: %d bytes, meta %v", size, meta)
	if !env.OK() || size > envelope.DefaultBudgetChars || meta[envelope.KeyTruncatedSubgraph] != true || meta[envelope.KeyUnshrinkable] == true {
		t.Fatalf("default export: ok=%v %d bytes (budget %d), meta %v", env.OK(), size, envelope.DefaultBudgetChars, meta)
	}
	nodes, _ := env.Data()["nodes"].([]any)
	edges, _ := env.Data()["edges"].([]any)
	kept := map[string]bool{}
	for _, n := range nodes {
		kept[n.(map[string]any)["uid"].(string)] = true
	}
	for _, e := range edges {
		em := e.(map[string]any)
		if !kept[em["source"].(string)] || !kept[em["target"].(string)] {
			t.Fatalf("edge %v joins a node that was cut", em)
		}
	}
	if len(nodes) == 0 || len(edges) == 0 {
		t.Fatalf("kept %d nodes, %d edges", len(nodes), len(edges))
	}

	small := s.r.Call(context.Background(), "cos_graph_export", json.RawMessage(`{}`), envelope.Options{BudgetChars: 8000})
	if n := len(small.JSON()); n > 8000 || small.Meta()[envelope.KeyTruncatedSubgraph] != true {
		t.Fatalf("--budget-chars 8000: %d bytes, meta %v", n, small.Meta())
	}

	more := s.r.Call(context.Background(), "cos_graph_export", json.RawMessage(`{"max_chars": 5000000}`), envelope.Options{})
	if more.Meta()[envelope.KeyTruncated] != false || len(more.Data()["nodes"].([]any)) != 500 {
		t.Fatalf("max_chars 5000000: %d bytes, meta %v", len(more.JSON()), more.Meta())
	}
	browser := s.r.Call(context.Background(), "cos_graph_export", json.RawMessage(`{}`), envelope.Options{NoBudget: true})
	if browser.Meta()[envelope.KeyTruncated] != false || len(browser.Data()["nodes"].([]any)) != 500 {
		t.Fatalf("no budget: %d bytes, meta %v", len(browser.JSON()), browser.Meta())
	}
	graphFail(t, s, "cos_graph_export", `{"max_chars": 5000001}`, envelope.CodeArgument)
	graphFail(t, s, "cos_graph_export", `{"max_chars": 10}`, envelope.CodeArgument)
}

// TestUpsert_AnswersCountsAndUIDs: cos_graph_upsert answers the counts
// written and the node uids, not an echo of every node and edge.
func TestUpsert_AnswersCountsAndUIDs(t *testing.T) {
	s := openServer(t, "")
	e := bigGraph(t, s, 100)
	if _, echo := e.Data["nodes"]; echo {
		t.Fatalf("upsert echoes nodes: keys %v", sortedDataKeys(e.Data))
	}
	if _, echo := e.Data["edges"]; echo {
		t.Fatalf("upsert echoes edges: keys %v", sortedDataKeys(e.Data))
	}
	w, _ := e.Data["written"].(map[string]any)
	uids, _ := e.Data["uids"].([]any)
	if w["nodes"] != float64(100) || w["edges"] == float64(0) || len(uids) != 100 || uids[0] != "code:function:pkg/f0.go::Fn0" {
		t.Fatalf("written %v, %d uids", w, len(uids))
	}
	if g, _ := e.Data["graph"].(map[string]any); g == nil {
		t.Fatalf("no graph counts: %v", sortedDataKeys(e.Data))
	}
}

// TestContext_NestedMetadataStringIsTrimmed: a node whose metadata holds
// 20,000 CJK characters answers within the budget, the string cut and named
// by its JSON path.
func TestContext_NestedMetadataStringIsTrimmed(t *testing.T) {
	s := openServer(t, "")
	doc := strings.Repeat("知識", 10_000)
	graphOK(t, s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:a.go::run", "kind": "function", "label": "run", "path": "a.go", "line": 1, "metadata": {"doc": "`+doc+`"}}]}`)
	env := s.r.Call(context.Background(), "cos_graph_context", json.RawMessage(`{"uid_or_name": "code:function:a.go::run"}`), envelope.Options{})
	meta := env.Meta()
	if !env.OK() || meta[envelope.KeyUnshrinkable] == true || !strings.Contains(fmt.Sprint(meta[envelope.KeyTruncatedStrings]), "node.metadata.doc") {
		t.Fatalf("ok=%v, %d bytes, meta %v", env.OK(), len(env.JSON()), meta)
	}
	if tok, _ := meta[envelope.KeyTokensEstimated].(int); tok*4 > envelope.DefaultBudgetChars {
		t.Fatalf("tokens_estimated %v over the budget", meta[envelope.KeyTokensEstimated])
	}
}

func sortedDataKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// TestUpsert_LargeAnswerFits: 10,000 nodes in one upsert answer within the
// agent budget (the uid list is cut, with its markers).
func TestUpsert_LargeAnswerFits(t *testing.T) {
	s := openServer(t, "")
	var nodes []string
	for i := range writeMaxNodes {
		nodes = append(nodes, fmt.Sprintf(`{"uid": "code:function:pkg/f%d.go::Fn%d"}`, i, i))
	}
	env := s.Call(context.Background(), "cos_graph_upsert", json.RawMessage(`{"nodes": [`+strings.Join(nodes, ",")+`]}`))
	if !env.OK() || len(env.JSON()) > envelope.DefaultBudgetChars || env.Meta()[envelope.KeyUnshrinkable] == true {
		t.Fatalf("ok=%v, %d bytes, meta %v", env.OK(), len(env.JSON()), env.Meta())
	}
	if w := env.Data()["written"].(map[string]any); fmt.Sprint(w["nodes"]) != fmt.Sprint(writeMaxNodes) {
		t.Fatalf("written %v", w)
	}
}
