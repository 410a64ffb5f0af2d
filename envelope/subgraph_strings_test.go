package envelope

import (
	"fmt"
	"strings"
	"testing"
)

// bigNodeGraph is a {nodes, edges} body of n small nodes in a ring with
// chords, plus, when notes is not empty, one node at the front that carries
// notes in its metadata and is joined to every small node (so it has the
// highest degree).
func bigNodeGraph(n int, notes string) map[string]any {
	var nodes, edges []any
	if notes != "" {
		nodes = append(nodes, map[string]any{"uid": "code:function:big.go::Big", "kind": "function", "label": "Big",
			"path": "big.go", "metadata": map[string]any{"notes": notes}})
	}
	uid := func(i int) string { return fmt.Sprintf("code:function:pkg/f%d.go::Fn%d", i, i) }
	for i := range n {
		nodes = append(nodes, map[string]any{"uid": uid(i), "kind": "function", "label": fmt.Sprintf("Fn%d", i), "path": fmt.Sprintf("pkg/f%d.go", i)})
		for _, j := range []int{i - 1, i - 7} {
			if j >= 0 {
				edges = append(edges, map[string]any{"source": uid(i), "target": uid(j), "type": "calls"})
			}
		}
		if notes != "" && i%2 == 0 {
			edges = append(edges, map[string]any{"source": "code:function:big.go::Big", "target": uid(i), "type": "calls"})
		}
	}
	return map[string]any{"nodes": nodes, "edges": edges, "selection": "top_degree"}
}

// checkCoherent fails unless every kept edge joins two kept nodes; it
// returns the kept node uids.
func checkCoherent(t *testing.T, data map[string]any) map[string]bool {
	t.Helper()
	kept := map[string]bool{}
	for _, n := range data["nodes"].([]any) {
		kept[n.(map[string]any)["uid"].(string)] = true
	}
	for _, e := range data["edges"].([]any) {
		em := e.(map[string]any)
		if !kept[em["source"].(string)] || !kept[em["target"].(string)] {
			t.Fatalf("edge %v joins a node that was cut", em)
		}
	}
	return kept
}

// TestOK_SubgraphLongStringCostsOnlyItsStrings: one node with a long string
// (60,000 ASCII or 20,000 CJK characters), whatever its degree, never
// empties a {nodes, edges} answer. When shortening strings alone makes the
// envelope fit, no node is dropped; otherwise the top-degree nodes that fit
// with the long strings cut are kept — never fewer than without the big
// node, less one. The shortened string is named by its JSON path.
func TestOK_SubgraphLongStringCostsOnlyItsStrings(t *testing.T) {
	opts := Options{BudgetChars: DefaultBudgetChars}
	for _, tc := range []struct {
		name  string
		n     int
		notes string
		all   bool // every node fits once the string is cut
	}{
		{"ascii_50", 50, strings.Repeat("a", 60_000), true},
		{"cjk_50", 50, strings.Repeat("日", 20_000), true},
		{"ascii_500", 500, strings.Repeat("a", 60_000), false},
		{"cjk_500", 500, strings.Repeat("日", 20_000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := OK(bigNodeGraph(tc.n, ""), Meta{Layer: LayerGraph}, opts)
			plainKept := len(plain.Data()["nodes"].([]any))

			body := bigNodeGraph(tc.n, tc.notes)
			env := OK(body, Meta{Layer: LayerGraph}, opts)
			data := checkSuccess(t, env, body, opts)
			meta := env.Meta()
			if size := len(env.JSON()); size > opts.BudgetChars || meta[KeyUnshrinkable] == true {
				t.Fatalf("%d bytes (budget %d), meta %v", size, opts.BudgetChars, meta)
			}
			kept := checkCoherent(t, data)
			t.Logf("without the big node %d of %d nodes kept; with it %d of %d, meta %v", plainKept, tc.n, len(kept), tc.n+1, meta)
			if !kept["code:function:big.go::Big"] {
				t.Fatalf("the top-degree node was dropped: kept %d nodes", len(kept))
			}
			if tc.all && len(kept) != tc.n+1 {
				t.Fatalf("kept %d of %d nodes, but cutting the string alone fits", len(kept), tc.n+1)
			}
			if len(kept) < min(plainKept, tc.n)-1 {
				t.Fatalf("kept %d nodes, %d without the big node", len(kept), plainKept)
			}
			fields, _ := meta[KeyTruncatedStrings].([]any)
			if len(fields) != 1 || fields[0] != "nodes[0].metadata.notes" {
				t.Fatalf("truncated_string_fields = %v", meta[KeyTruncatedStrings])
			}
			notes := data["nodes"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["notes"].(string)
			if !strings.HasSuffix(notes, TruncationMarker) {
				t.Fatalf("notes not marked: %.40q", notes)
			}
			if tc.all && meta[KeyTruncatedSubgraph] == true {
				t.Fatalf("truncated_subgraph set though no node was dropped: %v", meta)
			}
		})
	}
}

// TestOK_SubgraphLongStringLowDegree: the big node last by degree does
// not stop the trim before the nodes ahead of it.
func TestOK_SubgraphLongStringLowDegree(t *testing.T) {
	opts := Options{BudgetChars: DefaultBudgetChars}
	body := bigNodeGraph(50, "")
	nodes := body["nodes"].([]any)
	// A long string on the first node, which has degree 1 or 2.
	first := nodes[0].(map[string]any)
	nodes[0] = map[string]any{"uid": first["uid"], "kind": "function", "label": first["label"], "metadata": map[string]any{"doc": strings.Repeat("a", 60_000)}}
	env := OK(body, Meta{Layer: LayerGraph}, opts)
	data := checkSuccess(t, env, body, opts)
	if got := len(checkCoherent(t, data)); got != 50 {
		t.Fatalf("kept %d of 50 nodes, meta %v", got, env.Meta())
	}
}
