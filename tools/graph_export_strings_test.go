package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// upsertPlain upserts n plain function nodes, in batches of 100.
func upsertPlain(t *testing.T, s *testServer, n int) {
	t.Helper()
	for start := 0; start < n; start += 100 {
		var nodes []string
		for i := start; i < min(start+100, n); i++ {
			nodes = append(nodes, fmt.Sprintf(`{"uid": "code:function:pkg/f%d.go::Fn%d", "kind": "function", "label": "Fn%d", "path": "pkg/f%d.go", "line": 1}`, i, i, i, i))
		}
		graphOK(t, s, "cos_graph_upsert", `{"nodes": [`+strings.Join(nodes, ",")+`]}`)
	}
}

// TestExport_OneLongStringDoesNotEmptyTheExport: a node holding a 60,000
// character string (or 20,000 CJK characters) costs the default
// cos_graph_export at most its own strings: the string is shortened and
// named in truncated_string_fields, and the other nodes stay.
func TestExport_OneLongStringDoesNotEmptyTheExport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		notes string
	}{
		{"ascii_50", 50, strings.Repeat("a", 60_000)},
		{"cjk_500", 500, strings.Repeat("日", 20_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openServer(t, "")
			upsertPlain(t, s, tc.n)
			export := func(args string) envelope.Envelope {
				env := s.r.Call(context.Background(), "cos_graph_export", json.RawMessage(args), envelope.Options{})
				if !env.OK() {
					t.Fatalf("export %s: %v", args, env.Err())
				}
				return env
			}
			before := len(export(`{}`).Data()["nodes"].([]any))
			big := fmt.Sprintf(`{"nodes": [{"uid": "code:function:big.go::Big", "kind": "function", "label": "Big", "path": "big.go", "metadata": {"notes": %q}}]}`, tc.notes)
			graphOK(t, s, "cos_graph_upsert", big)

			env := export(`{}`)
			meta := env.Meta()
			nodes := env.Data()["nodes"].([]any)
			t.Logf("without the big node %d nodes; with it %d of %d, %d bytes, meta %v", before, len(nodes), tc.n+1, len(env.JSON()), meta)
			if size := len(env.JSON()); size > envelope.DefaultBudgetChars || meta[envelope.KeyUnshrinkable] == true {
				t.Fatalf("%d bytes (budget %d), meta %v", size, envelope.DefaultBudgetChars, meta)
			}
			// The big node is one more top node to keep: it may take the
			// place of one plain node, never more.
			if len(nodes) < before-1 || (before == tc.n && len(nodes) != tc.n+1) {
				t.Fatalf("kept %d nodes, %d without the big node", len(nodes), before)
			}
			fields, _ := meta[envelope.KeyTruncatedStrings].([]any)
			if len(fields) != 1 || !strings.HasSuffix(fields[0].(string), "].metadata.notes") {
				t.Fatalf("truncated_string_fields = %v", meta[envelope.KeyTruncatedStrings])
			}
			found := false
			for _, n := range nodes {
				nm := n.(map[string]any)
				if nm["uid"] == "code:function:big.go::Big" {
					found = true
					notes := nm["metadata"].(map[string]any)["notes"].(string)
					if !strings.HasSuffix(notes, envelope.TruncationMarker) {
						t.Fatalf("notes not marked: %.40q", notes)
					}
				}
			}
			if !found {
				t.Fatal("the shortened node is missing")
			}
			if all := export(`{"max_chars": 100000}`); len(all.Data()["nodes"].([]any)) != min(tc.n+1, exportDefaultNodes) {
				t.Fatalf("max_chars 100000: %d nodes, meta %v", len(all.Data()["nodes"].([]any)), all.Meta())
			}
		})
	}
}
