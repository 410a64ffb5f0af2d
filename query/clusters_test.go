package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// twoCommunities returns the nodes and edges of two groups of five
// functions, a/ and b/, each calling every other of its group, joined by
// one call a1 → b1; plus a function calling nothing and a test calling
// into both groups.
func twoCommunities() ([]graph.Node, []graph.Edge) {
	var nodes []graph.Node
	var edges []graph.Edge
	uid := func(g string, i int) string { return fmt.Sprintf("code:function:%s/f.go::%s%d", g, g, i) }
	for _, g := range []string{"a", "b"} {
		for i := 1; i <= 5; i++ {
			nodes = append(nodes, graph.Node{UID: uid(g, i), Kind: graph.KindFunction, Label: fmt.Sprintf("%s%d", g, i), Path: g + "/f.go", Line: i})
			for j := i + 1; j <= 5; j++ {
				edges = append(edges, graph.Edge{Source: uid(g, i), Target: uid(g, j), Type: graph.EdgeCalls, Line: i})
			}
		}
	}
	edges = append(edges, graph.Edge{Source: uid("a", 1), Target: uid("b", 1), Type: graph.EdgeCalls, Line: 9})
	nodes = append(nodes,
		graph.Node{UID: "code:function:c/lone.go::lone", Kind: graph.KindFunction, Label: "lone", Path: "c/lone.go"},
		graph.Node{UID: "code:function:a/f_test.go::TestA", Kind: graph.KindFunction, Label: "TestA", Path: "a/f_test.go"})
	edges = append(edges,
		graph.Edge{Source: "code:function:a/f_test.go::TestA", Target: uid("a", 2), Type: graph.EdgeCalls},
		graph.Edge{Source: "code:function:a/f_test.go::TestA", Target: uid("b", 2), Type: graph.EdgeCalls})
	return nodes, edges
}

// clusterGraph applies nodes and edges, shuffled by seed, to a new graph.
func clusterGraph(t *testing.T, seed uint64) *projections.Graph {
	t.Helper()
	nodes, edges := twoCommunities()
	rng := rand.New(rand.NewPCG(seed, 7))
	rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	g := projections.NewGraph()
	applyEvent(t, g, 1, graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: nodes})
	applyEvent(t, g, 2, graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: edges})
	return g
}

func TestClustersOf_TwoCommunities(t *testing.T) {
	c, err := ClustersOf(context.Background(), clusterGraph(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d nodes %d edges %d unclustered", c.Nodes, c.Edges, c.Unclustered); got != "10 nodes 21 edges 1 unclustered" {
		t.Errorf("graph = %s", got)
	}
	want := []Cluster{
		{ID: 0, Name: "a (a1)", Folder: "a", Top: "code:function:a/f.go::a1", TopLabel: "a1", Size: 5,
			Folders: []FolderCount{{"a", 5}}, InternalEdges: 10, ExternalEdges: 1, Links: []ClusterLink{{1, 1}}},
		{ID: 1, Name: "b (b1)", Folder: "b", Top: "code:function:b/f.go::b1", TopLabel: "b1", Size: 5,
			Folders: []FolderCount{{"b", 5}}, InternalEdges: 10, ExternalEdges: 1, Links: []ClusterLink{{0, 1}}},
	}
	if !reflect.DeepEqual(c.List, want) {
		t.Errorf("clusters:\n%+v\nwant:\n%+v", c.List, want)
	}
	for uid, id := range c.Of {
		if want := map[byte]int{'a': 0, 'b': 1}[uid[len("code:function:")]]; id != want {
			t.Errorf("%s in cluster %d, want %d", uid, id, want)
		}
	}
	if len(c.Of) != 10 {
		t.Errorf("%d uids clustered, want 10", len(c.Of))
	}
	// Q of two K5 joined by one edge: 2·(10/21 − (21/42)²) ≈ 0.452.
	if c.Modularity < 0.45 || c.Modularity > 0.46 {
		t.Errorf("modularity = %.4f, want ≈ 0.452", c.Modularity)
	}
	for seed := uint64(2); seed < 6; seed++ {
		again, err := ClustersOf(context.Background(), clusterGraph(t, seed))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Errorf("seed %d: another insertion order gives another answer", seed)
		}
	}
}

func TestCachedClusters_ReusesUntilTheGraphChanges(t *testing.T) {
	g := clusterGraph(t, 1)
	ctx := context.Background()
	first, err := CachedClusters(ctx, g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := CachedClusters(ctx, g, 2); again != first {
		t.Error("unchanged graph: answer not reused")
	}
	applyEvent(t, g, 3, graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: []graph.Edge{
		{Source: "code:function:c/lone.go::lone", Target: "code:function:a/f.go::a3", Type: graph.EdgeCalls}}})
	changed, err := CachedClusters(ctx, g, 3)
	if err != nil {
		t.Fatal(err)
	}
	if changed == first || changed.Unclustered != 0 || changed.List[0].Size != 6 {
		t.Errorf("after a change: reused %v, unclustered %d, largest %d", changed == first, changed.Unclustered, changed.List[0].Size)
	}
}
