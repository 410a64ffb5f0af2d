package indexing

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

func TestEncodePayload_SplitsOverTheEventLimit(t *testing.T) {
	big := graph.FileExtracted{Path: "gen/tables.go", Extractor: "go", ContentHash: strings.Repeat("a", 64), ParseErrors: []string{"kept"}}
	big.Nodes = append(big.Nodes, graph.Node{UID: "code:file:gen/tables.go", Kind: graph.KindFile, Label: "tables.go", Path: "gen/tables.go"})
	for i := 0; i < 6000; i++ {
		uid := fmt.Sprintf("code:function:gen/tables.go::F%05d", i)
		big.Nodes = append(big.Nodes, graph.Node{UID: uid, Kind: graph.KindFunction, Label: fmt.Sprintf("F%05d", i), Path: "gen/tables.go",
			Metadata: map[string]any{"doc": strings.Repeat("x", 40)}})
		big.Edges = append(big.Edges, graph.Edge{Source: "code:file:gen/tables.go", Target: uid, Type: graph.EdgeContains, Extractor: "go"})
		if i > 0 {
			big.Edges = append(big.Edges, graph.Edge{Source: uid, Target: fmt.Sprintf("code:function:gen/tables.go::F%05d", i-1), Type: graph.EdgeCalls, Extractor: "go", Line: i})
		}
	}
	nodes0, edges0 := len(big.Nodes), len(big.Edges)
	parts, trimmed, err := encodePayload(&big)
	if err != nil || trimmed || len(parts) < 2 {
		t.Fatalf("parts=%d trimmed=%v err=%v, want several parts, nothing trimmed", len(parts), trimmed, err)
	}
	evs := make([]eventlog.Payload, len(parts))
	for i, data := range parts {
		if len(data) > maxPayloadBytes {
			t.Fatalf("part %d has %d bytes, over %d", i, len(data), maxPayloadBytes)
		}
		evs[i] = eventlog.Payload{Type: graph.TypeFileExtracted, Data: data}
	}
	// The log takes the parts in one request, and the projection holds
	// every node and edge of the file, twice over (a re-extraction replaces
	// rather than adds).
	ctx := context.Background()
	st, err := state.Open(ctx, state.Options{Dir: t.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(ctx) })
	for range 2 {
		if _, err := st.Append(ctx, eventlog.AppendRequest{Stream: graph.Stream, Events: evs}); err != nil {
			t.Fatalf("the log refused the parts: %v", err)
		}
	}
	var nodes, edges int
	if err := st.Read(ctx, func(v state.View) {
		c := v.Graph.Counts()
		nodes, edges = c.Nodes, c.Edges
	}); err != nil {
		t.Fatal(err)
	}
	if nodes != nodes0 || edges != edges0 {
		t.Errorf("graph holds %d nodes, %d edges; want %d, %d", nodes, edges, nodes0, edges0)
	}
	// A payload under the limit is one part, untouched.
	small := graph.FileExtracted{Path: "a.go", Extractor: "go", Nodes: big.Nodes[:3]}
	if parts, trimmed, _ := encodePayload(&small); trimmed || len(parts) != 1 || len(small.Nodes) != 3 {
		t.Fatalf("small payload: %d parts, trimmed %v", len(parts), trimmed)
	}
}
