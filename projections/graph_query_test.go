package projections

import (
	"reflect"
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestGraph_Unresolved_FollowsNodes checks the graph-wide totals through
// upsert, metadata change, re-extraction that drops a node, delete and a
// snapshot round trip, and the cached LowerBoundFiles with them.
func TestGraph_Unresolved_FollowsNodes(t *testing.T) {
	g := NewGraph()
	apply := func(seq uint64, typ string, data any) {
		t.Helper()
		if err := g.Apply(testEvent(t, seq, typ, data)); err != nil {
			t.Fatal(err)
		}
		checkGraph(t, g)
	}
	want := func(step string, u UnresolvedCounts) {
		t.Helper()
		if got := g.Unresolved(); got != u {
			t.Fatalf("%s: Unresolved() = %+v, want %+v", step, got, u)
		}
		// LowerBoundFiles is cached from the step before: a change must
		// have dropped it.
		if got, fresh := g.LowerBoundFiles(), g.lowerBoundFiles(); !reflect.DeepEqual(got, fresh) || len(got) != u.LowerBoundFiles {
			t.Fatalf("%s: LowerBoundFiles() = %+v, want %+v (%d files)", step, got, fresh, u.LowerBoundFiles)
		}
	}
	typeErr := map[string]any{graph.MetaExtraction: graph.ExtractionSyntax, graph.MetaFallback: graph.FallbackTypeError}
	apply(1, graph.TypeFileExtracted, graph.FileExtracted{Path: "a.go", Extractor: "go", Nodes: []graph.Node{
		{UID: "code:file:a.go", Path: "a.go", Metadata: typeErr},
		{UID: "code:function:a.go::F", Path: "a.go", Metadata: map[string]any{graph.MetaDynamicCalls: 3, graph.MetaReflectCalls: 1}},
		{UID: "code:function:a.go::G", Path: "a.go", Metadata: map[string]any{graph.MetaDynamicCalls: 2}},
	}})
	want("extracted", UnresolvedCounts{DynamicCalls: 5, ReflectCalls: 1, LowerBoundFiles: 1})
	// A build-excluded file is not a lower bound; a function node's
	// fallback key does not count as a file.
	apply(2, graph.TypeFileExtracted, graph.FileExtracted{Path: "b.go", Extractor: "go", Nodes: []graph.Node{
		{UID: "code:file:b.go", Path: "b.go", Metadata: map[string]any{graph.MetaFallback: graph.FallbackBuildExcluded}},
		{UID: "code:function:b.go::H", Path: "b.go", Metadata: typeErr},
	}})
	want("build excluded", UnresolvedCounts{DynamicCalls: 5, ReflectCalls: 1, LowerBoundFiles: 1})
	// Re-extraction: the file now type-checks, F changed, G is gone.
	apply(3, graph.TypeFileExtracted, graph.FileExtracted{Path: "a.go", Extractor: "go", Nodes: []graph.Node{
		{UID: "code:file:a.go", Path: "a.go", Metadata: map[string]any{graph.MetaExtraction: graph.ExtractionTypes}},
		{UID: "code:function:a.go::F", Path: "a.go", Metadata: map[string]any{graph.MetaDynamicCalls: 1}},
	}})
	want("re-extracted", UnresolvedCounts{DynamicCalls: 1})
	apply(4, graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: []graph.Node{
		{UID: "code:file:c.go", Path: "c.go", Metadata: map[string]any{graph.MetaFallback: graph.FallbackLoadError}},
	}})
	want("agent upsert", UnresolvedCounts{DynamicCalls: 1, LowerBoundFiles: 1})
	restored := roundTrip(t, g)
	if got := restored.Unresolved(); got != g.Unresolved() {
		t.Fatalf("after a snapshot round trip Unresolved() = %+v, want %+v", got, g.Unresolved())
	}
	if got, want := restored.LowerBoundFiles(), g.LowerBoundFiles(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a snapshot round trip LowerBoundFiles() = %+v, want %+v", got, want)
	}
	apply(5, graph.TypeNodesDeleted, graph.NodesDeleted{UIDs: []string{"code:file:c.go", "code:function:a.go::F"}})
	want("deleted", UnresolvedCounts{})
}

// TestGraph_LastChange checks the seq of the last graph event, its unknown
// state after a restore, and that other events do not move it.
func TestGraph_LastChange(t *testing.T) {
	g := NewGraph()
	if got := g.LastChange(9); got != 0 {
		t.Fatalf("empty graph: LastChange = %d, want 0", got)
	}
	up := graph.NodesUpserted{Nodes: []graph.Node{{UID: "code:file:a.go", Path: "a.go"}}}
	if err := g.Apply(testEvent(t, 3, graph.TypeNodesUpserted, up)); err != nil {
		t.Fatal(err)
	}
	if err := g.Apply(testEvent(t, 4, "task.created", map[string]any{})); err != nil {
		t.Fatal(err)
	}
	if got := g.LastChange(4); got != 3 {
		t.Fatalf("after a task event: LastChange = %d, want 3", got)
	}
	restored := roundTrip(t, g)
	if got := restored.LastChange(7); got != 7 {
		t.Fatalf("restored: LastChange(7) = %d, want the position 7", got)
	}
	if err := restored.Apply(testEvent(t, 8, "task.created", map[string]any{})); err != nil {
		t.Fatal(err)
	}
	if got := restored.LastChange(8); got != 7 {
		t.Fatalf("restored, then a task event at 8: LastChange = %d, want 7", got)
	}
}

func TestGraph_AdjacencyByType(t *testing.T) {
	g := readFixture(t)
	const method = "code:function:x.go::Char.splice"
	if got := g.Sources(method, graph.EdgeCalls); !slices.Equal(got, []string{"code:function:y.go::splice"}) {
		t.Errorf("Sources(calls) = %v", got)
	}
	if got := g.Sources(method, graph.EdgeContains); !slices.Equal(got, []string{"code:file:x.go"}) {
		t.Errorf("Sources(contains) = %v", got)
	}
	if got := g.Targets("code:function:y.go::splice", graph.EdgeCalls); !slices.Equal(got, []string{"code:external:fmt.Sprint", method}) {
		t.Errorf("Targets(calls) = %v", got)
	}
	if got := g.Sources(method, graph.EdgeImplements); got != nil {
		t.Errorf("Sources of an edge type the graph lacks = %v", got)
	}
	var in []string
	g.EachIn(method, func(source, typ string) bool {
		in = append(in, typ+" "+source)
		return true
	})
	slices.Sort(in)
	if want := []string{"calls code:function:y.go::splice", "contains code:file:x.go"}; !slices.Equal(in, want) {
		t.Errorf("EachIn = %v, want %v", in, want)
	}
	if !g.HasIn(method, graph.EdgeCalls) || g.HasIn(method, graph.EdgeReferences) || g.HasIn("code:nothing", graph.EdgeCalls) {
		t.Error("HasIn is wrong")
	}
	h, ok := g.NodeHeader(method)
	want := graph.Node{UID: method, Kind: graph.KindMethod, Label: "splice", Path: "x.go", Line: 7, Extractor: "go"}
	if !ok || !reflect.DeepEqual(h, want) {
		t.Errorf("NodeHeader = %+v, %v; want %+v", h, ok, want)
	}
	if _, ok := g.NodeHeader("code:external:fmt.Sprint"); ok {
		t.Error("NodeHeader of an endpoint that is not a node")
	}
}
