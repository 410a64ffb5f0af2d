package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// TestGraphExport_ReachableCountsWhatWasCut: a node with 320 callers,
// exported to 300 nodes, says 321 nodes lie within the hops (root
// included); at two hops the callers' own callee counts too.
func TestGraphExport_ReachableCountsWhatWasCut(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	const hub = "code:function:hub.go::Hub"
	nodes := []string{fmt.Sprintf(`{"uid": %q, "kind": "function", "label": "Hub", "path": "hub.go", "line": 1}`, hub),
		`{"uid": "code:function:far.go::Far", "kind": "function", "label": "Far", "path": "far.go", "line": 1}`}
	var edges []string
	for i := range 320 {
		uid := fmt.Sprintf("code:function:c.go::C%d", i)
		nodes = append(nodes, fmt.Sprintf(`{"uid": %q, "kind": "function", "label": "C%d", "path": "c.go", "line": %d}`, uid, i, i+1))
		edges = append(edges, fmt.Sprintf(`{"source": %q, "target": %q, "type": "calls", "line": %d}`, uid, hub, i+1))
	}
	edges = append(edges, `{"source": "code:function:c.go::C0", "target": "code:function:far.go::Far", "type": "calls", "line": 1}`)
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [`+strings.Join(nodes, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`)

	for _, tc := range []struct {
		args             string
		nodes, reachable float64
	}{
		{`{"root": "` + hub + `", "max_hops": 1, "max_nodes": 300}`, 300, 321},
		{`{"root": "` + hub + `", "max_hops": 1, "max_nodes": 2000}`, 321, 321},
		{`{"root": "` + hub + `", "max_hops": 2, "max_nodes": 10}`, 10, 322},
	} {
		e := hubCall(t, r.s, "cos_graph_export", tc.args) // no budget: every node listed
		if !e.OK {
			t.Fatalf("%s: %s %s", tc.args, e.Error.Code, e.Error.Message)
		}
		c := e.Data["counts"].(map[string]any)
		if c["nodes"] != tc.nodes || c["reachable"] != tc.reachable || len(graphList(t, e.Data, "nodes")) != int(tc.nodes) {
			t.Errorf("%s: counts %v, want nodes %v reachable %v", tc.args, c, tc.nodes, tc.reachable)
		}
	}
	if c := graphOK(t, r.s, "cos_graph_export", `{"max_nodes": 5}`).Data["counts"].(map[string]any); c["reachable"] != nil {
		t.Errorf("top_degree export counts reachable: %v", c)
	}
}
