package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// TestGraphEntrypoints_MalformedPathGlob: a path that is a malformed glob
// is refused as cos_graph_audit refuses it, not answered with an empty
// "exact" list; a well-formed one still selects.
func TestGraphEntrypoints_MalformedPathGlob(t *testing.T) {
	r := openGraphRepo(t, traceFiles, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"cos_graph_entrypoints", "cos_graph_audit"} {
		args := `{"path": "["}`
		if tool == "cos_graph_audit" {
			args = `{"check": "dead", "path": "["}`
		}
		e := graphFail(t, r.s, tool, args, envelope.CodeArgument)
		if e.Error.Details["field"] != "path" {
			t.Errorf("%s %s: details %v, want field path", tool, args, e.Error.Details)
		}
	}
	e := graphOK(t, r.s, "cos_graph_entrypoints", `{"path": "*.go"}`)
	if rows := graphList(t, e.Data, "entrypoints"); len(rows) != 1 || rows[0]["uid"] != "entry:main:main.go::main" {
		t.Errorf("path *.go: %v, want main's entry point", rows)
	}
}

// TestGraphEntrypoints_CursorOfAnotherTool: a cursor of cos_graph_trace
// given to cos_graph_entrypoints is STALE_CURSOR saying it is another
// question, in terms that fit any paged graph tool.
func TestGraphEntrypoints_CursorOfAnotherTool(t *testing.T) {
	r := openGraphRepo(t, traceFiles, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	tr := graphOK(t, r.s, "cos_graph_trace", `{"uid": "code:function:main.go::main", "limit": 1}`)
	cur, _ := tr.Data["next_cursor"].(string)
	if cur == "" {
		t.Fatalf("trace with limit 1: no next_cursor (%v)", tr.Data)
	}
	e := graphFail(t, r.s, "cos_graph_entrypoints", `{"cursor": "`+cur+`"}`, envelope.CodeStaleCursor)
	if !strings.Contains(e.Error.Message, "another tool, or other arguments") || strings.Contains(e.Error.Message, "include_tests") {
		t.Errorf("message %q: want it to name another tool or other arguments, not another tool's arguments", e.Error.Message)
	}
}

// TestGraphPathFilter_SelectsNothingWarns: a path that selects no indexed
// file answers with a warning saying so, not a bare empty "exact" list; a
// path that selects files has none.
func TestGraphPathFilter_SelectsNothingWarns(t *testing.T) {
	r := openGraphRepo(t, traceFiles, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"cos_graph_entrypoints", `{"path": "no/such/folder"}`},
		{"cos_graph_audit", `{"check": "dead", "path": "../etc"}`},
	} {
		e := graphOK(t, r.s, tc.tool, tc.args)
		if w, _ := graphMeta(e)["warnings"].([]any); len(w) != 1 || !strings.Contains(w[0].(string), "selects no indexed file") {
			t.Errorf("%s %s: warnings %v", tc.tool, tc.args, w)
		}
	}
	if e := graphOK(t, r.s, "cos_graph_entrypoints", `{"path": "main.go"}`); graphMeta(e)["warnings"] != nil {
		t.Errorf("path main.go: warnings %v", graphMeta(e)["warnings"])
	}
}
