package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// openServer opens a testServer (state, indexer and runner) on a fresh
// state folder (no bus, no background snapshots) and closes it at cleanup.
func openServer(t testing.TB, dir string) *testServer {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: dir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// envOf is a decoded envelope.
type envOf struct {
	OK    bool           `json:"ok"`
	Data  map[string]any `json:"data"`
	Error struct {
		Category  string         `json:"category"`
		Code      string         `json:"code"`
		Message   string         `json:"message"`
		Retryable bool           `json:"retryable"`
		Details   map[string]any `json:"details"`
	} `json:"error"`
}

func call(t testing.TB, s *testServer, tool, args string) envOf {
	t.Helper()
	env := s.Call(context.Background(), tool, json.RawMessage(args))
	var e envOf
	if err := json.Unmarshal(env.JSON(), &e); err != nil {
		t.Fatalf("%s: envelope is not JSON: %v\n%s", tool, err, env.JSON())
	}
	if e.OK != env.OK() {
		t.Fatalf("%s: OK() disagrees with the JSON", tool)
	}
	return e
}

// upsert appends nodes (and edges) to the graph stream directly.
func upsert(t testing.TB, s *testServer, nodes string) {
	t.Helper()
	if _, err := state.AppendOne(context.Background(), s.Log(), graphReq("graph.nodes_upserted", `{"nodes":`+nodes+`}`)); err != nil {
		t.Fatal(err)
	}
}

func TestCall_UnknownToolNamesTheNearest(t *testing.T) {
	s := openServer(t, "")
	e := call(t, s, "cos_graph_resolv", `{}`)
	if e.OK || e.Error.Code != "E_UNKNOWN_TOOL" || !strings.Contains(e.Error.Message, "cos_graph_resolve") {
		t.Fatalf("unknown tool: %+v", e.Error)
	}
	near, _ := e.Error.Details["nearest"].([]any)
	if len(near) == 0 || near[0] != "cos_graph_resolve" {
		t.Fatalf("nearest = %v", near)
	}
}

func TestCall_ArgumentErrors(t *testing.T) {
	s := openServer(t, "")
	cases := []struct {
		name, tool, args string
		field, inMsg     string
	}{
		{"unknown key", "cos_graph_resolve", `{"q":"x","bogus":1,"alpha":2}`, "", "Unknown argument: alpha, bogus. cos_graph_resolve accepts: at, exclude_paths, kinds, limit, paths, q"},
		{"missing", "cos_graph_resolve", `{}`, "q", "q: got nothing, expected a string (required)"},
		{"wrong type", "cos_graph_resolve", `{"q":5}`, "q", "q: got a number 5, expected a string"},
		{"out of range", "cos_graph_resolve", `{"q":"x","limit":101}`, "limit", "expected an integer in [1, 100]"},
		{"not integral", "cos_graph_resolve", `{"q":"x","limit":2.5}`, "limit", "got a number 2.5"},
		{"list as string", "cos_graph_context", `{"uid_or_name":"x","edge_types":"calls"}`, "edge_types", "expected a list of strings"},
		{"enum", "cos_graph_context", `{"uid_or_name":"x","edge_types":["calls","eats"]}`, "edge_types", `a list holding "eats"`},
		{"depth", "cos_graph_context", `{"uid_or_name":"x","depth":0}`, "depth", "in [1, 3]"},
		{"not an object", "cos_graph_resolve", `["q"]`, "arguments", "expected a JSON object"},
		{"bad utf8", "cos_graph_resolve", "{\"q\":\"\xff\"}", "arguments", "not valid UTF-8"},
	}
	for _, c := range cases {
		e := call(t, s, c.tool, c.args)
		if e.OK || e.Error.Code != "E_ARGUMENT" || e.Error.Category != "validation" || e.Error.Retryable {
			t.Errorf("%s: %+v", c.name, e.Error)
			continue
		}
		if !strings.Contains(e.Error.Message, c.inMsg) {
			t.Errorf("%s: message %q lacks %q", c.name, e.Error.Message, c.inMsg)
		}
		if c.field != "" && e.Error.Details["field"] != c.field {
			t.Errorf("%s: details.field = %v", c.name, e.Error.Details["field"])
		}
		if _, ok := e.Error.Details["example"]; !ok {
			t.Errorf("%s: no corrected example in details", c.name)
		}
	}
}

func TestCall_ListSentAsJSONStringIsAccepted(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, `[{"uid":"code:file:a.go","kind":"file","label":"a.go","path":"a.go"}]`)
	e := call(t, s, "cos_graph_context", `{"uid_or_name":"a.go","edge_types":"[\"calls\",\"contains\"]"}`)
	if !e.OK {
		t.Fatalf("list as a JSON string refused: %+v", e.Error)
	}
}

func TestCall_ReadReflectsWritesOfAnotherLogHandle(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	other := openServer(t, dir) // a second process's view of the same folder
	upsert(t, other, `[{"uid":"code:function:x.go::Fresh","kind":"function","label":"Fresh","path":"x.go"}]`)
	e := call(t, s, "cos_graph_context", `{"uid_or_name":"code:function:x.go::Fresh"}`)
	if !e.OK {
		t.Fatalf("read did not see a write committed before it began: %+v", e.Error)
	}
	meta := e.Data["meta"].(map[string]any)
	if meta["log_seq"].(float64) != 1 || meta["resolved_from"] != "direct" || meta["layer"] != "graph" {
		t.Fatalf("meta = %v", meta)
	}
}

func TestCall_PanicBecomesInternalWithForensicLine(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	s.tools["cos_test_panic"] = &Tool{Name: "cos_test_panic", ReadOnly: true, Handler: func(context.Context, *Call) (any, envelope.ToolMeta, error) {
		panic("boom at /secret/path")
	}}
	e := call(t, s, "cos_test_panic", `{}`)
	if e.OK || e.Error.Code != "E_INTERNAL" || strings.Contains(e.Error.Message, "secret") || strings.Contains(e.Error.Message, "goroutine") {
		t.Fatalf("panic envelope: %+v", e.Error)
	}
	s.Close()
	b, err := os.ReadFile(filepath.Join(dir, ".mcp.log"))
	if err != nil || !strings.Contains(string(b), "cos_test_panic") || !strings.Contains(string(b), "boom") {
		t.Fatalf("forensic log lacks the panic: %v\n%s", err, b)
	}
}

func TestCall_SearchFollowsGraphChanges(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, `[{"uid":"code:function:pkg/srv.go::ListenAndServe","kind":"function","label":"ListenAndServe","path":"pkg/srv.go"}]`)
	if e := call(t, s, "cos_graph_resolve", `{"q":"listen serve"}`); !e.OK {
		t.Fatalf("fuzzy lookup after upsert: %+v", e.Error)
	}
	if _, err := state.AppendOne(context.Background(), s.Log(), graphReq("graph.nodes_deleted", `{"uids":["code:function:pkg/srv.go::ListenAndServe"]}`)); err != nil {
		t.Fatal(err)
	}
	if e := call(t, s, "cos_graph_resolve", `{"q":"ListenAndServe"}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("lookup after delete: %+v", e)
	}
}

func TestCall_SearchIndexSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	upsert(t, s, `[{"uid":"code:function:a.go::Alpha","kind":"function","label":"Alpha","path":"a.go"}]`)
	call(t, s, "cos_graph_resolve", `{"q":"Alpha"}`)
	s.Close()
	// Written while no server runs: the restarted index must catch up.
	s2 := openServer(t, dir)
	upsert(t, openServer(t, dir), `[{"uid":"code:function:b.go::Bravo","kind":"function","label":"Bravo","path":"b.go"}]`)
	for _, q := range []string{"alpah", "bravo"} {
		if e := call(t, s2, "cos_graph_resolve", `{"q":"`+q+`"}`); !e.OK {
			t.Fatalf("resolve %q after restart: %+v", q, e.Error)
		}
	}
}

func TestOpen_AtIsReadOnlyPastView(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	upsert(t, s, `[{"uid":"code:file:one.go","kind":"file","label":"one.go","path":"one.go"}]`)
	upsert(t, s, `[{"uid":"code:file:two.go","kind":"file","label":"two.go","path":"two.go"}]`)
	at, err := openTestServer(context.Background(), testOptions{StateDir: dir, At: &projections.Until{Seq: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if e := call(t, at, "cos_graph_context", `{"uid_or_name":"one.go"}`); !e.OK || e.Data["meta"].(map[string]any)["log_seq"].(float64) != 1 {
		t.Fatalf("one.go at seq 1: %+v", e)
	}
	if e := call(t, at, "cos_graph_context", `{"uid_or_name":"two.go"}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("two.go must not exist at seq 1: %+v", e)
	}
	if e := call(t, s, "cos_graph_context", `{"uid_or_name":"two.go"}`); !e.OK {
		t.Fatalf("two.go now: %+v", e.Error)
	}
}

func TestModules_Gate(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	if err := state.SetModule(dir, "graph", false); err != nil {
		t.Fatal(err)
	}
	e := call(t, s, "cos_graph_resolve", `{"q":"x"}`)
	if e.OK || e.Error.Category != "module_disabled" || e.Error.Code != "E_MODULE_DISABLED" || e.Error.Retryable {
		t.Fatalf("disabled module: %+v", e.Error)
	}
	if err := state.SetModule(dir, "graph", true); err != nil {
		t.Fatal(err)
	}
	if e := call(t, s, "cos_graph_resolve", `{"q":"x"}`); e.Error.Category == "module_disabled" {
		t.Fatal("still disabled")
	}
	if err := state.SetModule(dir, "nope", true); err == nil {
		t.Fatal("unknown module accepted")
	}
}

func TestNearestNames(t *testing.T) {
	names := []string{"cos_graph_context", "cos_graph_impact", "cos_graph_resolve", "cos_task_board"}
	for q, want := range map[string]string{"cos_graph_contxt": "cos_graph_context", "graph_impact": "cos_graph_impact", "cos_task_bord": "cos_task_board"} {
		if got := nearestNames(q, names, 1); len(got) != 1 || got[0] != want {
			t.Errorf("nearest(%q) = %v, want %s", q, got, want)
		}
	}
}
