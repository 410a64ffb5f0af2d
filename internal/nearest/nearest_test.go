package nearest

import (
	"reflect"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"日本語", "日本", 1}, {"complxity", "complexity", 1}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestRank(t *testing.T) {
	names := []string{"cos_graph_context", "cos_graph_impact", "cos_graph_resolve", "cos_task_board"}
	for q, want := range map[string][]string{
		"cos_graph_resolv": {"cos_graph_resolve"},
		"graph_impact":     {"cos_graph_impact"},
		"COS_TASK_BORD":    {"cos_task_board"},
	} {
		if got := Rank(q, names, 1); !reflect.DeepEqual(got, want) {
			t.Errorf("Rank(%q) = %v, want %v", q, got, want)
		}
	}
	if got := Rank("x", names, 10); len(got) != len(names) {
		t.Errorf("Rank with k > len = %v", got)
	}
}

func TestBest(t *testing.T) {
	keys := []string{"dimensions", "domain", "complexity"}
	for q, want := range map[string]string{"complxity": "complexity", "dim": "dimensions", "zzzzzzzz": ""} {
		if got := Best(q, keys, 3); got != want {
			t.Errorf("Best(%q) = %q, want %q", q, got, want)
		}
	}
}
