package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// This file pins details of the graph read tools' answers that were once
// missing or misleading: edge metadata, how a name matched, callers in files
// the build leaves out, the direction error, and impact's via.

// fieldEdge is an accesses_field edge added to the interface program:
// Server.serve reads Server's addr and mu.
const fieldEdge = `{"source": "code:function:srv/server.go::Server.serve", "target": "code:class:srv/server.go::Server", "type": "accesses_field", "line": 13, "metadata": {"fields": ["addr", "mu"]}}`

const (
	serverClass  = "code:class:srv/server.go::Server"
	handlerClass = "code:class:srv/handler.go::Handler"
)

// edgeMeta returns the metadata of the first edge (or reference row) of
// list from source to target (any target when empty: reference rows name
// none), failing when there is none.
func edgeMeta(t *testing.T, list []map[string]any, source, target string) string {
	t.Helper()
	for _, e := range list {
		if e["source"] == source && (target == "" || e["target"] == target) {
			return graphJSON(t, e["metadata"])
		}
	}
	t.Fatalf("no edge %s → %s in %v", source, target, list)
	return ""
}

func TestGraphTools_ShowEdgeMetadata(t *testing.T) {
	r := openIface(t, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"edges": [`+fieldEdge+`]}`)
	const methodSet = `{"method_set":"pointer"}`
	const fields = `{"fields":["addr","mu"]}`

	t.Run("context", func(t *testing.T) {
		e := graphOK(t, r.s, "cos_graph_context", `{"uid_or_name": "`+serverClass+`"}`)
		byType, _ := e.Data["edges_by_type"].(map[string]any)
		if got := edgeMeta(t, graphList(t, byType, "implements"), serverClass, handlerClass); got != methodSet {
			t.Errorf("implements metadata %s, want %s", got, methodSet)
		}
		if got := edgeMeta(t, graphList(t, byType, "accesses_field"), "code:function:srv/server.go::Server.serve", serverClass); got != fields {
			t.Errorf("accesses_field metadata %s, want %s", got, fields)
		}
		// An edge without metadata shows none.
		for _, c := range graphList(t, byType, "contains") {
			if _, ok := c["metadata"]; ok {
				t.Errorf("contains edge shows metadata: %v", c)
			}
		}
	})
	t.Run("export", func(t *testing.T) {
		e := graphOK(t, r.s, "cos_graph_export", `{"root": "`+serverClass+`", "max_hops": 1}`)
		if got := edgeMeta(t, graphList(t, e.Data, "edges"), serverClass, handlerClass); got != methodSet {
			t.Errorf("implements metadata %s, want %s", got, methodSet)
		}
	})
	t.Run("references", func(t *testing.T) {
		e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+handlerClass+`"}`)
		if got := edgeMeta(t, graphList(t, e.Data, "references"), serverClass, ""); got != methodSet {
			t.Errorf("implements reference metadata %s, want %s", got, methodSet)
		}
		e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+serverClass+`", "kinds": ["accesses_field"]}`)
		if got := edgeMeta(t, graphList(t, e.Data, "references"), "code:function:srv/server.go::Server.serve", ""); got != fields {
			t.Errorf("accesses_field reference metadata %s, want %s", got, fields)
		}
	})
	t.Run("path", func(t *testing.T) {
		e := graphOK(t, r.s, "cos_graph_path", `{"source": "`+serverClass+`", "target": "`+handlerClass+`"}`)
		steps := graphList(t, e.Data, "steps")
		edge, _ := steps[len(steps)-1]["edge"].(map[string]any)
		if got := graphJSON(t, edge["metadata"]); got != methodSet {
			t.Errorf("path edge metadata %s, want %s", got, methodSet)
		}
	})
}

func TestGraphTools_ResolvedMatch(t *testing.T) {
	r := openIface(t, envelope.Options{})
	tests := []struct {
		name, raw, from, match string
	}{
		{"a uid", dispatch, "direct", "uid"},
		{"a path and name", "srv/mux.go::Dispatch", "path_prefix", "path"},
		{"the exact label", "Dispatch", "fuzzy", "exact"},
		{"a method's bare name", "serve", "fuzzy", "bare_name"},
		{"another case", "dispatch", "fuzzy", "exact_case_insensitive"},
		{"a typo", "Dispatchh", "fuzzy", "whole_label"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := []struct{ tool, args string }{
				{"cos_graph_context", `{"uid_or_name": %q}`},
				{"cos_graph_impact", `{"uid": %q}`},
				{"cos_graph_references", `{"uid": %q}`},
				{"cos_graph_rename_plan", `{"uid": %q, "new_name": "Route"}`},
				{"cos_graph_similar", `{"uid": %q}`},
				{"cos_graph_export", `{"root": %q}`},
			}
			for _, c := range calls {
				e := graphOK(t, r.s, c.tool, fmt.Sprintf(c.args, tc.raw))
				m := graphMeta(e)
				if m["resolved_from"] != tc.from || m["resolved_match"] != tc.match {
					t.Errorf("%s %q: resolved_from %v, resolved_match %v; want %s, %s", c.tool, tc.raw, m["resolved_from"], m["resolved_match"], tc.from, tc.match)
				}
			}
			e := graphOK(t, r.s, "cos_graph_path", fmt.Sprintf(`{"source": %q, "target": %q}`, tc.raw, "code:function:cmd/main.go::main"))
			m := graphMeta(e)
			if m["source_resolved_match"] != tc.match || m["target_resolved_match"] != "uid" || m["source_resolved_from"] != tc.from {
				t.Errorf("path from %q: meta %v", tc.raw, m)
			}
		})
	}
}

// excludedNodes are a file the build leaves out (srv/v2_test.go, as
// //go:build goexperiment.jsonv2 leaves it) whose test and exported method
// call Dispatch, and a declaration whose file has no node but which is
// marked itself.
const excludedNodes = `[
 {"uid": "code:file:srv/v2_test.go", "label": "v2_test.go", "path": "srv/v2_test.go", "metadata": {"extraction": "syntax", "fallback": "build_excluded", "build_excluded": true}},
 {"uid": "code:function:srv/v2_test.go::TestV2", "kind": "function", "label": "TestV2", "path": "srv/v2_test.go", "line": 9, "metadata": {"build_excluded": true}},
 {"uid": "code:function:srv/v2_test.go::Suite.Run", "kind": "method", "label": "Suite.Run", "path": "srv/v2_test.go", "line": 20, "metadata": {"build_excluded": true}},
 {"uid": "code:function:srv/mux_windows.go::init", "kind": "function", "label": "init", "path": "srv/mux_windows.go", "line": 3, "metadata": {"build_excluded": true}},
 {"uid": "code:function:tools/gen.go::main", "kind": "function", "label": "main", "path": "tools/gen.go", "line": 3, "metadata": {"reflect_calls": 2}}
]`

const excludedEdges = `[
 {"source": "code:function:srv/v2_test.go::TestV2", "target": "code:function:srv/mux.go::Dispatch", "type": "calls", "line": 10},
 {"source": "code:function:srv/v2_test.go::Suite.Run", "target": "code:function:srv/mux.go::Dispatch", "type": "calls", "line": 21},
 {"source": "code:function:srv/v2_test.go::TestV2", "target": "code:function:srv/v2_test.go::Suite.Run", "type": "calls", "line": 11},
 {"source": "code:function:srv/mux_windows.go::init", "target": "code:function:srv/mux.go::Dispatch", "type": "calls", "line": 4}
]`

func TestGraphTools_MarkBuildExcludedCallers(t *testing.T) {
	r := openIface(t, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": `+excludedNodes+`, "edges": `+excludedEdges+`}`)
	excluded := []string{
		"code:function:srv/mux_windows.go::init",
		"code:function:srv/v2_test.go::Suite.Run",
		"code:function:srv/v2_test.go::TestV2",
	}
	marked := func(rows []map[string]any, field string) []string {
		var out []string
		for _, row := range rows {
			if row["build_excluded"] == true {
				out = append(out, row[field].(string))
			} else if v, ok := row["build_excluded"]; ok {
				t.Errorf("%s: build_excluded %v, want true or absent", row[field], v)
			}
		}
		slices.Sort(out)
		return out
	}

	t.Run("references", func(t *testing.T) {
		// Left out by default, counted.
		e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+dispatch+`"}`)
		if rows := graphList(t, e.Data, "references"); marked(rows, "source") != nil || e.Data["count"] != 2.0 || e.Data["build_excluded_count"] != 3.0 {
			t.Errorf("by default: count %v, build_excluded_count %v, rows %v; want 2, 3, none marked", e.Data["count"], e.Data["build_excluded_count"], rows)
		}
		e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+dispatch+`", "include_build_excluded": true}`)
		rows := graphList(t, e.Data, "references")
		if got := marked(rows, "source"); !slices.Equal(got, excluded) {
			t.Errorf("marked %v, want %v", got, excluded)
		}
		if len(rows) != 5 || e.Data["count"] != 5.0 || e.Data["build_excluded_count"] != 3.0 {
			t.Errorf("count %v, build_excluded_count %v, %d rows; want 5, 3, 5", e.Data["count"], e.Data["build_excluded_count"], len(rows))
		}
		if c, reasons := completenessOf(t, e); c != "exact" {
			t.Errorf("completeness %s %v, want exact", c, reasons)
		}
		// Without excluded callers the count is there and zero.
		e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+serverServe+`"}`)
		if e.Data["build_excluded_count"] != 0.0 {
			t.Errorf("build_excluded_count %v, want 0", e.Data["build_excluded_count"])
		}
	})
	t.Run("impact", func(t *testing.T) {
		// Depth 2 expands Suite.Run, an exported method that reflection
		// could call were it compiled: it is not, so the answer stays
		// exact despite the graph's reflective calls.
		e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+dispatch+`", "depth": 2}`)
		if nodes := graphList(t, e.Data, "nodes"); marked(nodes, "uid") != nil || e.Data["build_excluded_count"] != 3.0 {
			t.Errorf("by default: build_excluded_count %v, nodes %v; want 3, none marked", e.Data["build_excluded_count"], nodes)
		}
		e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+dispatch+`", "depth": 2, "include_build_excluded": true}`)
		nodes := graphList(t, e.Data, "nodes")
		if got := marked(nodes, "uid"); !slices.Equal(got, excluded) {
			t.Errorf("marked %v, want %v", got, excluded)
		}
		if e.Data["build_excluded_count"] != 3.0 || e.Data["count"] != float64(len(nodes)) {
			t.Errorf("count %v, build_excluded_count %v, %d nodes", e.Data["count"], e.Data["build_excluded_count"], len(nodes))
		}
		if c, reasons := completenessOf(t, e); c != "exact" {
			t.Errorf("completeness %s %v, want exact", c, reasons)
		}
		// The count covers every page, not only the one shown.
		e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+dispatch+`", "depth": 2, "limit": 1, "include_build_excluded": true}`)
		if e.Data["build_excluded_count"] != 3.0 {
			t.Errorf("one page: build_excluded_count %v, want 3", e.Data["build_excluded_count"])
		}
	})
}

func TestGraphPath_DirectionErrorNamesTheChoices(t *testing.T) {
	r := openIface(t, envelope.Options{})
	e := graphFail(t, r.s, "cos_graph_path", `{"source": "`+dispatch+`", "target": "`+serverServe+`", "direction": "sideways"}`, envelope.CodeArgument)
	const want = `direction: got "sideways", expected one of forward, backward, undirected`
	if !strings.HasPrefix(e.Error.Message, want) {
		t.Errorf("message %q, want it to start with %q", e.Error.Message, want)
	}
	// A value of the wrong type still names the type.
	e = graphFail(t, r.s, "cos_graph_path", `{"source": "`+dispatch+`", "target": "`+serverServe+`", "direction": 3}`, envelope.CodeArgument)
	if !strings.Contains(e.Error.Message, "expected a string (one of forward, backward, undirected)") {
		t.Errorf("message %q", e.Error.Message)
	}
}

func TestGraphImpact_ViaNamesTheEdgeToTheInterfaceMethod(t *testing.T) {
	r := openIface(t, envelope.Options{})
	const register = "code:function:srv/mux.go::Register"
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "`+register+`", "kind": "function", "label": "Register", "path": "srv/mux.go", "line": 12}],
		"edges": [{"source": "`+register+`", "target": "`+handlerServe+`", "type": "references", "line": 13}]}`)
	e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+serverServe+`", "depth": 1}`)
	want := map[string]string{
		"code:function:srv/server_test.go::TestServe": "1 calls " + serverServe,
		dispatch: "1 calls " + handlerServe,
		register: "1 references " + handlerServe,
	}
	if got := impactReach(t, e); graphJSON(t, got) != graphJSON(t, want) {
		t.Errorf("impact of %s\n got %v\nwant %v", serverServe, got, want)
	}
	// implements stays the hop between an interface method and its
	// implementations.
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+handlerServe+`", "depth": 1}`)
	if got := impactReach(t, e)[serverServe]; got != "1 implements "+handlerServe {
		t.Errorf("implementation reached as %q", got)
	}
}
