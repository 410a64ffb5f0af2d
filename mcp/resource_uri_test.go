package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

func TestParseResourceURI(t *testing.T) {
	good := []struct{ uri, kind, id string }{
		{"cos://board", ResourceBoard, ""},
		{"cos://health", ResourceHealth, ""},
		{"cos://task/TASK-007", ResourceTask, "TASK-007"},
		{"cos://node/code:function:a/b.go::run", ResourceNode, "code:function:a/b.go::run"},
		{"cos://node/doc:heading:README.md%23intro:2", ResourceNode, "doc:heading:README.md#intro:2"},
		{"cos://node/code:function:%D0%9F.go::x", ResourceNode, "code:function:П.go::x"},
		{"cos://evidence/sess-42", ResourceEvidence, "sess-42"},
	}
	for _, tc := range good {
		ref, err := ParseResourceURI(tc.uri)
		if err != nil || ref.Kind != tc.kind || ref.ID != tc.id || ref.URI != tc.uri {
			t.Errorf("ParseResourceURI(%q) = %+v, %v; want kind %s id %q", tc.uri, ref, err, tc.kind, tc.id)
		}
	}
	bad := []string{"", "board", "cos://", "cos://board/", "cos://task", "cos://task/", "cos://task/TASK-1",
		"cos://node/x", "cos://node/code:function:a.go::f#x", "cos://node/%zz", "cos://evidence/a b",
		"cos://evidence/.x", "cos://health?x", "cos://node/code:function:П.go::x", "cos://" + strings.Repeat("a", MaxResourceURILen)}
	for _, uri := range bad {
		_, err := ParseResourceURI(uri)
		var ue *ResourceURIError
		if !errors.Is(err, ErrResourceURI) || !errors.As(err, &ue) || ue.URI != uri {
			t.Errorf("ParseResourceURI(%q) = %v, want a *ResourceURIError", uri, err)
		}
	}
}

func FuzzParseResourceURI(f *testing.F) {
	for _, s := range []string{"cos://board", "cos://task/TASK-001", "cos://node/code:file:a.go", "cos://evidence/s", "cos://node/%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		ref, err := ParseResourceURI(uri)
		if err != nil {
			if !errors.Is(err, ErrResourceURI) {
				t.Fatalf("%q: %v is not ErrResourceURI", uri, err)
			}
			return
		}
		if ref.Tool() == "" || ref.URI != uri {
			t.Fatalf("%q parsed to %+v with no tool", uri, ref)
		}
		var args map[string]string
		if err := json.Unmarshal(ref.args(), &args); err != nil {
			t.Fatalf("%q: args %s: %v", uri, ref.args(), err)
		}
	})
}

func TestResourceChanges_Touches(t *testing.T) {
	ev := func(stream, typ string, data any) eventlog.Event {
		b, _ := json.Marshal(data)
		return eventlog.Event{Stream: stream, Type: typ, Data: b}
	}
	ref := func(uri string) ResourceRef {
		r, err := ParseResourceURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ch := changesOf(state.Changes{Events: []eventlog.Event{
		ev("task:TASK-002", "task.updated", map[string]any{"status": "done"}),
		ev("evidence:sess-1", "evidence.output_recorded", map[string]any{}),
		ev(graph.Stream, graph.TypeFileExtracted, map[string]any{"path": "a.go"}),
		ev(graph.Stream, graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: []graph.Edge{{Source: "code:function:c.go::x", Target: "code:function:b.go::y", Type: "calls"}}}),
	}})
	for uri, want := range map[string]bool{
		"cos://board":                      true,
		"cos://health":                     true,
		"cos://task/TASK-002":              true,
		"cos://task/TASK-001":              false,
		"cos://evidence/sess-1":            true,
		"cos://evidence/sess-2":            false,
		"cos://node/code:function:a.go::f": true,  // its file was extracted
		"cos://node/code:function:b.go::y": true,  // an edge names it
		"cos://node/code:function:d.go::z": false, // neither
		"cos://node/code:module:x/y":       false,
	} {
		if got := ch.Touches(ref(uri)); got != want {
			t.Errorf("Touches(%s) = %v, want %v", uri, got, want)
		}
	}
	if !changesOf(state.Changes{Lost: true}).Touches(ref("cos://node/code:function:d.go::z")) {
		t.Error("a Lost delivery does not touch every resource")
	}
	if changesOf(state.Changes{Events: []eventlog.Event{ev("metrics", "metric.recorded", map[string]any{})}}).Touches(ref("cos://board")) {
		t.Error("a metric touches the board")
	}
}
