package tools

import (
	"slices"
	"testing"
)

// resolveNodes hold an unresolved call's stub beside the function it names,
// a method with the same bare name, a build-excluded twin and a longer name.
const resolveNodes = `[
	{"uid":"code:external:NewRequest","kind":"external","label":"NewRequest","metadata":{"stub":true}},
	{"uid":"code:file:request.go","kind":"file","label":"request.go","path":"request.go"},
	{"uid":"code:function:request.go::NewRequest","kind":"function","label":"NewRequest","path":"request.go"},
	{"uid":"code:function:client.go::Client.NewRequest","kind":"method","label":"Client.NewRequest","path":"client.go"},
	{"uid":"code:function:req_windows.go::NewRequest","kind":"function","label":"NewRequest","path":"req_windows.go","metadata":{"build_excluded":true}},
	{"uid":"code:function:request.go::NewRequestWithContext","kind":"function","label":"NewRequestWithContext","path":"request.go"}
]`

// resolveRow is one cos_graph_resolve result: uid, match and score.
type resolveRow struct {
	uid, match string
	score      float64
}

func resolveRows(t *testing.T, e envOf) []resolveRow {
	t.Helper()
	list, _ := e.Data["results"].([]any)
	var rows []resolveRow
	for _, it := range list {
		m, _ := it.(map[string]any)
		for _, key := range []string{"uid", "kind", "label", "match", "score"} {
			if _, ok := m[key]; !ok {
				t.Errorf("result %v lacks %q", m, key)
			}
		}
		uid, _ := m["uid"].(string)
		match, _ := m["match"].(string)
		score, _ := m["score"].(float64)
		rows = append(rows, resolveRow{uid, match, score})
	}
	return rows
}

func TestResolveTool_RanksByScoreWithMatch(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, resolveNodes)

	e := call(t, s, "cos_graph_resolve", `{"q":"NewRequest"}`)
	if !e.OK {
		t.Fatalf("resolve NewRequest: %+v", e.Error)
	}
	if rf := e.Data["meta"].(map[string]any)["resolved_from"]; rf != "fuzzy" {
		t.Errorf("resolved_from %v, want fuzzy", rf)
	}
	rows := resolveRows(t, e)
	want := []struct{ uid, match string }{
		{"code:function:request.go::NewRequest", "exact"},
		{"code:function:req_windows.go::NewRequest", "exact"},
		{"code:function:client.go::Client.NewRequest", "bare_name"},
		{"code:external:NewRequest", "path"},
		{"code:function:request.go::NewRequestWithContext", "whole_label"},
	}
	if len(rows) != len(want) {
		t.Fatalf("results %+v, want %+v", rows, want)
	}
	for i, w := range want {
		if rows[i].uid != w.uid || rows[i].match != w.match {
			t.Errorf("result %d = %s (%s), want %s (%s)", i, rows[i].uid, rows[i].match, w.uid, w.match)
		}
		if i > 0 && (rows[i].score > rows[i-1].score || (rows[i].score == rows[i-1].score && rows[i].uid < rows[i-1].uid)) {
			t.Errorf("not ordered by score then uid at %d: %+v", i, rows)
		}
		if rows[i].score <= 0 {
			t.Errorf("result %d score %v", i, rows[i].score)
		}
	}

	// The same name opens the function, not its callers' stub.
	e = call(t, s, "cos_graph_context", `{"uid_or_name":"NewRequest"}`)
	if !e.OK {
		t.Fatalf("context NewRequest: %+v", e.Error)
	}
	if uid := e.Data["node"].(map[string]any)["uid"]; uid != "code:function:request.go::NewRequest" {
		t.Errorf("context NewRequest opened %v", uid)
	}

	for _, tc := range []struct {
		args, uid, match, from string
	}{
		{`{"q":"code:external:NewRequest"}`, "code:external:NewRequest", "uid", "direct"},
		{`{"q":"request.go"}`, "code:file:request.go", "path", "path_prefix"},
		{`{"q":"request.go::NewRequest"}`, "code:function:request.go::NewRequest", "path", "path_prefix"},
	} {
		e := call(t, s, "cos_graph_resolve", tc.args)
		if !e.OK {
			t.Fatalf("resolve %s: %+v", tc.args, e.Error)
		}
		rows := resolveRows(t, e)
		if len(rows) != 1 || rows[0].uid != tc.uid || rows[0].match != tc.match || e.Data["meta"].(map[string]any)["resolved_from"] != tc.from {
			t.Errorf("resolve %s = %+v (%v), want only %s (%s, %s)", tc.args, rows, e.Data["meta"], tc.uid, tc.match, tc.from)
		}
	}

	// kinds keeps the order among what it lets through.
	e = call(t, s, "cos_graph_resolve", `{"q":"NewRequest","kinds":["external","method"],"limit":5}`)
	rows = resolveRows(t, e)
	var got []string
	for _, r := range rows {
		got = append(got, r.uid)
	}
	if !e.OK || !slices.Equal(got, []string{"code:function:client.go::Client.NewRequest", "code:external:NewRequest"}) {
		t.Errorf("resolve with kinds = %v (%+v)", got, e.Error)
	}

	// Nothing at all: E_NOT_FOUND.
	if e := call(t, s, "cos_graph_resolve", `{"q":"qqqzzzxxyy"}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Errorf("resolve of nothing: %+v", e)
	}
}

func TestResolveTool_WritesStayStrict(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, resolveNodes)
	edge := func(source string) string {
		return `{"edges":[{"source":"` + source + `","target":"code:file:request.go","type":"links_to"}]}`
	}
	// By name, the stub is not the answer and the function is not either:
	// a write names its node by uid or path.
	if e := call(t, s, "cos_graph_upsert", edge("NewRequest")); e.OK || e.Error.Code != "E_AMBIGUOUS" {
		t.Errorf("upsert with source NewRequest: %+v, want E_AMBIGUOUS", e.Error)
	}
	if e := call(t, s, "cos_graph_delete", `{"uids":["NewRequest"]}`); e.OK || e.Error.Code != "E_AMBIGUOUS" {
		t.Errorf("delete NewRequest: %+v, want E_AMBIGUOUS", e.Error)
	}
	// No fuzzy answer for a write: a typo is E_NOT_FOUND.
	if e := call(t, s, "cos_graph_upsert", edge("NewRequst")); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Errorf("upsert with source NewRequst: %+v, want E_NOT_FOUND", e.Error)
	}
	// A path or a uid is exact.
	for _, src := range []string{"request.go::NewRequest", "code:external:NewRequest"} {
		if e := call(t, s, "cos_graph_upsert", edge(src)); !e.OK {
			t.Errorf("upsert with source %s: %+v", src, e.Error)
		}
	}
}
