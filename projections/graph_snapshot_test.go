package projections

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// ownerSetSnapshot returns a graph section with two owners and one node
// whose owner set lists the indices idx as written.
func ownerSetSnapshot(idx ...uint64) []byte {
	return ownerSetsSnapshot(idx, nil)
}

// ownerSetsSnapshot returns a graph section with two owners and one node
// whose owner set lists nodeIdx as written; with edgeIdx non-nil, also
// one calls edge from the node to itself whose owner set lists edgeIdx.
func ownerSetsSnapshot(nodeIdx, edgeIdx []uint64) []byte {
	var buf bytes.Buffer
	e := &encoder{w: &buf}
	e.str(graphFormat)
	e.uvarint(2)
	for _, p := range []string{"a.go", "b.go"} {
		e.str(p)
		e.str("go")
		e.str("h")
		e.varint(1)
		e.float(0)
		e.uvarint(0)
	}
	e.uvarint(1)
	for _, s := range []string{"code:function:a.go::f", graph.KindFunction, "f", "a.go", "go"} {
		e.str(s)
	}
	e.varint(1)
	e.varint(2)
	e.bytes(nil)
	e.uvarint(uint64(len(nodeIdx)))
	for _, i := range nodeIdx {
		e.uvarint(i)
	}
	if edgeIdx == nil {
		e.uvarint(0) // edges
		e.uvarint(0) // sources
		return buf.Bytes()
	}
	e.uvarint(1) // edges
	e.uvarint(1) // sources
	e.uvarint(1) // the source: node 1
	e.uvarint(1) // its edges
	e.uvarint(1) // the target: node 1
	e.str(graph.EdgeCalls)
	e.str("go")
	e.varint(1)
	e.bytes(nil)
	e.uvarint(uint64(len(edgeIdx)))
	for _, i := range edgeIdx {
		e.uvarint(i)
	}
	return buf.Bytes()
}

// TestGraph_UnmarshalSnapshot_EdgeOwnerSet checks that a bad owner set on
// an edge (empty, descending, out of range) is a bad snapshot, not a
// crash, and leaves the graph as it was; a good one loads the edge.
func TestGraph_UnmarshalSnapshot_EdgeOwnerSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		idx  []uint64
		ok   bool
	}{
		{"one", []uint64{1}, true},
		{"empty", []uint64{}, false},
		{"descending", []uint64{2, 1}, false},
		{"out of range", []uint64{3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			err := g.UnmarshalSnapshot(ownerSetsSnapshot([]uint64{1}, tc.idx))
			if tc.ok {
				if err != nil {
					t.Fatalf("unmarshal: %v", err)
				}
				checkGraph(t, g)
				if c := g.Counts(); c.Edges != 1 {
					t.Errorf("edges: got %d, want 1", c.Edges)
				}
				return
			}
			if !errors.Is(err, ErrBadSnapshot) {
				t.Fatalf("unmarshal: got %v, want ErrBadSnapshot", err)
			}
			if c := g.Counts(); c.Nodes != 0 || c.Edges != 0 || c.Extractions != 0 {
				t.Errorf("a failed unmarshal changed the graph: %+v", c)
			}
		})
	}
}

// TestGraph_UnmarshalSnapshot_OwnerSetOrder checks that an owner set must
// list its indices strictly ascending, as the encoder writes them: a
// repeated or descending index is a bad snapshot and leaves the graph as
// it was.
func TestGraph_UnmarshalSnapshot_OwnerSetOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		idx  []uint64
		ok   bool
	}{
		{"one", []uint64{1}, true},
		{"agent and two files", []uint64{0, 1, 2}, true},
		{"repeated", []uint64{1, 1}, false},
		{"descending", []uint64{2, 1}, false},
		{"out of range", []uint64{1, 3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			err := g.UnmarshalSnapshot(ownerSetSnapshot(tc.idx...))
			if tc.ok {
				if err != nil {
					t.Fatalf("unmarshal: %v", err)
				}
				checkGraph(t, g)
				if got, want := len(g.vertices["code:function:a.go::f"].owners.all()), len(tc.idx); got != want {
					t.Errorf("owners: got %d, want %d", got, want)
				}
				return
			}
			if !errors.Is(err, ErrBadSnapshot) {
				t.Fatalf("unmarshal: got %v, want ErrBadSnapshot", err)
			}
			if c := g.Counts(); c.Nodes != 0 || c.Extractions != 0 {
				t.Errorf("a failed unmarshal changed the graph: %+v", c)
			}
		})
	}
}

// TestGraph_NodePaths_MatchesNodes checks, on random graphs and on their
// restored snapshots, that NodePaths gives exactly the uids and paths of
// Nodes, in the same order.
func TestGraph_NodePaths_MatchesNodes(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for s := range 5 {
		gen := eventGen{r: rand.New(rand.NewPCG(seed, uint64(s)))}
		g := NewGraph()
		applyAll(t, g, gen.events(t, 60))
		for _, h := range []*Graph{g, roundTrip(t, g)} {
			var want, got []string
			h.Nodes(func(n graph.Node) bool {
				want = append(want, n.UID, n.Path)
				return true
			})
			h.NodePaths(func(uid, path string) bool {
				got = append(got, uid, path)
				return true
			})
			if !slices.Equal(got, want) {
				t.Fatalf("sequence %d: NodePaths %q, Nodes %q", s, got, want)
			}
		}
	}
}
