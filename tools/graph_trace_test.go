package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// traceFiles: main calls describe, which calls Shape.Area (two
// implementations), and a recursive fact.
var traceFiles = map[string]string{
	"go.mod": "module example.com/fx\n\ngo 1.22\n",
	"main.go": `package main

type Shape interface{ Area() int }

type Square struct{ s int }

func (q Square) Area() int { return q.s * q.s }

type Line struct{ n int }

func (l Line) Area() int { return 0 }

func main() {
	describe(Square{2})
	_ = fact(3)
}

func describe(s Shape) int { return s.Area() }

func fact(n int) int {
	if n < 2 {
		return 1
	}
	return n * fact(n-1)
}
`,
}

// traceRows renders the steps of a trace answer as "index depth label via
// mark".
func traceRows(t *testing.T, e envOf) []string {
	t.Helper()
	var out []string
	for _, s := range graphList(t, e.Data, "steps") {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%v d%v %v %v %v", s["index"], s["depth"], s["label"], s["via"], s["mark"])))
	}
	return out
}

func TestGraphTrace_PagesStepsAndBranches(t *testing.T) {
	r := openGraphRepo(t, traceFiles, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	e := graphOK(t, r.s, "cos_graph_trace", `{"uid": "code:function:main.go::main", "limit": 3}`)
	if got, want := strings.Join(traceRows(t, e), "; "), "0 d0 main <nil> <nil>; 1 d1 describe call <nil>; 2 d2 Shape.Area call dispatch"; got != want {
		t.Errorf("page 1 = %s\nwant %s", got, want)
	}
	if got := graphJSON(t, e.Data["branches"]); got != `[{"implementations":[3,4],"step":2}]` {
		t.Errorf("page 1 branches = %s", got)
	}
	if e.Data["count"] != float64(7) || graphMeta(e)["completeness"] != "exact" {
		t.Errorf("count %v, completeness %v", e.Data["count"], graphMeta(e)["completeness"])
	}
	cursor, _ := e.Data["next_cursor"].(string)
	if cursor == "" {
		t.Fatal("page 1 has no next_cursor")
	}
	e = graphOK(t, r.s, "cos_graph_trace", `{"uid": "code:function:main.go::main", "limit": 10, "cursor": "`+cursor+`"}`)
	want := "3 d3 Line.Area interface <nil>; 4 d3 Square.Area interface <nil>; 5 d1 fact call <nil>; 6 d2 fact call recursion"
	if got := strings.Join(traceRows(t, e), "; "); got != want {
		t.Errorf("page 2 = %s\nwant %s", got, want)
	}
	if got := graphJSON(t, e.Data["branches"]); got != `[]` {
		t.Errorf("page 2 branches = %s, want []", got)
	}
	if e.Data["next_cursor"] != "" {
		t.Errorf("page 2 next_cursor = %v", e.Data["next_cursor"])
	}

	e = graphOK(t, r.s, "cos_graph_trace", `{"uid": "code:function:main.go::main", "max_steps": 4}`)
	if m := graphMeta(e); m["completeness"] != "lower_bound" || graphJSON(t, m["completeness_reasons"]) != `{"size_bound":4}` {
		t.Errorf("max_steps 4: meta %v", m)
	}
	if note, _ := e.Data["note"].(string); !strings.Contains(note, "max_steps=4") {
		t.Errorf("max_steps 4: note %q", note)
	}
	graphFail(t, r.s, "cos_graph_trace", `{"uid": "code:class:main.go::Square"}`, envelope.CodeArgument)
}
