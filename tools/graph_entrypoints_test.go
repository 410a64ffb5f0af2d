package tools

import (
	"context"
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
