package envelope

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOK_NestedCJKStringNamedByPath: a node's metadata holding 20,000 CJK
// characters is cut by the string step and named by its JSON path; the
// answer fits the agent budget.
func TestOK_NestedCJKStringNamedByPath(t *testing.T) {
	body := map[string]any{
		"node":    map[string]any{"uid": "code:function:a.go::run", "metadata": map[string]any{"doc": strings.Repeat("知識", 10_000)}},
		"results": []any{map[string]any{"uid": "x", "note": strings.Repeat("日", 300)}},
	}
	env := OK(body, Meta{Layer: LayerGraph}, Options{})
	data := checkSuccess(t, env, body, Options{})
	meta := data[keyMeta].(map[string]any)
	if meta[KeyUnshrinkable] == true || bytesCost(env.JSON()).size() > DefaultBudgetChars {
		t.Fatalf("size %d, meta %v", bytesCost(env.JSON()).size(), meta)
	}
	if got := fmt.Sprint(meta[KeyTruncatedStrings]); got != "[node.metadata.doc]" {
		t.Errorf("truncated_string_fields = %s, want [node.metadata.doc]", got)
	}
	if uid := data["node"].(map[string]any)["uid"]; uid != "code:function:a.go::run" {
		t.Errorf("node uid = %v", uid)
	}
	if _, cut := meta[TruncatedToKey("results")]; cut {
		t.Errorf("results cut although the excess lies in a string: %v", meta)
	}
	// The caller's map is untouched.
	if doc := body["node"].(map[string]any)["metadata"].(map[string]any)["doc"].(string); len([]rune(doc)) != 20_000 {
		t.Errorf("caller's nested string modified")
	}
	checkIdempotent(t, data, Meta{Layer: LayerGraph}, Options{})
}

// TestOK_EarlierListKeptWhenALaterOneHoldsTheExcess: a 3-item results is
// not emptied because rows is large.
func TestOK_EarlierListKeptWhenALaterOneHoldsTheExcess(t *testing.T) {
	rows := make([]any, 2000)
	for i := range rows {
		rows[i] = map[string]any{"id": fmt.Sprintf("TASK-%04d", i), "title": strings.Repeat("t", 40)}
	}
	body := map[string]any{"results": []any{"a", "b", "c"}, "rows": rows}
	env := OK(body, Meta{}, Options{})
	data := checkSuccess(t, env, body, Options{})
	meta := data[keyMeta].(map[string]any)
	if got := len(data["results"].([]any)); got != 3 {
		t.Errorf("results kept %d of 3; meta %v", got, meta)
	}
	if meta[TruncatedToKey("rows")] == nil {
		t.Errorf("rows not cut: %v", meta)
	}
}

// TestOK_SubgraphAnswersToTheAgentBudget: a {nodes, edges} body fits the
// agent budget by the coherent trim; a handler's BudgetChars (max_chars)
// raises it up to the subgraph ceiling; without a budget only the ceiling
// applies.
func TestOK_SubgraphAnswersToTheAgentBudget(t *testing.T) {
	body := graphBody(500, 4000, rand.New(rand.NewPCG(3, 3)))
	full := len(OK(body, Meta{}, Options{NoBudget: true}).JSON())
	if full < 4*DefaultBudgetChars {
		t.Fatalf("body of %d bytes is too small to mean anything", full)
	}
	for _, tt := range []struct {
		name   string
		opts   Options
		ask    int
		budget int // 0: untrimmed
	}{
		{"agent default", Options{}, 0, DefaultBudgetChars},
		{"cos call --budget-chars", Options{BudgetChars: 10_000}, 0, 10_000},
		{"max_chars", Options{}, 100_000, 100_000},
		{"max_chars over the ceiling", Options{SubgraphBudgetChars: 50_000}, 5_000_000, 50_000},
		{"no budget", Options{NoBudget: true}, 0, 0},
		{"no budget ignores max_chars", Options{NoBudget: true}, 1000, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := OK(body, Meta{Tool: ToolMeta{BudgetChars: tt.ask}}, tt.opts)
			oracle := tt.opts // the oracle knows the effective budget
			if tt.ask > 0 {
				oracle.BudgetChars = min(tt.ask, oracle.withDefaults().SubgraphBudgetChars)
			}
			data := checkSuccess(t, env, body, oracle)
			meta := data[keyMeta].(map[string]any)
			size := bytesCost(env.JSON()).size()
			if tt.budget == 0 {
				if meta[KeyTruncated] != false {
					t.Fatalf("trimmed without a budget: %v", meta)
				}
				return
			}
			if meta[KeyTruncatedSubgraph] != true || meta[KeyUnshrinkable] == true || size > tt.budget || size < tt.budget*9/10 {
				t.Fatalf("size %d for budget %d; meta %v", size, tt.budget, sortedKeys(meta))
			}
		})
	}
}
