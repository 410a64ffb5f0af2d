package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

func TestGraphImpact_AmbiguousNameListsBoth(t *testing.T) {
	r := openFixture(t)
	e := graphFail(t, r.s, "cos_graph_impact", `{"uid": "run", "depth": 2}`, envelope.CodeAmbiguous)
	cands, _ := e.Error.Details["candidates"].([]any)
	var uids []string
	for _, c := range cands {
		uids = append(uids, c.(map[string]any)["uid"].(string))
	}
	if !graphHasAll(uids, "code:function:cmd/a.go::run", "code:function:lib/b.go::run") {
		t.Fatalf("candidates %v, want both run functions", uids)
	}
}

func TestGraphImpact_OneUIDReturnsOnlyItsCallers(t *testing.T) {
	r := openFixture(t)
	tests := []struct {
		uid   string
		depth int
		want  map[string]int // dependent uid → depth
	}{
		{"code:function:lib/b.go::run", 1, map[string]int{"code:function:lib/b.go::Helper": 1}},
		{"code:function:lib/b.go::run", 2, map[string]int{"code:function:lib/b.go::Helper": 1, "code:function:cmd/a.go::run": 2}},
		{"code:function:cmd/a.go::run", 1, map[string]int{"code:function:main.go::main": 1, "code:function:cmd/a_test.go::TestRun": 1}},
		{"code:function:cmd/a.go::run", 2, map[string]int{"code:function:main.go::main": 1, "code:function:cmd/a_test.go::TestRun": 1, "code:function:cmd/a.go::start": 2}},
	}
	for _, tc := range tests {
		e := graphOK(t, r.s, "cos_graph_impact", graphJSON(t, map[string]any{"uid": tc.uid, "depth": tc.depth}))
		got := map[string]int{}
		for _, n := range graphList(t, e.Data, "nodes") {
			got[n["uid"].(string)] = int(n["depth"].(float64))
		}
		if graphJSON(t, got) != graphJSON(t, tc.want) {
			t.Errorf("impact %s depth %d = %v, want %v", tc.uid, tc.depth, got, tc.want)
		}
		m := graphMeta(e)
		if m["semantic_scope"] != "transitive_depth_"+string(rune('0'+tc.depth)) || m["resolved_from"] != "direct" {
			t.Errorf("meta %v", m)
		}
	}
}

func TestGraphImpact_RepoRelativePathAndMiss(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "cmd/a.go", "depth": 1, "edge_types": ["imports"]}`)
	if m := graphMeta(e); m["resolved_from"] != "path_prefix" {
		t.Fatalf("resolved_from %v, want path_prefix", m["resolved_from"])
	}
	if got := graphUIDs(graphList(t, e.Data, "nodes"), "uid"); !slices.Equal(got, []string{"code:file:main.go"}) {
		t.Fatalf("importers %v", got)
	}
	// A basename shared by two files is ambiguous, never a guess.
	e = graphFail(t, r.s, "cos_graph_impact", `{"uid": "util.go"}`, envelope.CodeAmbiguous)
	if s := graphJSON(t, e.Error.Details); !strings.Contains(s, "code:file:cmd/util.go") || !strings.Contains(s, "code:file:lib/util.go") {
		t.Fatalf("details %s", s)
	}
	e = graphFail(t, r.s, "cos_graph_impact", `{"uid": "code:function:nowhere.go::zzz"}`, envelope.CodeNotFound)
	if e.Error.Category != "not_found" {
		t.Fatalf("category %s", e.Error.Category)
	}
	if _, ok := e.Error.Details["suggestions"].([]any); !ok {
		t.Fatalf("no suggestions list: %v", e.Error.Details)
	}
	graphFail(t, r.s, "cos_graph_impact", `{"uid": "cmd/a.go", "depth": 6}`, envelope.CodeArgument)
}

func TestGraphReferences_DefaultKinds(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "code:function:cmd/a.go::run"}`)
	m := graphMeta(e)
	if m["default_kinds_picked"] != true || m["node_kind"] != "function" {
		t.Fatalf("meta %v", m)
	}
	refs := graphList(t, e.Data, "references")
	if got := graphUIDs(refs, "source"); !slices.Equal(got, []string{"code:function:cmd/a_test.go::TestRun", "code:function:main.go::main"}) {
		t.Fatalf("sources %v", got)
	}
	if refs[1]["file"] != "main.go" || refs[1]["line"] != 6.0 || refs[1]["type"] != "calls" {
		t.Fatalf("reference %v", refs[1])
	}
	// contains is not a default for functions; asked for, it is reported.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "code:function:cmd/a.go::run", "kinds": ["contains"]}`)
	if m := graphMeta(e); m["default_kinds_picked"] != false {
		t.Fatalf("meta %v", m)
	}
	if got := graphUIDs(graphList(t, e.Data, "references"), "source"); !slices.Equal(got, []string{"code:file:cmd/a.go"}) {
		t.Fatalf("sources %v", got)
	}
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "cmd/a.go"}`)
	if m := graphMeta(e); m["node_kind"] != "file" || m["resolved_from"] != "path_prefix" {
		t.Fatalf("meta %v", m)
	}
	if got := graphUIDs(graphList(t, e.Data, "references"), "source"); !graphHasAll(got, "folder:cmd", "code:file:main.go") || len(got) != 2 {
		t.Fatalf("file references %v", got)
	}
	graphFail(t, r.s, "cos_graph_references", `{"uid": "run"}`, envelope.CodeAmbiguous)
	graphFail(t, r.s, "cos_graph_references", `{"uid": "x", "kinds": ["eats"]}`, envelope.CodeArgument)
}

func TestGraphPath_ShortestAndMisses(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_path", `{"source": "start", "target": "code:function:lib/b.go::run"}`)
	m := graphMeta(e)
	if m["source_resolved_from"] != "fuzzy" || m["target_resolved_from"] != "direct" {
		t.Fatalf("meta %v", m)
	}
	steps := graphList(t, e.Data, "steps")
	// start and run share their file (two hops through its contains edges,
	// or two through main), then run → Helper → run: four hops.
	want := []string{"code:function:cmd/a.go::start", "", "code:function:cmd/a.go::run", "code:function:lib/b.go::Helper", "code:function:lib/b.go::run"}
	if e.Data["hops"] != float64(len(steps)-1) || len(steps) != len(want) {
		t.Fatalf("steps %v", graphUIDs(steps, "uid"))
	}
	for i, uid := range graphUIDs(steps, "uid") {
		if want[i] != "" && uid != want[i] {
			t.Fatalf("path %v, want %v", graphUIDs(steps, "uid"), want)
		}
	}
	for i, st := range steps[1:] {
		edge := st["edge"].(map[string]any)
		prev, cur := steps[i]["uid"], st["uid"]
		fwd := edge["source"] == prev && edge["target"] == cur
		back := edge["source"] == cur && edge["target"] == prev
		if !(fwd && st["direction"] == "forward") && !(back && st["direction"] == "backward") {
			t.Fatalf("step %d edge %v direction %v does not join %v and %v", i+1, edge, st["direction"], prev, cur)
		}
	}
	// Calls only, one hop: no path; the failure names both ends.
	e = graphFail(t, r.s, "cos_graph_path", `{"source": "code:function:cmd/a.go::start", "target": "code:function:lib/b.go::run", "max_hops": 1, "edge_types": ["calls"]}`, envelope.CodeNotFound)
	if !strings.Contains(e.Error.Message, "cmd/a.go::start") || !strings.Contains(e.Error.Message, "lib/b.go::run") {
		t.Fatalf("message %q", e.Error.Message)
	}
	graphFail(t, r.s, "cos_graph_path", `{"source": "run", "target": "main"}`, envelope.CodeAmbiguous)
	graphFail(t, r.s, "cos_graph_path", `{"source": "main", "target": "main", "max_hops": 11}`, envelope.CodeArgument)
}

func TestGraphSimilar_NameAndShape(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_similar", `{"uid": "code:function:cmd/a.go::run", "limit": 5}`)
	res := graphList(t, e.Data, "results")
	if len(res) == 0 || res[0]["uid"] != "code:function:lib/b.go::run" {
		t.Fatalf("results %v", graphUIDs(res, "uid"))
	}
	for i := 1; i < len(res); i++ {
		if res[i]["score"].(float64) > res[i-1]["score"].(float64) {
			t.Fatalf("not ordered by score: %v", res)
		}
	}
	for _, x := range res {
		if x["uid"] == "code:function:cmd/a.go::run" {
			t.Fatal("the node itself is listed")
		}
	}
	graphFail(t, r.s, "cos_graph_similar", `{"uid": "code:function:cmd/a.go::run", "limit": 51}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_similar", `{"uid": "qqqqqqqq"}`, envelope.CodeNotFound)
}

func TestGraphExport_RootAndTopDegree(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_export", `{"root": "code:function:lib/b.go::run", "max_hops": 1}`)
	got := graphUIDs(graphList(t, e.Data, "nodes"), "uid")
	if want := []string{"code:function:lib/b.go::run", "code:file:lib/b.go", "code:function:lib/b.go::Helper"}; !graphHasAll(got, want...) || len(got) != len(want) {
		t.Fatalf("nodes %v", got)
	}
	if n := len(graphList(t, e.Data, "edges")); n != 3 { // contains ×2 (file→run, file→Helper), Helper→run
		t.Fatalf("edges %d", n)
	}
	e = graphOK(t, r.s, "cos_graph_export", `{"max_nodes": 2}`)
	nodes := graphList(t, e.Data, "nodes")
	// cmd/a.go (folder, run, start, main's import) and cmd/a.go::run
	// (file, main, TestRun, Helper) have degree 4; nothing else has more.
	if got := graphUIDs(nodes, "uid"); !slices.Equal(got, []string{"code:file:cmd/a.go", "code:function:cmd/a.go::run"}) || e.Data["selection"] != "top_degree" {
		t.Fatalf("top nodes %v", graphUIDs(nodes, "uid"))
	}
	graphFail(t, r.s, "cos_graph_export", `{"max_nodes": 2001}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_export", `{"root": "run"}`, envelope.CodeAmbiguous)
}

func TestGraphExport_OversizedIsTrimmedCoherently(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{SubgraphBudgetChars: 20_000})
	var nodes, edges []map[string]any
	for i := range 300 {
		uid := "code:function:big.go::f" + graphItoa(i)
		nodes = append(nodes, map[string]any{"uid": uid, "label": "f" + graphItoa(i), "path": "big.go"})
		if i > 0 {
			edges = append(edges, map[string]any{"source": uid, "target": "code:function:big.go::f" + graphItoa(i/2), "type": "calls"})
		}
	}
	graphOK(t, r.s, "cos_graph_upsert", graphJSON(t, map[string]any{"nodes": nodes, "edges": edges}))
	e := graphOK(t, r.s, "cos_graph_export", `{"max_nodes": 2000}`)
	m := graphMeta(e)
	if m["truncated_subgraph"] != true || m["truncated_nodes_from"] != 300.0 {
		t.Fatalf("meta %v", m)
	}
	kept := map[string]bool{}
	for _, n := range graphList(t, e.Data, "nodes") {
		kept[n["uid"].(string)] = true
	}
	es := graphList(t, e.Data, "edges")
	if len(kept) == 0 || len(es) == 0 || len(kept) >= 300 {
		t.Fatalf("kept %d nodes, %d edges", len(kept), len(es))
	}
	for _, x := range es {
		if !kept[x["source"].(string)] || !kept[x["target"].(string)] {
			t.Fatalf("edge %v joins a node that was cut", x)
		}
	}
}

func graphItoa(i int) string { return strings.TrimSpace(graphNum(i)) }

func graphNum(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestGraphTools_UnicodeLabelsRoundTripByteExact(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	const label = "Привет, мир 🌍👩‍💻"
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [
		{"uid": "code:function:i18n/привет.go::Привет", "kind": "function", "label": "`+label+`", "path": "i18n/привет.go"},
		{"uid": "code:function:i18n/привет.go::вызов", "kind": "function", "label": "вызов 🚀"}],
		"edges": [{"source": "code:function:i18n/привет.go::вызов", "target": "code:function:i18n/привет.go::Привет", "type": "calls"}]}`)
	for _, tc := range []struct{ tool, args string }{
		{"cos_graph_impact", `{"uid": "вызов 🚀"}`},
		{"cos_graph_impact", `{"uid": "code:function:i18n/привет.go::Привет"}`},
		{"cos_graph_references", `{"uid": "code:function:i18n/привет.go::Привет"}`},
		{"cos_graph_export", `{"root": "code:function:i18n/привет.go::Привет"}`},
		{"cos_graph_path", `{"source": "code:function:i18n/привет.go::вызов", "target": "code:function:i18n/привет.go::Привет"}`},
	} {
		env := r.s.Call(context.Background(), tc.tool, json.RawMessage(tc.args))
		if !env.OK() {
			t.Fatalf("%s: %s", tc.tool, env.JSON())
		}
		raw := string(env.JSON())
		if !strings.Contains(raw, "вызов 🚀") && !strings.Contains(raw, label) {
			t.Fatalf("%s: labels not byte-exact in %s", tc.tool, raw)
		}
	}
	e := graphOK(t, r.s, "cos_graph_export", `{"root": "code:function:i18n/привет.go::Привет"}`)
	for _, n := range graphList(t, e.Data, "nodes") {
		if n["uid"] == "code:function:i18n/привет.go::Привет" && n["label"] != label {
			t.Fatalf("label %q, want %q", n["label"], label)
		}
	}
}

func TestGraphUpsert_ReplayWritesNothingNew(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	args := `{"nodes": [{"uid": "code:file:a.go", "label": "a.go", "path": "a.go"}], "request_id": "ext-1"}`
	first := graphOK(t, r.s, "cos_graph_upsert", args)
	head1, _ := r.s.Log().Head(context.Background())
	second := graphOK(t, r.s, "cos_graph_upsert", args)
	head2, _ := r.s.Log().Head(context.Background())
	if head1 != head2 {
		t.Fatalf("head moved on a resend: %v → %v", head1, head2)
	}
	r1, r2 := first.Data["receipt"].(map[string]any), second.Data["receipt"].(map[string]any)
	if r1["replayed"] != false || r2["replayed"] != true || r1["last_seq"] != r2["last_seq"] {
		t.Fatalf("receipts %v / %v", r1, r2)
	}
	if got := graphJSON(t, second.Data["uids"]); got != `["code:file:a.go"]` {
		t.Fatalf("uids %v", got)
	}
	graphFail(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:b.go"}], "request_id": "ext-1"}`, envelope.CodeRequestReuse)
}

func TestGraphUpsert_LargeRequestIsOneAtomicReplayableRequest(t *testing.T) {
	r := graphRepoNoFiles(t)
	var nodes []map[string]any
	for i := range writeChunk + 1 { // two events
		nodes = append(nodes, map[string]any{"uid": "code:function:big.go::f" + graphItoa(i)})
	}
	args := graphJSON(t, map[string]any{"nodes": nodes, "request_id": "big-1"})
	e := graphOK(t, r.s, "cos_graph_upsert", args)
	rc := e.Data["receipt"].(map[string]any)
	if rc["last_seq"].(float64)-rc["first_seq"].(float64) != 1 {
		t.Fatalf("receipt %v, want two events", rc)
	}
	if g := e.Data["graph"].(map[string]any); g["nodes"] != float64(writeChunk+1) {
		t.Fatalf("graph %v", g)
	}
	head, _ := r.s.Log().Head(context.Background())
	e = graphOK(t, r.s, "cos_graph_upsert", args)
	if again, _ := r.s.Log().Head(context.Background()); again != head || e.Data["receipt"].(map[string]any)["replayed"] != true {
		t.Fatalf("resend wrote or was not replayed: %v → %v", head, again)
	}
}

func graphRepoNoFiles(t *testing.T) *graphRepo { return openGraphRepo(t, nil, envelope.Options{}) }

func TestGraphUpsert_Validation(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:src/a.go", "path": "src/a.go"}]}`)
	tests := []struct {
		name, args string
		code       envelope.Code
		field      string
	}{
		{"malformed uid", `{"nodes": [{"uid": "code:file:ok.go"}, {"uid": "code:file:a b.go"}]}`, envelope.CodeArgument, "nodes[1].uid"},
		{"unknown prefix", `{"nodes": [{"uid": "zzz:a"}]}`, envelope.CodeArgument, "nodes[0].uid"},
		{"bad kind", `{"nodes": [{"uid": "code:file:x.go", "kind": "gizmo"}]}`, envelope.CodeArgument, "nodes[0].kind"},
		{"escaping path", `{"nodes": [{"uid": "code:file:x.go", "path": "../x.go"}]}`, envelope.CodeArgument, "nodes[0].path"},
		{"unknown node key", `{"nodes": [{"uid": "code:file:x.go", "colour": 1}]}`, envelope.CodeArgument, "nodes[0]"},
		{"bad edge type", `{"edges": [{"source": "src/a.go", "target": "src/a.go", "type": "Calls Me"}]}`, envelope.CodeArgument, "edges[0].type"},
		{"unknown endpoint", `{"edges": [{"source": "src/a.go", "target": "code:file:nope.go", "type": "imports"}]}`, envelope.CodeNotFound, "edges[0].target"},
		{"fuzzy endpoint refused", `{"edges": [{"source": "a.go", "target": "src/a.go", "type": "imports"}]}`, envelope.CodeNotFound, "edges[0].source"},
		{"nothing", `{}`, envelope.CodeArgument, "nodes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := graphFail(t, r.s, "cos_graph_upsert", tc.args, tc.code)
			if !strings.HasPrefix(e.Error.Message, tc.field) {
				t.Fatalf("message %q does not name %s", e.Error.Message, tc.field)
			}
		})
	}
	// An endpoint given as a repo-relative path or created in the same call.
	e := graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:src/a.go::f", "label": "f"}],
		"edges": [{"source": "src/a.go", "target": "code:function:src/a.go::f", "type": "contains"}]}`)
	if w := e.Data["written"].(map[string]any); w["edges"] != float64(1) {
		t.Fatalf("written %v", w)
	}
	r.s.tailer.View(func(projections.Position) {
		if out := r.s.graph.Out("code:file:src/a.go"); len(out) != 1 || out[0].Target != "code:function:src/a.go::f" {
			t.Errorf("edges out of src/a.go: %v", out)
		}
	})
}

func TestGraphDelete_NodesAndEdges(t *testing.T) {
	r := openFixture(t)
	graphFail(t, r.s, "cos_graph_delete", `{"uids": ["code:function:cmd/a.go::run", "code:function:nowhere.go::x"]}`, envelope.CodeNotFound)
	graphFail(t, r.s, "cos_graph_delete", `{"edges": [{"source": "code:file:main.go", "target": "code:file:lib/b.go", "type": "imports"}]}`, envelope.CodeNotFound)
	graphOK(t, r.s, "cos_graph_delete", `{"uids": ["lib/b.go"], "edges": [{"source": "main.go", "target": "cmd/a.go", "type": "imports"}], "request_id": "d-1"}`)
	r.s.tailer.View(func(projections.Position) {
		if r.s.graph.HasNode("code:file:lib/b.go") {
			t.Error("lib/b.go is still a node")
		}
		if in, out := r.s.graph.Degree("code:file:lib/b.go"); in+out != 0 {
			t.Errorf("lib/b.go keeps %d edges", in+out)
		}
	})
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "code:file:cmd/a.go", "kinds": ["imports"]}`)
	if n := len(graphList(t, e.Data, "references")); n != 0 {
		t.Fatalf("%d imports left", n)
	}
	// A resend of the same delete is replayed, not refused.
	head1, _ := r.s.Log().Head(context.Background())
	e = call(t, r.s, "cos_graph_delete", `{"uids": ["lib/b.go"], "edges": [{"source": "main.go", "target": "cmd/a.go", "type": "imports"}], "request_id": "d-1"}`)
	head2, _ := r.s.Log().Head(context.Background())
	if head1 != head2 {
		t.Fatalf("a resend wrote: %v → %v (%v)", head1, head2, e)
	}
}

func TestGraphDoctor_FindsAndFixes(t *testing.T) {
	r := openFixture(t)
	ctx := context.Background()
	plant := []struct{ typ, data string }{
		{"graph.nodes_upserted", `{"nodes": [
			{"uid": "code:file:docs/bad.md", "kind": "file", "label": "bad", "path": "docs/` + "`" + `bad` + "`" + ` name.md"},
			{"uid": "code:file:gone.go", "kind": "file", "label": "gone.go", "path": "gone.go"},
			{"uid": "code:external:fmt.Println", "kind": "external", "label": "fmt.Println", "metadata": {"stub": true}},
			{"uid": "code:module:phantom", "kind": "module", "label": "phantom"},
			{"uid": "code:function:cmd/a.go::lonely", "kind": "function", "label": "lonely", "path": "cmd/a.go"}]}`},
		{"graph.edges_upserted", `{"edges": [
			{"source": "code:function:main.go::main", "target": "code:function:gone.go::vanished", "type": "calls"},
			{"source": "code:function:ghost.go::g", "target": "code:function:main.go::main", "type": "calls"},
			{"source": "code:function:main.go::main", "target": "code:function:main.go::main", "type": "calls"},
			{"source": "code:file:main.go", "target": "code:file:main.go", "type": "imports"},
			{"source": "folder:lib", "target": "code:function:cmd/a.go::run", "type": "contains"}]}`},
		{"graph.file_extracted", `{"path": "cmd/util.go", "extractor": "go", "content_hash": "ab", "size": 12, "nodes": [], "edges": [],
			"parse_errors": ["1:1: expected declaration"], "duration_ms": 12.5}`},
		{"graph.file_extracted", `{"path": "deleted.go", "extractor": "go", "content_hash": "cd", "size": 3, "nodes": [], "edges": [], "duration_ms": 40}`},
	}
	for _, p := range plant {
		if _, err := state.AppendOne(ctx, r.s.Log(), graphReq(p.typ, p.data)); err != nil {
			t.Fatal(err)
		}
	}
	counts := func(e envOf) map[string]int {
		out := map[string]int{}
		for _, is := range graphList(t, e.Data, "issues") {
			out[is["category"].(string)] = int(is["count"].(float64))
		}
		return out
	}
	e := graphOK(t, r.s, "cos_graph_doctor", `{}`)
	m := graphMeta(e)
	if graphJSON(t, m["fixable_categories"]) != graphJSON(t, query.DoctorFixable) || graphJSON(t, m["informational_categories"]) != graphJSON(t, query.DoctorInformational) {
		t.Fatalf("meta %v", m)
	}
	got := counts(e)
	if len(got) != len(query.DoctorCategories) {
		t.Fatalf("categories %v", got)
	}
	want := map[string]int{
		"dangling_source": 1, "dangling_target": 1, "self_loops": 1, "malformed_uid_path": 1,
		"stale_paths": 2, "orphaned_external_unresolved": 1, "orphaned_phantom": 1, "orphaned_inrepo": 5,
		"duplicate_contains": 1, "duplicate_edges": 0, "files_with_parse_errors": 1, "slowest_extractions": 2,
	}
	for cat, n := range want {
		if got[cat] != n {
			t.Errorf("%s = %d, want %d (all: %v)", cat, got[cat], n, got)
		}
	}
	if e.Data["healthy"] != false {
		t.Fatal("healthy with planted issues")
	}
	stats := e.Data["stats"].(map[string]any)
	if stats["issue_count"] != 13.0 || stats["issue_count_total"] != 17.0 {
		t.Fatalf("stats %v", stats)
	}
	// stale_paths: gone.go's node and deleted.go's extraction;
	// orphaned_inrepo: lonely and the four fixture files without edges;
	// orphaned_phantom: the path-less module (the stub is an external).
	e = graphOK(t, r.s, "cos_graph_doctor", `{"fix": true}`)
	after := counts(e)
	for _, cat := range []string{"dangling_source", "dangling_target", "malformed_uid_path", "stale_paths", "orphaned_phantom", "duplicate_contains", "orphaned_external_unresolved"} {
		if after[cat] != 0 {
			t.Errorf("after fix %s = %d", cat, after[cat])
		}
	}
	if after["self_loops"] != 1 || after["orphaned_inrepo"] != 5 {
		t.Errorf("fix removed what it must not: %v", after)
	}
	fixed := e.Data["fixed"].(map[string]any)
	if fixed["edges_deleted"] != 3.0 || graphJSON(t, fixed["files_removed"]) != `["deleted.go"]` { // two dangling, one extra contains
		t.Errorf("fixed %v", fixed)
	}
	if after["files_with_parse_errors"] != 1 || after["slowest_extractions"] != 1 || e.Data["healthy"] != false {
		t.Errorf("after fix %v healthy %v", after, e.Data["healthy"])
	}
	// The kept parent of cmd/a.go::run is its own file.
	refs := graphOK(t, r.s, "cos_graph_references", `{"uid": "code:function:cmd/a.go::run", "kinds": ["contains"]}`)
	if got := graphUIDs(graphList(t, refs.Data, "references"), "source"); !slices.Equal(got, []string{"code:file:cmd/a.go"}) {
		t.Errorf("contains parents after fix %v", got)
	}
	e = graphOK(t, r.s, "cos_graph_doctor", `{"fix": true}`)
	if fixed := e.Data["fixed"].(map[string]any); graphJSON(t, fixed["removed"]) != "{}" {
		t.Errorf("second fix removed %v", fixed)
	}
}

func TestGraphRenamePlan_Sites(t *testing.T) {
	r := openFixture(t)
	e := graphOK(t, r.s, "cos_graph_rename_plan", `{"uid": "code:function:cmd/a.go::run", "new_name": "launch"}`)
	site := func(key string) []string {
		var out []string
		for _, s := range graphList(t, e.Data, key) {
			out = append(out, s["file"].(string)+":"+graphNum(int(s["line"].(float64)))+":"+graphNum(int(s["column"].(float64))))
		}
		return out
	}
	checks := map[string][]string{
		"definitions":     {"cmd/a.go:6:6"},
		"call_sites":      {"cmd/a.go:11:16", "main.go:6:6"},
		"string_literals": {"cmd/a.go:8:7"},
		"doc_references":  {"cmd/a.go:5:4", "README.md:3:7"},
		"test_references": {"cmd/a_test.go:3:30"},
		"import_sites":    nil,
	}
	for key, want := range checks {
		if got := site(key); graphJoined(got) != graphJoined(want) {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	graphFail(t, r.s, "cos_graph_rename_plan", `{"uid": "code:function:cmd/a.go::run", "new_name": "1st"}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_rename_plan", `{"uid": "code:function:cmd/a.go::run", "new_name": "run"}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_rename_plan", `{"uid": "run", "new_name": "go"}`, envelope.CodeAmbiguous)
}

func TestGraphRenamePlan_NeverReadsOutsideRoot(t *testing.T) {
	r := openFixture(t)
	outside := filepath.Join(t.TempDir(), "secret.go")
	if err := os.WriteFile(outside, []byte("func run() { run() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.root, "link.go")); err != nil {
		t.Skip("no symlinks:", err)
	}
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:function:link.go::caller", "label": "caller", "path": "link.go"}],
		"edges": [{"source": "code:function:link.go::caller", "target": "code:function:cmd/a.go::run", "type": "calls"}]}`)
	e := graphOK(t, r.s, "cos_graph_rename_plan", `{"uid": "code:function:cmd/a.go::run", "new_name": "launch"}`)
	if strings.Contains(graphJSON(t, e.Data), `"file":"link.go"`) {
		t.Fatal("read a file through a symlink out of the root")
	}
	skipped := graphList(t, e.Data, "skipped")
	if len(skipped) != 1 || skipped[0]["path"] != "link.go" || skipped[0]["reason"] != "resolves outside the indexed roots" {
		t.Fatalf("skipped %v", skipped)
	}
}

func TestGraphDoctor_InformationalOnlyIsHealthy(t *testing.T) {
	r := openGraphRepo(t, map[string]string{"a.go": "package a\n"}, envelope.Options{})
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [
		{"uid": "code:file:a.go", "path": "a.go"},
		{"uid": "code:external:fmt.Println", "metadata": {"stub": true}}],
		"edges": [{"source": "code:file:a.go", "target": "code:external:fmt.Println", "type": "calls"}]}`)
	e := graphOK(t, r.s, "cos_graph_doctor", `{}`)
	stats := e.Data["stats"].(map[string]any)
	if e.Data["healthy"] != true || stats["issue_count"] != 0.0 || stats["issue_count_total"] != 1.0 {
		t.Fatalf("healthy %v stats %v", e.Data["healthy"], stats)
	}
	for _, is := range graphList(t, e.Data, "issues") {
		if is["category"] == "orphaned_external_unresolved" && (is["count"] != 1.0 || is["severity"] != "info") {
			t.Fatalf("issue %v", is)
		}
	}
	// fix keeps a stub that still has its edge.
	e = graphOK(t, r.s, "cos_graph_doctor", `{"fix": true}`)
	if removed := e.Data["fixed"].(map[string]any)["removed"]; graphJSON(t, removed) != "{}" {
		t.Fatalf("removed %v", removed)
	}
}
