package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// TestGraphExport_Clusters: two groups of four functions calling each
// other, joined by one call, export as two clusters named by their folder
// and best connected member; every function carries its cluster's id.
func TestGraphExport_Clusters(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	var nodes, edges []string
	uid := func(g string, i int) string { return fmt.Sprintf("code:function:%s/f.go::%s%d", g, g, i) }
	for _, g := range []string{"api", "store"} {
		for i := 1; i <= 4; i++ {
			nodes = append(nodes, fmt.Sprintf(`{"uid": %q, "kind": "function", "label": "%s%d", "path": "%s/f.go", "line": %d}`, uid(g, i), g, i, g, i))
			for j := i + 1; j <= 4; j++ {
				edges = append(edges, fmt.Sprintf(`{"source": %q, "target": %q, "type": "calls", "line": %d}`, uid(g, i), uid(g, j), i))
			}
		}
	}
	edges = append(edges, fmt.Sprintf(`{"source": %q, "target": %q, "type": "calls", "line": 9}`, uid("api", 4), uid("store", 1)))
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [`+strings.Join(nodes, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`)

	e := graphOK(t, r.s, "cos_graph_export", `{"root": "code:function:api/f.go::api1", "max_hops": 3, "clusters": true, "edge_types": ["calls"]}`)
	var got []string
	for _, c := range graphList(t, e.Data, "clusters") {
		got = append(got, fmt.Sprintf("%v %v size %v internal %v external %v", c["id"], c["name"], c["size"], c["internal_edges"], c["external_edges"]))
	}
	if want := "0 api (api4) size 4 internal 6 external 1; 1 store (store1) size 4 internal 6 external 1"; strings.Join(got, "; ") != want {
		t.Errorf("clusters = %s\nwant %s", strings.Join(got, "; "), want)
	}
	nodesOut := graphList(t, e.Data, "nodes")
	if len(nodesOut) != 8 {
		t.Fatalf("%d nodes exported, want 8", len(nodesOut))
	}
	for _, n := range nodesOut {
		want := float64(0)
		if strings.Contains(n["uid"].(string), "store/") {
			want = 1
		}
		if n["cluster"] != want {
			t.Errorf("%v: cluster %v, want %v", n["uid"], n["cluster"], want)
		}
	}
	if counts := e.Data["counts"].(map[string]any); counts["clusters"] != float64(2) {
		t.Errorf("counts = %v", counts)
	}
	// Without the option the answer is as before.
	e = graphOK(t, r.s, "cos_graph_export", `{"root": "code:function:api/f.go::api1", "max_hops": 3}`)
	if _, ok := e.Data["clusters"]; ok {
		t.Error("clusters listed without clusters: true")
	}
	if _, ok := graphList(t, e.Data, "nodes")[0]["cluster"]; ok {
		t.Error("a node has a cluster without clusters: true")
	}
}
