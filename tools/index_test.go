package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
)

// idxEnv is a decoded envelope, for the index and wire tests.
type idxEnv = testutil.Envelope

// idxFixture is a small Go + Markdown repository (testutil.DemoRepo).
var idxFixture = testutil.DemoRepo

func idxWriteRepo(t testing.TB, files map[string]string) string { return testutil.WriteTree(t, files) }

// idxOpen opens a testServer whose one approved root is root.
func idxOpen(t testing.TB, state, root string) *testServer {
	t.Helper()
	s, err := openTestServer(context.Background(), testOptions{StateDir: state, Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func idxCall(t testing.TB, s *testServer, tool, args string) idxEnv {
	t.Helper()
	var e idxEnv
	raw := s.Call(context.Background(), tool, json.RawMessage(args)).JSON()
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("%s: envelope is not JSON: %v\n%s", tool, err, raw)
	}
	return e
}

// idxReport runs cos_graph_index and returns its report.
func idxReport(t testing.TB, s *testServer, args string) indexing.Report {
	t.Helper()
	e := idxCall(t, s, "cos_graph_index", args)
	if !e.OK {
		t.Fatalf("cos_graph_index %s: %s %s", args, e.Error.Code, e.Error.Message)
	}
	b, _ := json.Marshal(e.Data["report"])
	var rep indexing.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// idxEventsAfter returns the events after seq, but for the index runs' own
// (graph.index_started, graph.index_finished).
func idxEventsAfter(t testing.TB, s *testServer, seq uint64) []eventlog.Event {
	t.Helper()
	var evs []eventlog.Event
	if err := s.Log().Read(context.Background(), seq+1, func(ev eventlog.Event) error {
		if ev.Type != graph.TypeIndexStarted && ev.Type != graph.TypeIndexFinished {
			evs = append(evs, ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}

func idxHead(t testing.TB, s *testServer) uint64 {
	t.Helper()
	h, err := s.Log().Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h.Seq
}

func TestIndex_FindsFunctionsThenIncremental(t *testing.T) {
	root := idxWriteRepo(t, idxFixture)
	s := idxOpen(t, t.TempDir(), root)

	rep := idxReport(t, s, `{}`)
	if rep.FilesSeen != len(idxFixture) || rep.FilesChanged != len(idxFixture) || rep.Events != len(idxFixture) || rep.Transactions != 1 {
		t.Fatalf("first index: %+v", rep)
	}
	if rep.Nodes == 0 || rep.Edges == 0 || rep.Bytes == 0 || rep.LastSeq != idxHead(t, s) {
		t.Fatalf("first index counts: %+v (head %d)", rep, idxHead(t, s))
	}
	for _, ev := range idxEventsAfter(t, s, 0) {
		if ev.Stream != graph.Stream || ev.Type != graph.TypeFileExtracted {
			t.Fatalf("event %d is %s/%s", ev.Seq, ev.Stream, ev.Type)
		}
	}

	// The functions resolve, by name and by uid.
	e := idxCall(t, s, "cos_graph_resolve", `{"q":"run","kinds":["function"]}`)
	if !e.OK || !strings.Contains(fmt.Sprint(e.Data["results"]), "code:function:main.go::run") {
		t.Fatalf("resolve run: %+v", e)
	}
	e = idxCall(t, s, "cos_graph_context", `{"uid_or_name":"code:function:main.go::run"}`)
	if !e.OK {
		t.Fatalf("context run: %+v", e.Error)
	}
	calls := fmt.Sprint(e.Data["edges_by_type"].(map[string]any)["calls"])
	for _, want := range []string{"code:function:util/greet.go::Greet", "code:function:hello.go::Привет"} {
		if !strings.Contains(calls, want) {
			t.Errorf("run's calls %s lack %s", calls, want)
		}
	}

	// No change: nothing appended.
	head := idxHead(t, s)
	rep = idxReport(t, s, `{}`)
	if rep.Events != 0 || rep.FilesChanged != 0 || rep.FilesSeen != len(idxFixture) || idxHead(t, s) != head {
		t.Fatalf("no-change index appended: %+v, head %d → %d", rep, head, idxHead(t, s))
	}

	// Edit one function body: only that file is extracted again.
	if err := os.WriteFile(filepath.Join(root, "util/greet.go"), []byte("package util\n\nimport \"fmt\"\n\n// Greet prints a greeting.\nfunc Greet(name string) { fmt.Println(\"hi\", name) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = idxReport(t, s, `{}`)
	evs := idxEventsAfter(t, s, head)
	if rep.FilesChanged != 1 || rep.FilesReextracted != 0 || len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"path":"util/greet.go"`) {
		t.Fatalf("edit of one file: %+v, %d events", rep, len(evs))
	}

	// Delete a file: graph.file_removed, and its function is gone.
	head = idxHead(t, s)
	if err := os.Remove(filepath.Join(root, "hello.go")); err != nil {
		t.Fatal(err)
	}
	rep = idxReport(t, s, `{}`)
	var removed []string
	for _, ev := range idxEventsAfter(t, s, head) {
		if ev.Type == graph.TypeFileRemoved {
			var p graph.FileRemoved
			_ = json.Unmarshal(ev.Data, &p)
			removed = append(removed, p.Path)
		}
	}
	if rep.FilesRemoved != 1 || fmt.Sprint(removed) != "[hello.go]" {
		t.Fatalf("delete: %+v, removed %v", rep, removed)
	}
	if n, ok := s.graph.Node("code:function:hello.go::Привет"); ok {
		t.Fatalf("deleted function still in the graph: %+v", n)
	}
	// main.go called it: it was re-extracted and now calls a stub.
	if rep.FilesReextracted != 1 || !s.graph.HasNode("code:external:Привет") {
		t.Fatalf("caller of the deleted function: %+v", rep)
	}
}

func TestIndex_PathOutsideRootsIsEPath(t *testing.T) {
	root := idxWriteRepo(t, idxFixture)
	outside := idxWriteRepo(t, map[string]string{"x.go": "package x\n"})
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "util"), filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	s := idxOpen(t, t.TempDir(), root)
	cases := []struct {
		name, args, code string
	}{
		{"absolute outside", fmt.Sprintf(`{"path":%q}`, outside), "E_PATH"},
		{"dot-dot", `{"path":"../"}`, "E_PATH"},
		{"escaping symlink", `{"path":"escape"}`, "E_PATH"},
		{"missing", `{"path":"nope"}`, "E_PATH"},
		{"a file", `{"path":"main.go"}`, "E_PATH"},
		{"wrong type", `{"path":3}`, "E_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := idxCall(t, s, "cos_graph_index", c.args)
			if e.OK || e.Error.Code != c.code {
				t.Fatalf("%s: ok=%v code %q (%s), want %s", c.args, e.OK, e.Error.Code, e.Error.Message, c.code)
			}
		})
	}
	if head := idxHead(t, s); head != 0 {
		t.Fatalf("refused indexes appended %d events", head)
	}
	// A symlink that stays inside the root is fine.
	if rep := idxReport(t, s, `{"path":"inside"}`); rep.FilesChanged != 1 {
		t.Fatalf("inside symlink: %+v", rep)
	}
}

func TestIndex_ReadOnlyViewRefuses(t *testing.T) {
	root := idxWriteRepo(t, idxFixture)
	state := t.TempDir()
	s := idxOpen(t, state, root)
	idxReport(t, s, `{}`)
	s.Close()
	at, err := openTestServer(context.Background(), testOptions{StateDir: state, Roots: []string{root}, NATS: "off", At: &projections.Until{Seq: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if e := idxCall(t, at, "cos_graph_index", `{}`); e.OK || e.Error.Code != "E_READ_ONLY" {
		t.Fatalf("index on a point-in-time view: %+v", e)
	}
}
