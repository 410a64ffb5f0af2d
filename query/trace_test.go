package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/graphtest"
	"github.com/cos-dev/cos/projections"
)

// traceFixture is a small Go program: main picks a shape and calls its
// Area through the interface (two implementations that share a helper),
// a recursive function, and fmt.
var traceFixture = map[string]string{
	"go.mod": "module example.com/fx\n\ngo 1.22\n",
	"main.go": `package main

import (
	"fmt"

	"example.com/fx/shape"
)

func main() {
	s := pick()
	describe(s)
	n := fact(5)
	fmt.Println(n)
}

func pick() shape.Shape { return shape.Square{Side: 2} }

func describe(s shape.Shape) {
	_ = s.Area()
	log()
}

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func log() { fmt.Println("x") }
`,
	"shape/shape.go": `package shape

type Shape interface{ Area() float64 }

type Square struct{ Side float64 }

func (s Square) Area() float64 { return scale(s.Side * s.Side) }

type Circle struct{ R float64 }

func (c Circle) Area() float64 { return scale(3 * c.R * c.R) }

func scale(x float64) float64 { return x }
`,
}

// stepLines renders steps as "index depth label via call_line mark ref
// parent", one per step.
func stepLines(steps []TraceStep) []string {
	var out []string
	for _, s := range steps {
		line := fmt.Sprintf("%d d%d %s", s.Index, s.Depth, s.Label)
		if s.Parent != nil {
			line += fmt.Sprintf(" <-%d %s@%d", *s.Parent, s.Via, s.CallLine)
		}
		if s.Mark != "" {
			line += " " + s.Mark
		}
		if s.Ref != nil {
			line += fmt.Sprintf(" ref=%d", *s.Ref)
		}
		out = append(out, line)
	}
	return out
}

func traceGraph(t *testing.T) *projections.Graph {
	t.Helper()
	return graphtest.Extract(t, graphtest.WriteTree(t, traceFixture))
}

func mustNode(t *testing.T, g *projections.Graph, uid string) graph.Node {
	t.Helper()
	n, ok := g.Node(uid)
	if !ok {
		t.Fatalf("no node %s", uid)
	}
	return n
}

func TestTraceFrom_InterfaceRecursionExternal(t *testing.T) {
	g := traceGraph(t)
	tr, err := TraceFrom(context.Background(), g, mustNode(t, g, "code:function:main.go::main"), TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 d0 main",
		"1 d1 pick <-0 call@10",
		"2 d1 describe <-0 call@11",
		"3 d2 Shape.Area <-2 call@19 dispatch",
		"4 d3 Circle.Area <-3 interface@0",
		"5 d4 scale <-4 call@11",
		"6 d3 Square.Area <-3 interface@0",
		"7 d4 scale <-6 call@7 seen ref=5",
		"8 d2 log <-2 call@20",
		"9 d3 fmt.Println <-8 call@30 external",
		"10 d1 fact <-0 call@12",
		"11 d2 fact <-10 call@27 recursion ref=10",
		"12 d1 fmt.Println <-0 call@13 external",
	}
	if got := stepLines(tr.Steps); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := fmt.Sprint(tr.Branches), "[{3 [4 6]}]"; got != want {
		t.Errorf("branches = %s, want %s", got, want)
	}
	if len(tr.Processes) != 1 || tr.Processes[0].Steps != 13 || tr.Processes[0].MaxDepth != 4 || tr.Processes[0].Entry != "" {
		t.Errorf("processes = %+v", tr.Processes)
	}
	if c, reasons := tr.Completeness(); c != CompleteExact || tr.Cut {
		t.Errorf("completeness = %s %v, cut %v; want exact", c, reasons, tr.Cut)
	}
	if s := tr.Steps[4]; s.File != "shape/shape.go" || s.Line != 11 || s.UID != "code:function:shape/shape.go::Circle.Area" {
		t.Errorf("step 4 = %+v", s)
	}
}

func TestTraceFrom_Bounds(t *testing.T) {
	g := traceGraph(t)
	start := mustNode(t, g, "code:function:main.go::main")
	tr, err := TraceFrom(context.Background(), g, start, TraceOptions{MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 d0 main",
		"1 d1 pick <-0 call@10",
		"2 d1 describe <-0 call@11",
		"3 d2 Shape.Area <-2 call@19 depth_bound",
		"4 d2 log <-2 call@20 depth_bound",
		"5 d1 fact <-0 call@12",
		"6 d2 fact <-5 call@27 recursion ref=5",
		"7 d1 fmt.Println <-0 call@13 external",
	}
	if got := stepLines(tr.Steps); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("depth 2 steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c, reasons := tr.Completeness(); c != CompleteLowerBound || reasons[traceDepthBound] != 2 || len(tr.Branches) != 0 {
		t.Errorf("depth 2: completeness %s %v, branches %v", c, reasons, tr.Branches)
	}

	tr, err = TraceFrom(context.Background(), g, start, TraceOptions{MaxSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 5 || !tr.Cut {
		t.Fatalf("max 5 steps: %d steps, cut %v", len(tr.Steps), tr.Cut)
	}
	if c, reasons := tr.Completeness(); c != CompleteLowerBound || reasons[traceSizeBound] != 5 {
		t.Errorf("max 5 steps: completeness %s %v", c, reasons)
	}
	// The branch of step 3 lists the implementation reached before the cut.
	if got, want := fmt.Sprint(tr.Branches), "[{3 [4]}]"; got != want {
		t.Errorf("max 5 steps: branches = %s, want %s", got, want)
	}
}

// applyEvent applies one graph event of payload to g at seq.
func applyEvent(t *testing.T, g *projections.Graph, seq uint64, typ string, payload any) {
	t.Helper()
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Apply(eventlog.Event{Seq: seq, Stream: graph.Stream, Revision: seq, Type: typ, Data: data}); err != nil {
		t.Fatal(err)
	}
}

func TestTraceFrom_EntryPointProcesses(t *testing.T) {
	g := traceGraph(t)
	entry := graph.EntryUID(graph.EntryCLI, "main.go", "fx run")
	applyEvent(t, g, 1000, graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: []graph.Node{
		{UID: entry, Kind: graph.KindEntrypoint, Label: "fx run", Path: "main.go", Line: 9}}})
	applyEvent(t, g, 1001, graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: []graph.Edge{
		{Source: entry, Target: "code:function:main.go::fact", Type: graph.EdgeHandledBy},
		{Source: entry, Target: "code:function:main.go::log", Type: graph.EdgeHandledBy, Metadata: map[string]any{"anonymous": true}}}})
	tr, err := TraceFrom(context.Background(), g, mustNode(t, g, entry), TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 d0 fact",
		"1 d1 fact <-0 call@27 recursion ref=0",
		"2 d0 log",
		"3 d1 fmt.Println <-2 call@30 external",
	}
	if got := stepLines(tr.Steps); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := fmt.Sprintf("%+v", tr.Processes); got != fmt.Sprintf("[{Index:0 Entry:%[1]s Start:code:function:main.go::fact FirstStep:0 Steps:2 MaxDepth:1 Anonymous:false} "+
		"{Index:1 Entry:%[1]s Start:code:function:main.go::log FirstStep:2 Steps:2 MaxDepth:1 Anonymous:true}]", entry) {
		t.Errorf("processes = %s", got)
	}
	if _, err := TraceFrom(context.Background(), g, mustNode(t, g, "code:class:shape/shape.go::Square"), TraceOptions{}); err != ErrTraceStart {
		t.Errorf("trace from a class: err = %v, want ErrTraceStart", err)
	}
}
