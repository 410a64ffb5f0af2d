package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// freshSource is a Go file whose function Hello is on line 3; freshEdited
// is it with ten lines added above, Hello on line 13.
const freshSource = "package m\n\nfunc Hello() int {\n\treturn 1\n}\n"

var freshEdited = "package m\n\n" + strings.Repeat("// added\n", 10) + "func Hello() int {\n\treturn 1\n}\n"

func freshRepo(t *testing.T) *testutil.Git {
	t.Helper()
	return testutil.GitRepo(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"a.go":    freshSource,
		"util.go": "package m\n\nfunc Util() int { return Hello() }\n",
	})
}

// freshContext calls cos_graph_context on Hello and returns the node's line
// and meta.
func freshContext(t *testing.T, s *testServer) (line int, meta map[string]any) {
	t.Helper()
	e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "Hello"}`)
	if !e.OK {
		t.Fatalf("cos_graph_context: %s %s", e.Error.Code, e.Error.Message)
	}
	node, _ := e.Data["node"].(map[string]any)
	meta, _ = e.Data["meta"].(map[string]any)
	l, _ := node["line"].(float64)
	return int(l), meta
}

// metaIndex returns meta.index, failing the test when it is absent.
func metaIndex(t *testing.T, meta map[string]any) map[string]any {
	t.Helper()
	idx, ok := meta["index"].(map[string]any)
	if !ok {
		t.Fatalf("meta.index missing: meta = %v", meta)
	}
	return idx
}

func TestReadYourEdits_ContextAnswersTheNewLine(t *testing.T) {
	repo := freshRepo(t)
	s := idxOpen(t, t.TempDir(), repo.Root)
	rep := idxReport(t, s, `{}`)
	line, meta := freshContext(t, s)
	if line != 3 {
		t.Fatalf("before the edit: Hello on line %d, want 3", line)
	}
	idx := metaIndex(t, meta)
	if idx["root"] != repo.Root || idx["stale_files"] != 0.0 || idx["indexed_seq"] != float64(rep.LastSeq) {
		t.Errorf("meta.index = %v, want root %s, stale_files 0, indexed_seq %d", idx, repo.Root, rep.LastSeq)
	}
	if c, _ := idx["commit"].(string); c != repo.Run("rev-parse", "HEAD") {
		t.Errorf("meta.index.commit = %q, want HEAD %s", c, repo.Run("rev-parse", "HEAD"))
	}

	repo.Write("a.go", freshEdited) // no index call
	line, meta = freshContext(t, s)
	if line != 13 {
		t.Errorf("after the edit: Hello on line %d, want 13 (the answer must not name a line that moved)", line)
	}
	idx = metaIndex(t, meta)
	if idx["stale_files"] != 0.0 {
		t.Errorf("after the re-index: meta.index.stale_files = %v, want 0", idx["stale_files"])
	}
	if w, ok := meta["warnings"]; ok {
		t.Errorf("a fresh answer has warnings %v", w)
	}
	if seq, _ := idx["indexed_seq"].(float64); uint64(seq) <= rep.LastSeq {
		t.Errorf("meta.index.indexed_seq = %v, want past the first run's %d", seq, rep.LastSeq)
	}

	// A file that only got a new modification time is not re-indexed.
	head := idxHead(t, s)
	repo.Write("a.go", freshEdited)
	if line, _ = freshContext(t, s); line != 13 {
		t.Errorf("after a touch: line %d, want 13", line)
	}
	if h := idxHead(t, s); h != head {
		t.Errorf("a touched but unchanged file was re-indexed: head %d → %d", head, h)
	}
}

func TestReadYourEdits_ReadOnlyServerWarns(t *testing.T) {
	repo := freshRepo(t)
	dir := t.TempDir()
	s := idxOpen(t, dir, repo.Root)
	idxReport(t, s, `{}`)
	head := idxHead(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	repo.Write("a.go", freshEdited)

	at, err := openTestServer(context.Background(), testOptions{StateDir: dir, Roots: []string{repo.Root}, NATS: "off",
		NoBackgroundSnapshots: true, At: &projections.Until{Seq: head}})
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	line, meta := freshContext(t, at)
	if line != 3 {
		t.Errorf("a read-only view answers line %d, want the graph's 3", line)
	}
	if idx := metaIndex(t, meta); idx["stale_files"] != 1.0 {
		t.Errorf("meta.index.stale_files = %v, want 1", idx["stale_files"])
	}
	ws, _ := meta["warnings"].([]any)
	if len(ws) != 1 || !strings.Contains(fmt.Sprint(ws[0]), "a.go") || !strings.Contains(fmt.Sprint(ws[0]), "read-only") {
		t.Errorf("meta.warnings = %v, want one naming a.go and why it was not re-indexed", ws)
	}
}

func TestHealth_FreshnessListsChangedFilesAndCommitsAhead(t *testing.T) {
	repo := freshRepo(t)
	s := idxOpen(t, t.TempDir(), repo.Root)
	idxReport(t, s, `{}`)
	fresh := func() map[string]any {
		t.Helper()
		e := idxCall(t, s, "cos_health", `{}`)
		if !e.OK {
			t.Fatalf("cos_health: %s", e.Error.Message)
		}
		f, ok := e.Data["freshness"].(map[string]any)
		if !ok {
			t.Fatalf("cos_health has no freshness: %v", e.Data)
		}
		return f
	}
	f := fresh()
	if f["changed"] != 0.0 || f["new"] != 0.0 || f["commits_ahead"] != 0.0 || f["git"] != true || f["watched"] != false {
		t.Errorf("just indexed: freshness = %v, want changed 0, new 0, commits_ahead 0", f)
	}

	repo.Write("a.go", freshEdited)
	repo.Write("b.go", "package m\n\nfunc B() {}\n")
	f = fresh()
	if f["changed"] != 1.0 || f["new"] != 1.0 {
		t.Errorf("after an edit and a new file: freshness = %v, want changed 1, new 1", f)
	}
	if got := fmt.Sprint(f["paths"]); got != "[a.go b.go]" {
		t.Errorf("freshness.paths = %s, want [a.go b.go]", got)
	}

	repo.Run("add", "-A")
	repo.Run("commit", "-q", "-m", "second")
	f = fresh()
	if f["commits_ahead"] != 1.0 {
		t.Errorf("after git commit: commits_ahead = %v (%v), want 1", f["commits_ahead"], f["commits_ahead_unknown"])
	}
	if f["changed"] != 1.0 {
		t.Errorf("after git commit: changed = %v, want 1 (the graph still holds the old a.go)", f["changed"])
	}
}

func TestDoctor_ReportsFilesChangedOnDisk(t *testing.T) {
	repo := freshRepo(t)
	s := idxOpen(t, t.TempDir(), repo.Root)
	idxReport(t, s, `{}`)
	repo.Write("a.go", freshEdited)
	e := idxCall(t, s, "cos_graph_doctor", `{}`)
	if !e.OK {
		t.Fatalf("cos_graph_doctor: %s", e.Error.Message)
	}
	if e.Data["healthy"] != false {
		t.Errorf("doctor says healthy with a file changed on disk")
	}
	var found bool
	for _, it := range e.Data["issues"].([]any) {
		is := it.(map[string]any)
		if is["category"] == "changed_on_disk" {
			found = true
			if is["count"] != 1.0 || fmt.Sprint(is["sample"]) != "[a.go]" {
				t.Errorf("changed_on_disk = %v, want count 1, sample [a.go]", is)
			}
		}
	}
	if !found {
		t.Errorf("doctor has no changed_on_disk category: %v", e.Data["issues"])
	}
	if idx := metaIndex(t, e.Data["meta"].(map[string]any)); idx["stale_files"] != 1.0 {
		t.Errorf("doctor's meta.index.stale_files = %v, want 1", idx["stale_files"])
	}
}

// TestReadYourEdits_AcrossProcesses: one cos process indexes, the file
// changes, another cos process answers from the new file.
func TestReadYourEdits_AcrossProcesses(t *testing.T) {
	repo := freshRepo(t)
	dir := t.TempDir()
	cos := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(cosBin, append([]string{"--state-dir", dir}, args...)...)
		cmd.Dir = repo.Root
		cmd.Env = repo.Env()
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("cos %v: %v\n%s%s", args, err, out, stderr)
		}
		return out
	}
	cos("index", "--no-progress", repo.Root)
	repo.Write("a.go", freshEdited)
	var e testutil.Envelope
	out := cos("call", "cos_graph_context", `{"uid_or_name": "Hello"}`)
	if err := json.Unmarshal(out, &e); err != nil || !e.OK {
		t.Fatalf("cos call: %v %s", err, out)
	}
	node, _ := e.Data["node"].(map[string]any)
	if node["line"] != 13.0 {
		t.Errorf("another process answers line %v, want 13", node["line"])
	}
	meta, _ := e.Data["meta"].(map[string]any)
	if idx := metaIndex(t, meta); idx["stale_files"] != 0.0 {
		t.Errorf("meta.index.stale_files = %v, want 0", idx["stale_files"])
	}
}

// TestJSONPaths checks the oracle TestNamedFiles_EveryGraphRead compares
// the declared files with.
func TestJSONPaths(t *testing.T) {
	type nested struct {
		query.NodeView
		Depth int `json:"depth"`
	}
	data := map[string]any{
		"node":       query.ViewOf(testNode("a.go")),
		"neighbours": []nested{{NodeView: query.ViewOf(testNode("b.go"))}, {NodeView: query.ViewOf(testNode("a.go"))}},
		"results":    []map[string]any{{"path": "c.go"}, {"file": "d.go", "path": ""}},
		"other":      map[string]any{"paths": "x.go"},
	}
	got := jsonPaths(t, data)
	slices.Sort(got)
	if want := []string{"a.go", "b.go", "c.go", "d.go"}; !slices.Equal(got, want) {
		t.Errorf("jsonPaths = %v, want %v", got, want)
	}
}

// jsonPaths returns the distinct non-empty strings held under a "path" or
// "file" key anywhere in data as JSON encodes it, in the order met: the
// files an answer names, found without the handler's help.
func jsonPaths(t testing.TB, data any) []string {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	var walk func(v any, named bool)
	walk = func(v any, named bool) {
		switch x := v.(type) {
		case string:
			if named && x != "" && !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		case map[string]any:
			for k, e := range x {
				walk(e, k == "path" || k == "file")
			}
		case []any:
			for _, e := range x {
				walk(e, false)
			}
		}
	}
	walk(tree, false)
	return out
}

func testNode(path string) graph.Node {
	return graph.Node{UID: "code:file:" + path, Kind: graph.KindFile, Label: path, Path: path}
}

// Concurrent reads of an edited file each answer the new line; the runs
// they start take turns.
func TestReadYourEdits_ConcurrentReads(t *testing.T) {
	repo := freshRepo(t)
	s := idxOpen(t, t.TempDir(), repo.Root)
	idxReport(t, s, `{}`)
	repo.Write("a.go", freshEdited)
	lines := make(chan int, 4)
	for range 4 {
		go func() {
			e := s.Call(context.Background(), "cos_graph_context", []byte(`{"uid_or_name": "Hello"}`))
			var env testutil.Envelope
			_ = json.Unmarshal(e.JSON(), &env)
			node, _ := env.Data["node"].(map[string]any)
			l, _ := node["line"].(float64)
			lines <- int(l)
		}()
	}
	for range 4 {
		if l := <-lines; l != 13 {
			t.Errorf("a concurrent read answered line %d, want 13", l)
		}
	}
}

// cos_graph_changes writes only to bring the graph up to date: a server
// that cannot write still answers it, from the graph as it is, and says
// which changed files it could not index again.
func TestGraphChanges_ReadOnlyServerAnswersWithAWarning(t *testing.T) {
	repo := freshRepo(t)
	dir := t.TempDir()
	s := idxOpen(t, dir, repo.Root)
	idxReport(t, s, `{}`)
	head := idxHead(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	repo.Write("a.go", freshEdited)
	at, err := openTestServer(context.Background(), testOptions{StateDir: dir, Roots: []string{repo.Root}, NATS: "off",
		NoBackgroundSnapshots: true, At: &projections.Until{Seq: head}})
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	e := idxCall(t, at, "cos_graph_changes", `{}`)
	if !e.OK {
		t.Fatalf("cos_graph_changes on a read-only view: %s %s", e.Error.Code, e.Error.Message)
	}
	files, _ := e.Data["files"].([]any)
	if len(files) != 1 || !strings.Contains(fmt.Sprint(files[0]), "a.go") {
		t.Errorf("files = %v, want a.go", files)
	}
	meta, _ := e.Data["meta"].(map[string]any)
	ws, _ := meta["warnings"].([]any)
	if len(ws) == 0 || !strings.Contains(fmt.Sprint(ws), "a.go") {
		t.Errorf("meta.warnings = %v, want one naming a.go, not indexed again", ws)
	}
	if before := head; at.st.Position().Seq != before {
		t.Errorf("the read-only view moved from %d to %d", before, at.st.Position().Seq)
	}
}

// Every graph read tool declares (Call.NameFiles) each file its answer
// names: node paths, candidate paths, reference and site files, and "path"
// or "file" keys anywhere in node and edge metadata, as the encoded answer
// shows them. A graph read tool without a case here fails the test.
func TestNamedFiles_EveryGraphRead(t *testing.T) {
	r := openFixture(t)
	graphOK(t, r.s, "cos_graph_index", `{}`)
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [
	  {"uid": "code:function:lib/util.go::meta", "kind": "function", "label": "meta", "path": "lib/util.go",
	   "metadata": {"file": "cmd/util.go", "deep": [{"x": {"path": "README.md"}}], "path": {"file": "main.go"}}}],
	 "edges": [
	  {"source": "code:function:lib/util.go::meta", "target": "code:function:cmd/a.go::run", "type": "calls", "line": 1,
	   "metadata": {"path": "edge-only.go"}}]}`)
	cases := []struct{ tool, args string }{
		{"cos_graph_resolve", `{"q": "run"}`},
		{"cos_graph_resolve", `{"q": "lib/util.go"}`},
		{"cos_graph_context", `{"uid_or_name": "code:function:cmd/a.go::run", "depth": 2}`},
		{"cos_graph_references", `{"uid": "code:function:cmd/a.go::run"}`},
		{"cos_graph_references", `{"uid": "code:function:cmd/a.go::run", "limit": 1}`},
		{"cos_graph_impact", `{"uid": "code:function:cmd/a.go::run", "depth": 3}`},
		{"cos_graph_impact", `{"uid": "code:function:cmd/a.go::run", "limit": 1}`},
		{"cos_graph_path", `{"source": "code:function:lib/util.go::meta", "target": "code:function:lib/b.go::run"}`},
		{"cos_graph_similar", `{"uid": "code:function:cmd/a.go::run"}`},
		{"cos_graph_rename_plan", `{"uid": "code:function:cmd/a.go::run", "new_name": "launch"}`},
		{"cos_graph_export", `{"root": "code:function:cmd/a.go::run", "max_hops": 2}`},
		{"cos_graph_export", `{"max_nodes": 50}`},
		{"cos_graph_export", `{"max_nodes": 50, "clusters": true}`},
		{"cos_graph_trace", `{"uid": "code:function:lib/util.go::meta"}`},
		{"cos_graph_source", `{"uid": "code:function:cmd/a.go::run"}`},
		{"cos_graph_overview", `{"level": "file", "clusters": true}`},
		{"cos_graph_entrypoints", `{}`},
		{"cos_graph_audit", `{"check": "dead"}`},
		{"cos_graph_audit", `{"check": "untested"}`},
	}
	covered := map[string]bool{}
	ctx := context.Background()
	for _, tc := range cases {
		tool := r.s.tools[tc.tool]
		if tool == nil || !graphRead(tool) {
			t.Fatalf("%s is not a graph read tool", tc.tool)
		}
		covered[tc.tool] = true
		args, aerr := parseArgs(tool, json.RawMessage(tc.args))
		if aerr != nil {
			t.Fatal(aerr)
		}
		c := &Call{Tool: tool, Args: args, st: r.s.st, ix: r.s.ix, runner: r.s.r, fresh: r.s.r.fresh}
		var (
			data any
			err  error
		)
		if rerr := r.s.st.Read(ctx, func(v state.View) {
			c.V = v
			data, _, err = tool.Handler(ctx, c)
		}); rerr != nil || err != nil {
			t.Fatalf("%s %s: %v %v", tc.tool, tc.args, rerr, err)
		}
		declared := slices.Compact(slices.Sorted(slices.Values(c.files)))
		found := jsonPaths(t, data)
		slices.Sort(found)
		if !slices.Equal(declared, found) || len(found) == 0 {
			t.Errorf("%s %s: declared %v, the answer names %v", tc.tool, tc.args, declared, found)
		}
	}
	for name, tool := range r.s.tools {
		if graphRead(tool) && !covered[name] {
			t.Errorf("graph read tool %s has no case: add one that names files", name)
		}
	}
}
