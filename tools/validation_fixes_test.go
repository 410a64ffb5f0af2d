package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// nodeKindOf reads uid's kind back through cos_graph_context.
func nodeKindOf(t *testing.T, s *testServer, uid string) string {
	t.Helper()
	e := graphOK(t, s, "cos_graph_context", fmt.Sprintf(`{"uid_or_name": %q}`, uid))
	n, _ := e.Data["node"].(map[string]any)
	if n == nil {
		t.Fatalf("context of %s has no node: %v", uid, e.Data)
	}
	k, _ := n["kind"].(string)
	return k
}

func TestGraphUpsert_EdgeTypeMustBeOneTheReadToolsAccept(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:a.go"}, {"uid": "code:function:a.go::run"}]}`)
	for _, typ := range edgeTypes {
		t.Run(typ, func(t *testing.T) {
			graphOK(t, r.s, "cos_graph_upsert", fmt.Sprintf(`{"edges": [{"source": "code:file:a.go", "target": "code:function:a.go::run", "type": %q}]}`, typ))
			graphOK(t, r.s, "cos_graph_context", fmt.Sprintf(`{"uid_or_name": "code:file:a.go", "edge_types": [%q]}`, typ))
		})
	}
	for _, typ := range []string{"bogus", "overrides", "Calls"} {
		t.Run(typ, func(t *testing.T) {
			e := graphFail(t, r.s, "cos_graph_upsert", fmt.Sprintf(`{"edges": [{"source": "code:file:a.go", "target": "code:function:a.go::run", "type": %q}]}`, typ), envelope.CodeArgument)
			want := fmt.Sprintf(`edges[0].type: got %q, expected one of `, typ)
			if !strings.HasPrefix(e.Error.Message, want) || !strings.Contains(e.Error.Message, "example:") {
				t.Fatalf("message %q, want prefix %q and an example", e.Error.Message, want)
			}
			// The read tools refuse the same type: write and read agree.
			graphFail(t, r.s, "cos_graph_context", fmt.Sprintf(`{"uid_or_name": "code:file:a.go", "edge_types": [%q]}`, typ), envelope.CodeArgument)
		})
	}
}

func TestGraphUpsert_KindMustAgreeWithUIDPrefix(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	tests := []struct {
		name, uid, kind string
		wantMsg         string // "" means accepted
	}{
		{"function as function", "code:function:a.go::f", "function", ""},
		{"function as method", "code:function:a.go::T.m", "method", ""},
		{"function as class", "code:function:a.go::g", "class", `nodes[0].kind: got "class", expected "function" or "method" for a code:function: uid`},
		{"class as function", "code:class:a.go::C", "function", `nodes[0].kind: got "function", expected "class" for a code:class: uid`},
		{"external as function", "code:external:fmt.Println", "function", `nodes[0].kind: got "function", expected "external" for a code:external: uid`},
		{"cos hook as file", "cos:hook:pre", "file", `nodes[0].kind: got "file", expected "external" for a cos:hook: uid`},
		{"folder as file", "folder:src", "file", `nodes[0].kind: got "file", expected "folder" for a folder: uid`},
		{"doc file as file", "doc:file:README.md", "file", `nodes[0].kind: got "file", expected "doc_file" for a doc:file: uid`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := fmt.Sprintf(`{"nodes": [{"uid": %q, "kind": %q}]}`, tc.uid, tc.kind)
			if tc.wantMsg == "" {
				graphOK(t, r.s, "cos_graph_upsert", args)
				if got := nodeKindOf(t, r.s, tc.uid); got != tc.kind {
					t.Fatalf("kind read back %q, want %q", got, tc.kind)
				}
				return
			}
			e := graphFail(t, r.s, "cos_graph_upsert", args, envelope.CodeArgument)
			if !strings.HasPrefix(e.Error.Message, tc.wantMsg) {
				t.Fatalf("message %q, want prefix %q", e.Error.Message, tc.wantMsg)
			}
		})
	}
	// An empty kind is filled from the uid.
	for uid, want := range map[string]string{"code:class:b.go::K": "class", "cos:identifier:x": "external", "code:function:b.go::h": "function"} {
		graphOK(t, r.s, "cos_graph_upsert", fmt.Sprintf(`{"nodes": [{"uid": %q}]}`, uid))
		if got := nodeKindOf(t, r.s, uid); got != want {
			t.Fatalf("%s: kind read back %q, want %q", uid, got, want)
		}
	}
}

func TestWriteTools_RequestIDIsAlwaysERequestID(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:keep.go"}]}`)
	long := strings.Repeat("r", 200)
	tools := []struct{ tool, args string }{
		{"cos_graph_upsert", `{"nodes": [{"uid": "code:file:new.go"}]`},
		{"cos_graph_delete", `{"uids": ["code:file:keep.go"]`},
		{"cos_task_create", `{"title": "x"`},
		{"cos_metric_record", `{"name": "m", "value": 1`},
		{"cos_supervise_record_output", `{"session_id": "s", "kind": "discovery", "output": {"summary": "x"}`},
	}
	for _, tc := range tools {
		for name, rid := range map[string]string{"empty": "", "blank": "  ", "200 characters": long} {
			t.Run(tc.tool+"/"+name, func(t *testing.T) {
				e := graphFail(t, r.s, tc.tool, tc.args+fmt.Sprintf(`, "request_id": %q}`, rid), envelope.CodeRequestID)
				if e.Error.Details["field"] != "request_id" || !strings.Contains(e.Error.Message, "request_id: got ") {
					t.Fatalf("error %+v does not name request_id", e.Error)
				}
			})
		}
	}
	// Nothing was written by the refused graph calls.
	graphFail(t, r.s, "cos_graph_context", `{"uid_or_name": "code:file:new.go"}`, envelope.CodeNotFound)
	graphOK(t, r.s, "cos_graph_context", `{"uid_or_name": "code:file:keep.go"}`)
	// A well-formed id of exactly 128 characters is accepted.
	graphOK(t, r.s, "cos_graph_upsert", fmt.Sprintf(`{"nodes": [{"uid": "code:file:new.go"}], "request_id": %q}`, strings.Repeat("r", 128)))
}

func TestGraphUpsert_DecodeErrorsNameFieldsNotGoTypes(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:a.go"}]}`)
	tests := []struct {
		name, tool, args string
		prefix, expected string
	}{
		{"line as string", "cos_graph_upsert", `{"nodes": [{"uid": "code:file:b.go", "line": "3"}]}`, `nodes[0].line: got a string "3"`, "expected an integer"},
		{"fractional line", "cos_graph_upsert", `{"nodes": [{"uid": "code:file:b.go", "line": 1.5}]}`, `nodes[0].line: got a number 1.5`, "expected an integer"},
		{"metadata as string", "cos_graph_upsert", `{"nodes": [{"uid": "code:file:b.go", "metadata": "x"}]}`, `nodes[0].metadata: got a string "x"`, "expected an object"},
		{"uid as number", "cos_graph_upsert", `{"nodes": [{"uid": 7}]}`, `nodes[0].uid: got a number 7`, "expected a string"},
		{"edge line as boolean", "cos_graph_upsert", `{"edges": [{"source": "a.go", "target": "a.go", "type": "calls", "line": true}]}`, `edges[0].line: got a boolean true`, "expected an integer"},
		{"unknown node key", "cos_graph_upsert", `{"nodes": [{"uid": "code:file:b.go", "colour": 1}]}`, `nodes[0]: got the unknown key "colour"`, "expected only the keys uid, kind, label"},
		{"delete edge type as number", "cos_graph_delete", `{"edges": [{"source": "a.go", "target": "a.go", "type": 3}]}`, `edges[0].type: got a number 3`, "expected a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := graphFail(t, r.s, tc.tool, tc.args, envelope.CodeArgument)
			m := e.Error.Message
			if !strings.HasPrefix(m, tc.prefix) || !strings.Contains(m, tc.expected) || !strings.Contains(m, "example:") {
				t.Fatalf("message %q, want prefix %q, %q and an example", m, tc.prefix, tc.expected)
			}
			for _, leak := range []string{"json:", "Go struct", "struct field", "unmarshal", "of type", "map[", "float64", "graph.Node"} {
				if strings.Contains(strings.SplitN(m, "; example:", 2)[0], leak) {
					t.Fatalf("message %q leaks %q", m, leak)
				}
			}
		})
	}
}

func TestGraphRead_WellFormedMissingUIDIsNotFound(t *testing.T) {
	r := openFixture(t)
	tests := []struct{ tool, args string }{
		{"cos_graph_impact", `{"uid": "code:function:nope.go::X"}`},
		{"cos_graph_impact", `{"uid": "code:function:cmd/a.go::runn"}`},
		{"cos_graph_context", `{"uid_or_name": "code:function:lib/b.go::Helpr"}`},
		{"cos_graph_references", `{"uid": "code:function:nope.go::run"}`},
		{"cos_graph_similar", `{"uid": "code:function:nope.go::run"}`},
		{"cos_graph_rename_plan", `{"uid": "code:function:nope.go::run", "new_name": "go"}`},
		{"cos_graph_path", `{"source": "code:function:nope.go::run", "target": "main.go"}`},
		{"cos_graph_resolve", `{"q": "code:file:cmd/nope.go"}`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			e := call(t, r.s, tc.tool, tc.args)
			if e.OK || e.Error.Code != string(envelope.CodeNotFound) {
				t.Fatalf("got ok=%v %s %q, want E_NOT_FOUND", e.OK, e.Error.Code, e.Error.Message)
			}
			if _, ok := e.Error.Details["suggestions"].([]any); !ok {
				t.Fatalf("details %v carry no suggestions list", e.Error.Details)
			}
			if strings.Contains(e.Error.Message, "writes never resolve") {
				t.Fatalf("read tool message %q speaks of writes", e.Error.Message)
			}
		})
	}
	// A present uid still resolves directly, and a name still resolves fuzzily.
	graphOK(t, r.s, "cos_graph_impact", `{"uid": "code:function:cmd/a.go::run"}`)
	graphOK(t, r.s, "cos_graph_impact", `{"uid": "Helper"}`)
}

// A list of choices naming one twice is refused (200,000 repeats of "calls"
// were echoed back and pushed the references out of the budget), and an
// unknown argument with a huge name is not echoed in full.
func TestArgs_RepeatedChoicesAndHugeUnknownKeys(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:a.go"}, {"uid": "code:function:a.go::run"}]}`)
	e := graphFail(t, r.s, "cos_graph_references", `{"uid": "code:function:a.go::run", "kinds": ["calls", "calls"]}`, envelope.CodeArgument)
	if !strings.Contains(e.Error.Message, `"calls" more than once`) {
		t.Errorf("message %q does not name the repeated choice", e.Error.Message)
	}
	graphOK(t, r.s, "cos_graph_references", `{"uid": "code:function:a.go::run", "kinds": ["calls", "references"]}`)
	key := strings.Repeat("k", 1<<20)
	e = graphFail(t, r.s, "cos_graph_references", fmt.Sprintf(`{"uid": "code:function:a.go::run", %q: 1}`, key), envelope.CodeArgument)
	if n := len(e.Error.Message); n > 2000 {
		t.Errorf("the error repeats the 1 MiB key: message of %d bytes", n)
	}
	if !strings.Contains(e.Error.Message, "(1048576 bytes)") {
		t.Errorf("message %q does not say how long the key was", e.Error.Message[:min(len(e.Error.Message), 300)])
	}
}
