package projections

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// edgeOrderSnapshot returns a graph section with one owner, the nodes
// code:function:a.go::f and code:function:a.go::m, and calls edges from f
// to targets in the order given: "1" and "2" name the nodes by position,
// anything else is an endpoint that is not a node, written by uid.
func edgeOrderSnapshot(targets ...string) []byte {
	var buf bytes.Buffer
	e := &encoder{w: &buf}
	e.str(graphFormat)
	e.uvarint(1)
	e.str("a.go")
	e.str("go")
	e.str("h")
	e.varint(1)
	e.float(0)
	e.uvarint(0)
	e.uvarint(2)
	for _, name := range []string{"f", "m"} {
		for _, s := range []string{"code:function:a.go::" + name, graph.KindFunction, name, "a.go", "go"} {
			e.str(s)
		}
		e.varint(1)
		e.varint(2)
		e.bytes(nil)
		e.uvarint(1)
		e.uvarint(1)
	}
	e.uvarint(uint64(len(targets))) // edges
	e.uvarint(1)                    // sources
	e.uvarint(1)                    // f
	e.uvarint(uint64(len(targets)))
	for _, t := range targets {
		switch t {
		case "1":
			e.uvarint(1)
		case "2":
			e.uvarint(2)
		default:
			e.uvarint(0)
			e.str(t)
		}
		e.str(graph.EdgeCalls)
		e.str("go")
		e.varint(1)
		e.bytes(nil)
		e.uvarint(1)
		e.uvarint(1)
	}
	return buf.Bytes()
}

// TestGraph_UnmarshalSnapshot_EdgeTargets: the edge section, decoded beside
// the nodes, still refuses targets out of uid order — between two nodes,
// two other endpoints, or a node and another endpoint (checked once the
// node's uid is known) — a repeated edge, and a node written by uid.
func TestGraph_UnmarshalSnapshot_EdgeTargets(t *testing.T) {
	const before, after = "code:external:x.A", "code:zzz" // sort before and after the nodes
	for _, tc := range []struct {
		name    string
		targets []string
		ok      bool
	}{
		{"sorted", []string{before, "1", "2", after}, true},
		{"nodes descending", []string{"2", "1"}, false},
		{"endpoints descending", []string{after, before}, false},
		{"node then an endpoint before it", []string{"1", before}, false},
		{"endpoint then a node before it", []string{after, "2"}, false},
		{"repeated", []string{"1", "1"}, false},
		{"a node by uid", []string{"code:function:a.go::m"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			err := g.UnmarshalSnapshot(edgeOrderSnapshot(tc.targets...))
			if tc.ok {
				if err != nil {
					t.Fatalf("unmarshal: %v", err)
				}
				checkGraph(t, g)
				if c := g.Counts(); c.Edges != len(tc.targets) || c.Nodes != 2 {
					t.Errorf("counts %+v, want 2 nodes and %d edges", c, len(tc.targets))
				}
				out, err := g.MarshalSnapshot()
				if err != nil || !bytes.Equal(out, edgeOrderSnapshot(tc.targets...)) {
					t.Errorf("re-encoded differs (%v)", err)
				}
				return
			}
			if !errors.Is(err, ErrBadSnapshot) {
				t.Fatalf("unmarshal: got %v, want ErrBadSnapshot", err)
			}
			if c := g.Counts(); c.Nodes != 0 || c.Edges != 0 {
				t.Errorf("a failed unmarshal changed the graph: %+v", c)
			}
		})
	}
}
