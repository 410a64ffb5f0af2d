package projections

import (
	"reflect"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// readFixture is a small graph: two Go files sharing a folder and a stub,
// an agent edge, and one extractor recording parse errors.
func readFixture(t *testing.T) *Graph {
	t.Helper()
	g := NewGraph()
	evs := []struct {
		typ  string
		data any
	}{
		{graph.TypeFileExtracted, graph.FileExtracted{Path: "x.go", Extractor: "go", ContentHash: "hx", DurationMS: 4,
			Nodes: []graph.Node{
				{UID: "folder:.", Label: "."},
				{UID: "code:file:x.go", Label: "x.go", Path: "x.go"},
				{UID: "code:function:x.go::Char.splice", Kind: graph.KindMethod, Label: "splice", Path: "x.go", Line: 7, Metadata: map[string]any{"receiver": "Char"}},
			},
			Edges: []graph.Edge{
				{Source: "folder:.", Target: "code:file:x.go", Type: graph.EdgeContains},
				{Source: "code:file:x.go", Target: "code:function:x.go::Char.splice", Type: graph.EdgeContains},
				{Source: "code:function:x.go::Char.splice", Target: "code:external:fmt.Sprint", Type: graph.EdgeCalls, Line: 9},
			}}},
		{graph.TypeFileExtracted, graph.FileExtracted{Path: "y.go", Extractor: "go", ContentHash: "hy", ParseErrors: []string{"y.go:3: bad"},
			Nodes: []graph.Node{{UID: "folder:.", Label: "."}, {UID: "code:function:y.go::splice", Label: "splice", Path: "y.go"}},
			Edges: []graph.Edge{{Source: "code:function:y.go::splice", Target: "code:external:fmt.Sprint", Type: graph.EdgeCalls}}}},
		{graph.TypeFileExtracted, graph.FileExtracted{Path: "y.go", Extractor: "lint", ContentHash: "hy2"}},
		{graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: []graph.Edge{{Source: "code:function:y.go::splice", Target: "code:function:x.go::Char.splice", Type: graph.EdgeCalls}}}},
	}
	for i, e := range evs {
		if err := g.Apply(testEvent(t, uint64(i+1), e.typ, e.data)); err != nil {
			t.Fatal(err)
		}
	}
	checkGraph(t, g)
	return g
}

func TestGraph_ReadAPI(t *testing.T) {
	g := readFixture(t)
	const method = "code:function:x.go::Char.splice"

	n, ok := g.Node(method)
	want := graph.Node{UID: method, Kind: graph.KindMethod, Label: "splice", Path: "x.go", Line: 7, Extractor: "go", Metadata: map[string]any{"receiver": "Char"}}
	if !ok || !reflect.DeepEqual(n, want) {
		t.Errorf("Node(%s) = %+v, %v; want %+v", method, n, ok, want)
	}
	if _, ok := g.Node("code:external:fmt.Sprint"); ok || !g.HasNode("folder:.") || g.HasNode("code:external:fmt.Sprint") {
		t.Error("an edge endpoint that is not a node is reported as a node, or a node is missing")
	}

	var labelled []string
	for _, n := range g.NodesByLabel("splice") {
		labelled = append(labelled, n.UID)
	}
	if want := []string{method, "code:function:y.go::splice"}; !reflect.DeepEqual(labelled, want) {
		t.Errorf("NodesByLabel(splice) = %v, want %v", labelled, want)
	}

	var all []string
	g.Nodes(func(n graph.Node) bool { all = append(all, n.UID); return true })
	if want := []string{"code:file:x.go", method, "code:function:y.go::splice", "folder:."}; !reflect.DeepEqual(all, want) {
		t.Errorf("Nodes order %v, want %v", all, want)
	}
	var first []string
	g.Nodes(func(n graph.Node) bool { first = append(first, n.UID); return false })
	if len(first) != 1 {
		t.Errorf("Nodes did not stop when fn returned false: %v", first)
	}

	keys := func(es []graph.Edge) []graph.EdgeKey {
		var out []graph.EdgeKey
		for _, e := range es {
			out = append(out, e.Key())
		}
		return out
	}
	if got, want := keys(g.In(method)), []graph.EdgeKey{
		{Source: "code:file:x.go", Target: method, Type: graph.EdgeContains, Extractor: "go"},
		{Source: "code:function:y.go::splice", Target: method, Type: graph.EdgeCalls, Extractor: AgentOwner},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("In = %v, want %v", got, want)
	}
	if got := keys(g.Out("code:external:fmt.Sprint")); got != nil {
		t.Errorf("Out of a stub = %v", got)
	}
	if in, out := g.Degree("code:external:fmt.Sprint"); in != 2 || out != 0 {
		t.Errorf("Degree(stub) = %d, %d; want 2, 0", in, out)
	}
	if e, ok := g.Edge(graph.EdgeKey{Source: "code:function:y.go::splice", Target: method, Type: graph.EdgeCalls}); !ok || e.Extractor != AgentOwner {
		t.Errorf("Edge with an empty extractor should find the agent's edge: %+v %v", e, ok)
	}
	if _, ok := g.Edge(graph.EdgeKey{Source: "folder:.", Target: "code:file:x.go", Type: graph.EdgeContains, Extractor: "lint"}); ok {
		t.Error("Edge found an edge under another extractor")
	}

	if got, want := g.FileHashes(), map[string]string{"x.go": "hx", "y.go": "hy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FileHashes = %v, want %v (the lexically first extractor's)", got, want)
	}
	files := g.Files()
	if len(files) != 3 || files[1].Extractor != "go" || files[1].Path != "y.go" || !reflect.DeepEqual(files[1].ParseErrors, []string{"y.go:3: bad"}) || files[0].DurationMS != 4 {
		t.Errorf("Files = %+v", files)
	}
	if fi, ok := g.file("go", "x.go"); !ok || fi.Nodes != 3 || fi.Edges != 3 {
		t.Errorf("File(go, x.go) = %+v, %v; want 3 nodes and 3 edges", fi, ok)
	}
	if got, want := g.Counts(), (GraphCounts{Nodes: 4, Edges: 5, Files: 2, Extractions: 3}); got != want {
		t.Errorf("Counts = %+v, want %+v", got, want)
	}
}
