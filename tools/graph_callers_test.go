package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/pagecursor"
)

// ifaceNodes and ifaceEdges are a small Go program with an interface:
// Server implements Handler; Dispatch calls Handler.ServeHTTP (an interface
// call); main and a test reach Dispatch; another test calls
// Server.ServeHTTP directly.
const ifaceNodes = `[
 {"uid": "code:file:srv/handler.go", "label": "handler.go", "path": "srv/handler.go"},
 {"uid": "code:file:srv/server.go", "label": "server.go", "path": "srv/server.go"},
 {"uid": "code:class:srv/handler.go::Handler", "label": "Handler", "path": "srv/handler.go", "line": 3, "metadata": {"type_kind": "interface"}},
 {"uid": "code:function:srv/handler.go::Handler.ServeHTTP", "kind": "method", "label": "Handler.ServeHTTP", "path": "srv/handler.go", "line": 4},
 {"uid": "code:class:srv/server.go::Server", "label": "Server", "path": "srv/server.go", "line": 3, "metadata": {"type_kind": "struct"}},
 {"uid": "code:function:srv/server.go::Server.ServeHTTP", "kind": "method", "label": "Server.ServeHTTP", "path": "srv/server.go", "line": 7},
 {"uid": "code:function:srv/server.go::Server.serve", "kind": "method", "label": "Server.serve", "path": "srv/server.go", "line": 12},
 {"uid": "code:function:srv/mux.go::Dispatch", "kind": "function", "label": "Dispatch", "path": "srv/mux.go", "line": 5},
 {"uid": "code:function:srv/mux_test.go::TestDispatch", "kind": "function", "label": "TestDispatch", "path": "srv/mux_test.go", "line": 5},
 {"uid": "code:function:srv/server_test.go::TestServe", "kind": "function", "label": "TestServe", "path": "srv/server_test.go", "line": 5},
 {"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "line": 5}
]`

const ifaceEdges = `[
 {"source": "code:class:srv/handler.go::Handler", "target": "code:function:srv/handler.go::Handler.ServeHTTP", "type": "contains"},
 {"source": "code:class:srv/server.go::Server", "target": "code:function:srv/server.go::Server.ServeHTTP", "type": "contains"},
 {"source": "code:class:srv/server.go::Server", "target": "code:function:srv/server.go::Server.serve", "type": "contains"},
 {"source": "code:class:srv/server.go::Server", "target": "code:class:srv/handler.go::Handler", "type": "implements", "metadata": {"method_set": "pointer"}},
 {"source": "code:function:srv/server.go::Server.ServeHTTP", "target": "code:function:srv/server.go::Server.serve", "type": "calls", "line": 8},
 {"source": "code:function:srv/mux.go::Dispatch", "target": "code:function:srv/handler.go::Handler.ServeHTTP", "type": "calls", "line": 6},
 {"source": "code:function:srv/mux_test.go::TestDispatch", "target": "code:function:srv/mux.go::Dispatch", "type": "calls", "line": 6},
 {"source": "code:function:srv/server_test.go::TestServe", "target": "code:function:srv/server.go::Server.ServeHTTP", "type": "calls", "line": 6},
 {"source": "code:function:cmd/main.go::main", "target": "code:function:srv/mux.go::Dispatch", "type": "calls", "line": 6},
 {"source": "code:function:cmd/main.go::main", "target": "code:class:srv/server.go::Server", "type": "constructs", "line": 7}
]`

const (
	serverServe  = "code:function:srv/server.go::Server.ServeHTTP"
	handlerServe = "code:function:srv/handler.go::Handler.ServeHTTP"
	dispatch     = "code:function:srv/mux.go::Dispatch"
)

// openIface opens an empty repository whose graph is the interface
// program, plus extra nodes (a JSON list without brackets) when given.
func openIface(t testing.TB, budget envelope.Options) *graphRepo {
	t.Helper()
	r := openGraphRepo(t, nil, budget)
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": `+ifaceNodes+`, "edges": `+ifaceEdges+`}`)
	return r
}

// impactReach returns uid → "depth via through" of an impact answer.
func impactReach(t testing.TB, e envOf) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range graphList(t, e.Data, "nodes") {
		out[n["uid"].(string)] = fmt.Sprintf("%v %v %v", n["depth"], n["via"], n["through"])
	}
	return out
}

func TestGraphImpact_FollowsImplementsToInterfaceCallers(t *testing.T) {
	r := openIface(t, envelope.Options{})
	tests := []struct {
		name string
		args string
		want map[string]string
	}{
		{"a method reaches the callers of the interface method it implements",
			`{"uid": "` + serverServe + `", "depth": 2}`,
			map[string]string{
				"code:function:srv/server_test.go::TestServe": "1 calls " + serverServe,
				dispatch:                          "1 calls " + handlerServe,
				"code:function:cmd/main.go::main": "2 calls " + dispatch,
				"code:function:srv/mux_test.go::TestDispatch": "2 calls " + dispatch,
			}},
		{"an interface method reaches its callers and implementations",
			`{"uid": "` + handlerServe + `", "depth": 1}`,
			map[string]string{
				dispatch:    "1 calls " + handlerServe,
				serverServe: "1 implements " + handlerServe,
			}},
		{"an interface reaches its implementers and the callers of its methods",
			`{"uid": "code:class:srv/handler.go::Handler", "depth": 1}`,
			map[string]string{
				"code:class:srv/server.go::Server": "1 implements code:class:srv/handler.go::Handler",
				dispatch:                           "1 calls " + handlerServe,
			}},
		{"without implements in edge_types, interfaces are not followed",
			`{"uid": "` + serverServe + `", "depth": 2, "edge_types": ["calls"]}`,
			map[string]string{"code:function:srv/server_test.go::TestServe": "1 calls " + serverServe}},
		{"include_tests=false leaves test files out of the walk",
			`{"uid": "` + serverServe + `", "depth": 2, "include_tests": false}`,
			map[string]string{
				dispatch:                          "1 calls " + handlerServe,
				"code:function:cmd/main.go::main": "2 calls " + dispatch,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := graphOK(t, r.s, "cos_graph_impact", tc.args)
			if got := impactReach(t, e); graphJSON(t, got) != graphJSON(t, tc.want) {
				t.Errorf("impact %s\n got %v\nwant %v", tc.args, got, tc.want)
			}
			if e.Data["count"] != float64(len(tc.want)) {
				t.Errorf("count %v, want %d", e.Data["count"], len(tc.want))
			}
		})
	}
}

func TestGraphReferences_FollowsImplementsToInterfaceCallers(t *testing.T) {
	r := openIface(t, envelope.Options{})
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+serverServe+`"}`)
	refs := graphList(t, e.Data, "references")
	got := map[string]string{}
	for _, ref := range refs {
		got[ref["source"].(string)] = fmt.Sprintf("%v %v %v", ref["type"], ref["via"], ref["through"])
	}
	want := map[string]string{
		"code:function:srv/server_test.go::TestServe": "calls <nil> <nil>",
		dispatch: "calls implements " + handlerServe,
	}
	if graphJSON(t, got) != graphJSON(t, want) {
		t.Fatalf("references of %s\n got %v\nwant %v", serverServe, got, want)
	}
	if kinds := fmt.Sprint(e.Data["kinds"]); !strings.Contains(kinds, "references") {
		t.Errorf("a method's default kinds %s lack references", kinds)
	}
	// include_tests=false keeps the interface caller only.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+serverServe+`", "include_tests": false}`)
	if got := graphUIDs(graphList(t, e.Data, "references"), "source"); !slices.Equal(got, []string{dispatch}) {
		t.Errorf("references without tests: %v", got)
	}
	// An interface's default kinds list its implementers.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "code:class:srv/handler.go::Handler"}`)
	refs = graphList(t, e.Data, "references")
	if len(refs) != 1 || refs[0]["source"] != "code:class:srv/server.go::Server" || refs[0]["type"] != "implements" {
		t.Errorf("references of the interface: %v", refs)
	}
	// A struct's default kinds include constructs.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "code:class:srv/server.go::Server"}`)
	if got := graphUIDs(graphList(t, e.Data, "references"), "source"); !slices.Equal(got, []string{"code:function:cmd/main.go::main"}) {
		t.Errorf("references of the struct: %v", got)
	}
}

// completenessOf returns meta.completeness and meta.completeness_reasons.
func completenessOf(t testing.TB, e envOf) (string, map[string]any) {
	t.Helper()
	m := graphMeta(e)
	c, _ := m["completeness"].(string)
	reasons, _ := m["completeness_reasons"].(map[string]any)
	if c == "exact" && m["completeness_reasons"] != nil {
		t.Fatalf("exact with reasons %v", m["completeness_reasons"])
	}
	return c, reasons
}

func TestGraphCallers_Completeness(t *testing.T) {
	tests := []struct {
		name string
		// nodes and edges upserted on top of the interface program.
		nodes, edges string
		uid          string
		want         map[string]any // nil: exact
	}{
		{name: "nothing unresolved", uid: serverServe},
		{name: "dynamic calls, but the method is never used as a value",
			nodes: `{"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "metadata": {"dynamic_calls": 4}}`,
			uid:   serverServe},
		{name: "dynamic calls and the method used as a value",
			nodes: `{"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "metadata": {"dynamic_calls": 4}}`,
			edges: `{"source": "code:function:cmd/main.go::main", "target": "` + serverServe + `", "type": "references"}`,
			uid:   serverServe, want: map[string]any{"func_value_calls": 4.0}},
		{name: "reflective calls and an exported method",
			nodes: `{"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "metadata": {"reflect_calls": 2}}`,
			uid:   serverServe, want: map[string]any{"reflect_calls": 2.0}},
		{name: "reflective calls do not reach an unexported method",
			nodes: `{"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "metadata": {"reflect_calls": 2}}`,
			uid:   "code:function:srv/server.go::Server.serve"},
		{name: "reflective calls do not reach a function",
			nodes: `{"uid": "code:function:cmd/main.go::main", "kind": "function", "label": "main", "path": "cmd/main.go", "metadata": {"reflect_calls": 2}}`,
			uid:   dispatch},
		{name: "a Go file that did not type-check",
			nodes: `{"uid": "code:file:srv/broken.go", "label": "broken.go", "path": "srv/broken.go", "metadata": {"extraction": "syntax", "fallback": "type_error"}}`,
			uid:   dispatch, want: map[string]any{"syntax_fallback_files": 1.0}},
		{name: "a build-excluded Go file is not a lower bound",
			nodes: `{"uid": "code:file:srv/win_windows.go", "label": "win_windows.go", "path": "srv/win_windows.go", "metadata": {"extraction": "syntax", "fallback": "build_excluded"}}`,
			uid:   dispatch},
		{name: "a Python function's callers are matched by name",
			nodes: `{"uid": "code:function:tools/run.py::main", "kind": "function", "label": "main", "path": "tools/run.py"}`,
			uid:   "code:function:tools/run.py::main", want: map[string]any{"name_matched_nodes": 1.0}},
		{name: "a Rust method's callers are matched by name",
			nodes: `{"uid": "code:function:src/geo.rs::Point.norm", "kind": "method", "label": "Point.norm", "path": "src/geo.rs"}`,
			uid:   "code:function:src/geo.rs::Point.norm", want: map[string]any{"name_matched_nodes": 1.0}},
		{name: "a Kotlin method's callers are matched by name",
			nodes: `{"uid": "code:function:src/Point.kt::Point.norm", "kind": "method", "label": "Point.norm", "path": "src/Point.kt"}`,
			uid:   "code:function:src/Point.kt::Point.norm", want: map[string]any{"name_matched_nodes": 1.0}},
		{name: "a Scala method's callers are matched by name",
			nodes: `{"uid": "code:function:src/main/scala/geo/Point.scala::Point.norm", "kind": "method", "label": "Point.norm", "path": "src/main/scala/geo/Point.scala"}`,
			uid:   "code:function:src/main/scala/geo/Point.scala::Point.norm", want: map[string]any{"name_matched_nodes": 1.0}},
		{name: "a Swift method's callers are matched by name",
			nodes: `{"uid": "code:function:Sources/Geo/Point.swift::Point.norm", "kind": "method", "label": "Point.norm", "path": "Sources/Geo/Point.swift"}`,
			uid:   "code:function:Sources/Geo/Point.swift::Point.norm", want: map[string]any{"name_matched_nodes": 1.0}},
		{name: "Go fallback files do not touch a doc file",
			nodes: `{"uid": "code:file:srv/broken.go", "label": "broken.go", "path": "srv/broken.go", "metadata": {"extraction": "syntax", "fallback": "load_error"}},
			        {"uid": "doc:file:README.md", "kind": "doc_file", "label": "README.md", "path": "README.md"}`,
			uid: "doc:file:README.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := openIface(t, envelope.Options{})
			if tc.nodes != "" || tc.edges != "" {
				graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [`+tc.nodes+`], "edges": [`+tc.edges+`]}`)
			}
			wantC := "exact"
			if tc.want != nil {
				wantC = "lower_bound"
			}
			for _, call := range []struct{ tool, args string }{
				{"cos_graph_references", `{"uid": "` + tc.uid + `"}`},
				{"cos_graph_impact", `{"uid": "` + tc.uid + `", "depth": 1}`},
				{"cos_graph_context", `{"uid_or_name": "` + tc.uid + `"}`},
			} {
				e := graphOK(t, r.s, call.tool, call.args)
				c, reasons := completenessOf(t, e)
				if c != wantC || (tc.want != nil && graphJSON(t, reasons) != graphJSON(t, tc.want)) {
					t.Errorf("%s %s: completeness %q %v, want %q %v", call.tool, call.args, c, reasons, wantC, tc.want)
				}
			}
		})
	}
}

func TestGraphCallers_NoDependentsSaysSo(t *testing.T) {
	r := openIface(t, envelope.Options{})
	const main = "code:function:cmd/main.go::main"
	for _, call := range []struct{ tool, args, what string }{
		{"cos_graph_impact", `{"uid": "` + main + `"}`, "no dependents found"},
		{"cos_graph_references", `{"uid": "` + main + `"}`, "no references found"},
	} {
		e := graphOK(t, r.s, call.tool, call.args)
		note, _ := e.Data["note"].(string)
		if !strings.HasPrefix(note, call.what) || !strings.Contains(note, "completeness is exact") {
			t.Errorf("%s: note %q", call.tool, note)
		}
	}
	// The same silence is only a lower bound once main may be called
	// through a func value: the note must not read as "unused".
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:srv/mux.go::Dispatch", "kind": "function", "label": "Dispatch", "path": "srv/mux.go", "metadata": {"dynamic_calls": 1}}],
		"edges": [{"source": "code:function:srv/mux.go::Dispatch", "target": "`+main+`", "type": "references"}]}`)
	e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+main+`", "edge_types": ["calls"]}`)
	note, _ := e.Data["note"].(string)
	if !strings.Contains(note, "lower_bound") || !strings.Contains(note, "before treating the node as unused") {
		t.Errorf("lower-bound note %q", note)
	}
	if e.Data["count"] != 0.0 {
		t.Errorf("count %v", e.Data["count"])
	}
	// A node with dependents has no note.
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+dispatch+`"}`)
	if _, ok := e.Data["note"]; ok {
		t.Errorf("note on an answer with dependents: %v", e.Data["note"])
	}
}

// openHub opens a graph where code:function:hub.go::Hub has n callers,
// Caller00 … Caller<n-1>.
func openHub(t testing.TB, n int, budget envelope.Options) *graphRepo {
	t.Helper()
	r := openGraphRepo(t, nil, budget)
	nodes := []string{`{"uid": "code:function:hub.go::Hub", "kind": "function", "label": "Hub", "path": "hub.go"}`}
	var edges []string
	for i := range n {
		uid := fmt.Sprintf("code:function:callers.go::Caller%02d", i)
		nodes = append(nodes, fmt.Sprintf(`{"uid": %q, "kind": "function", "label": "Caller%02d", "path": "callers.go", "line": %d}`, uid, i, i+1))
		edges = append(edges, fmt.Sprintf(`{"source": %q, "target": "code:function:hub.go::Hub", "type": "calls", "line": %d}`, uid, i+1))
	}
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [`+strings.Join(nodes, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`)
	return r
}

func TestGraphCallers_PagesWithLimitAndCursor(t *testing.T) {
	r := openHub(t, 7, envelope.Options{})
	for _, tc := range []struct{ tool, list, field, args string }{
		{"cos_graph_references", "references", "source", `"uid": "code:function:hub.go::Hub", "limit": 3`},
		{"cos_graph_impact", "nodes", "uid", `"uid": "code:function:hub.go::Hub", "depth": 1, "limit": 3`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var all []string
			cursor := ""
			var pages []int
			for page := 0; ; page++ {
				args := "{" + tc.args
				if cursor != "" {
					args += `, "cursor": "` + cursor + `"`
				}
				e := graphOK(t, r.s, tc.tool, args+"}")
				items := graphUIDs(graphList(t, e.Data, tc.list), tc.field)
				all = append(all, items...)
				pages = append(pages, len(items))
				if e.Data["count"] != 7.0 || e.Data["listed"] != float64(len(items)) {
					t.Fatalf("page %d: count %v listed %v", page, e.Data["count"], e.Data["listed"])
				}
				if m := graphMeta(e); m["truncated"] != false {
					t.Fatalf("page %d trimmed by the envelope: %v", page, m)
				}
				cursor, _ = e.Data["next_cursor"].(string)
				if cursor == "" || page > 5 {
					break
				}
			}
			var want []string
			for i := range 7 {
				want = append(want, fmt.Sprintf("code:function:callers.go::Caller%02d", i))
			}
			if !slices.Equal(all, want) || !slices.Equal(pages, []int{3, 3, 1}) {
				t.Fatalf("pages %v gave %v, want %v", pages, all, want)
			}
		})
	}
}

func TestGraphCallers_CursorErrors(t *testing.T) {
	r := openHub(t, 5, envelope.Options{})
	first := func(args string) string {
		t.Helper()
		e := graphOK(t, r.s, "cos_graph_impact", args)
		c, _ := e.Data["next_cursor"].(string)
		if c == "" {
			t.Fatalf("no next_cursor: %v", e.Data)
		}
		return c
	}
	const args = `{"uid": "code:function:hub.go::Hub", "depth": 1, "limit": 2`
	cursor := first(args + "}")

	// A write outside the graph (a task) leaves the cursor valid.
	graphOK(t, r.s, "cos_task_create", `{"title": "unrelated"}`)
	graphOK(t, r.s, "cos_graph_impact", args+`, "cursor": "`+cursor+`"}`)

	// The cursor belongs to its question.
	e := graphFail(t, r.s, "cos_graph_impact", `{"uid": "code:function:hub.go::Hub", "depth": 2, "limit": 2, "cursor": "`+cursor+`"}`, envelope.CodeStaleCursor)
	if !strings.Contains(e.Error.Message, "another question") {
		t.Errorf("message %q", e.Error.Message)
	}
	graphFail(t, r.s, "cos_graph_references", `{"uid": "code:function:hub.go::Hub", "limit": 2, "cursor": "`+cursor+`"}`, envelope.CodeStaleCursor)

	// After a graph write (a new caller that sorts first, a caller gone)
	// the page is read at the cursor's seq: the walk's listing, with the
	// events committed since in meta.
	walk := graphOK(t, r.s, "cos_graph_impact", args+`, "cursor": "`+cursor+`"}`)
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:callers.go::Caller", "kind": "function", "label": "Caller", "path": "callers.go"}], `+
		`"edges": [{"source": "code:function:callers.go::Caller", "target": "code:function:hub.go::Hub", "type": "calls"}]}`)
	head := graphMeta(graphOK(t, r.s, "cos_graph_delete", `{"uids": ["code:function:callers.go::Caller02"]}`))["log_seq"].(float64)
	e = graphOK(t, r.s, "cos_graph_impact", args+`, "cursor": "`+cursor+`"}`)
	m := graphMeta(e)
	at, _ := m["at_seq"].(float64)
	if got := graphUIDs(graphList(t, e.Data, "nodes"), "uid"); !slices.Equal(got, []string{"code:function:callers.go::Caller02", "code:function:callers.go::Caller03"}) ||
		e.Data["walk_log_seq"] != walk.Data["walk_log_seq"] || m["at_seq"] != e.Data["walk_log_seq"] || m["events_since_walk"] != head-at {
		t.Errorf("page after the graph changed: %v, walk_log_seq %v (first page's %v), meta %v", got, e.Data["walk_log_seq"], walk.Data["walk_log_seq"], m)
	}
	if m := graphMeta(walk); m["events_since_walk"] != float64(1) || m["at_seq"] != nil {
		t.Errorf("page after an unrelated write: meta %v", m)
	}
	// With at, a cursor reads at its own seq only.
	e = graphFail(t, r.s, "cos_graph_impact", args+`, "at": 1, "cursor": "`+cursor+`"}`, envelope.CodeArgument)
	if e.Error.Details["field"] != "cursor" || !strings.Contains(e.Error.Message, "leave at out") {
		t.Errorf("at and cursor: %q %v", e.Error.Message, e.Error.Details)
	}
	graphOK(t, r.s, "cos_graph_impact", args+`, "at": `+graphJSON(t, e.Error.Details["cursor_seq"])+`, "cursor": "`+cursor+`"}`)
	// A cursor from a log position the server has not reached stays stale.
	cur, err := pagecursor.Decode(cursor)
	if err != nil {
		t.Fatal(err)
	}
	cur.Seq = 1 << 40
	ahead := cur.Encode()
	e = graphFail(t, r.s, "cos_graph_impact", args+`, "cursor": "`+ahead+`"}`, envelope.CodeStaleCursor)
	if e.Error.Category != "conflict" || !strings.Contains(e.Error.Message, "this view is at") || !strings.Contains(e.Error.Message, "without cursor") {
		t.Errorf("stale: %s %q", e.Error.Category, e.Error.Message)
	}

	// Malformed cursors.
	fresh := first(args + "}")
	for _, bad := range []string{"garbage!", fresh[:len(fresh)-3], strings.ToUpper(fresh[:10]) + fresh[10:]} {
		if bad == fresh {
			continue
		}
		e := graphFail(t, r.s, "cos_graph_references", `{"uid": "code:function:hub.go::Hub", "cursor": "`+bad+`"}`, envelope.CodeCursor)
		if e.Error.Category != "validation" || e.Error.Details["field"] != "cursor" || !strings.Contains(e.Error.Message, "without cursor") {
			t.Errorf("malformed %q: %s %q %v", bad, e.Error.Category, e.Error.Message, e.Error.Details)
		}
	}
	graphFail(t, r.s, "cos_graph_impact", args+`, "limit": 0}`, envelope.CodeArgument)
}

func TestGraphCallers_PageShrinksToTheBudget(t *testing.T) {
	r := openHub(t, 60, envelope.Options{BudgetChars: 4000})
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		args := `{"uid": "code:function:hub.go::Hub", "depth": 1, "limit": 100`
		if cursor != "" {
			args += `, "cursor": "` + cursor + `"`
		}
		e := graphOK(t, r.s, "cos_graph_impact", args+"}")
		pages++
		if m := graphMeta(e); m["truncated"] != false {
			t.Fatalf("page %d trimmed by the envelope instead of shortened: %v", pages, m)
		}
		for _, uid := range graphUIDs(graphList(t, e.Data, "nodes"), "uid") {
			seen[uid] = true
		}
		if cursor, _ = e.Data["next_cursor"].(string); cursor == "" || pages > 60 {
			break
		}
	}
	if len(seen) != 60 || pages < 2 {
		t.Fatalf("%d pages gave %d distinct callers, want 60 over several pages", pages, len(seen))
	}
}

func TestGraphPath_Direction(t *testing.T) {
	r := openIface(t, envelope.Options{})
	const main = "code:function:cmd/main.go::main"
	stepDirs := func(e envOf) (uids, dirs []string) {
		for i, st := range graphList(t, e.Data, "steps") {
			uids = append(uids, st["uid"].(string))
			if i > 0 {
				dirs = append(dirs, st["direction"].(string))
			}
		}
		return uids, dirs
	}
	// forward: main calls Dispatch, which calls Handler.ServeHTTP.
	e := graphOK(t, r.s, "cos_graph_path", `{"source": "`+main+`", "target": "`+handlerServe+`", "direction": "forward"}`)
	uids, dirs := stepDirs(e)
	if !slices.Equal(uids, []string{main, dispatch, handlerServe}) || !slices.Equal(dirs, []string{"forward", "forward"}) || e.Data["direction"] != "forward" {
		t.Fatalf("forward: %v %v", uids, dirs)
	}
	// backward from main: nothing calls main.
	e = graphFail(t, r.s, "cos_graph_path", `{"source": "`+main+`", "target": "`+handlerServe+`", "direction": "backward"}`, envelope.CodeNotFound)
	if !strings.Contains(e.Error.Message, "no backward path") || e.Error.Details["direction"] != "backward" {
		t.Fatalf("backward miss: %q %v", e.Error.Message, e.Error.Details)
	}
	// backward the other way round: Handler.ServeHTTP is reached from main.
	e = graphOK(t, r.s, "cos_graph_path", `{"source": "`+handlerServe+`", "target": "`+main+`", "direction": "backward"}`)
	if uids, dirs = stepDirs(e); !slices.Equal(uids, []string{handlerServe, dispatch, main}) || !slices.Equal(dirs, []string{"backward", "backward"}) {
		t.Fatalf("backward: %v %v", uids, dirs)
	}
	// forward from TestServe to Dispatch has no path (only an undirected
	// one through the interface); undirected, the default, finds it.
	const testServe = "code:function:srv/server_test.go::TestServe"
	graphFail(t, r.s, "cos_graph_path", `{"source": "`+testServe+`", "target": "`+dispatch+`", "direction": "forward"}`, envelope.CodeNotFound)
	e = graphOK(t, r.s, "cos_graph_path", `{"source": "`+testServe+`", "target": "`+dispatch+`"}`)
	if uids, _ = stepDirs(e); uids[0] != testServe || uids[len(uids)-1] != dispatch || e.Data["direction"] != "undirected" {
		t.Fatalf("undirected: %v", uids)
	}
	e = graphFail(t, r.s, "cos_graph_path", `{"source": "`+main+`", "target": "`+dispatch+`", "direction": "downstream"}`, envelope.CodeArgument)
	for _, want := range []string{"direction", "forward", "backward", "undirected"} {
		if !strings.Contains(e.Error.Message, want) {
			t.Errorf("bad direction: message %q lacks %q", e.Error.Message, want)
		}
	}
}
