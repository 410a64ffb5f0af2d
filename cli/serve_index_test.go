package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
)

// startIndexFixture is the repository the start-index tests serve: one
// Python function, Total, committed.
var startIndexFixture = map[string]string{
	"calc.py":   "def Total(a, b):\n    return a + b\n",
	"README.md": "# calc\n\nAdds numbers with Total.\n",
}

// answer is a tool answer as the MCP client reads it: the envelope.
type answer struct {
	OK    bool           `json:"ok"`
	Data  map[string]any `json:"data"`
	Error struct {
		Code      string         `json:"code"`
		Message   string         `json:"message"`
		Retryable bool           `json:"retryable"`
		Details   map[string]any `json:"details"`
	} `json:"error"`
}

// meta is the answer's data.meta.
func (a answer) meta() map[string]any {
	m, _ := a.Data["meta"].(map[string]any)
	return m
}

// answer calls tool over the session and returns its envelope.
func (s *stdioServer) answer(tool, args string) answer {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	l := s.wait(id)
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	var a answer
	if err := json.Unmarshal([]byte(l), &m); err != nil || len(m.Result.Content) == 0 || json.Unmarshal([]byte(m.Result.Content[0].Text), &a) != nil {
		s.t.Fatalf("%s %s: unexpected answer %s", s.name, tool, l)
	}
	return a
}

// startIndexState is cos_health's indexing.state ("" when absent).
func (s *stdioServer) startIndexState() string {
	s.t.Helper()
	h := s.answer("cos_health", `{}`)
	run, _ := h.Data["indexing"].(map[string]any)
	st, _ := run["state"].(string)
	return st
}

// until polls cond every 50 ms until it holds, failing the test after 60 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// holdIndexLock takes the state folder's index lock, as a cos index of
// another process would, until the returned func is called.
func holdIndexLock(t *testing.T, dir string) func() {
	t.Helper()
	lock := flock.New(filepath.Join(dir, state.IndexLockFile))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Unlock() })
	return func() { _ = lock.Unlock() }
}

// indexStarts counts the graph.index_started events of the log in dir.
func indexStarts(t *testing.T, dir string) int {
	t.Helper()
	code, out, errs := run(t, dir, "log", "--json", "--type", "graph.index_started")
	if code != 0 {
		t.Fatalf("cos log: %d %s", code, errs)
	}
	return strings.Count(out, "graph.index_started")
}

func metaIndexState(a answer) string {
	idx, _ := a.meta()["index"].(map[string]any)
	s, _ := idx["state"].(string)
	return s
}

// TestServe_IndexesAtStart_RealProcess: `cos serve --root R` on a fresh
// state folder indexes R in the background, with no cos_graph_index call.
// While the run waits for the index lock (held here, as another cos index
// would hold it) the server answers: cos_health shows the run, a graph
// answer says meta.index.state "indexing", and a not-found says the index
// is about to run. Once the lock is released the graph fills and the state
// goes away.
func TestServe_IndexesAtStart_RealProcess(t *testing.T) {
	g := testutil.GitRepo(t, startIndexFixture)
	dir := t.TempDir()
	release := holdIndexLock(t, dir)
	s := startStdioProcess(t, "server", "--state-dir", dir, "serve", "--nats", "off", "--watch=false", "--stdio", "--root", g.Root)

	until(t, "cos_health shows the start index waiting", func() bool { return s.startIndexState() == "waiting" })
	nf := s.answer("cos_graph_context", `{"uid_or_name": "Total"}`)
	if nf.OK || nf.Error.Code != "E_NOT_FOUND" || !nf.Error.Retryable ||
		!strings.Contains(nf.Error.Message, "the index of "+g.Root+" is about to run") {
		t.Fatalf("a read while the start index waits: %+v", nf.Error)
	}
	for _, tool := range []string{"cos_graph_export"} {
		a := s.answer(tool, `{}`)
		if !a.OK || metaIndexState(a) != "indexing" {
			t.Fatalf("%s while the start index waits: ok %v, meta %v (%+v)", tool, a.OK, a.meta(), a.Error)
		}
	}

	// A list that states its completeness is no "exact" over a graph still
	// filling: a lower bound, for the reason indexing.
	ep := s.answer("cos_graph_entrypoints", `{}`)
	if reasons, _ := ep.meta()["completeness_reasons"].(map[string]any); !ep.OK || ep.meta()["completeness"] != "lower_bound" ||
		reasons["indexing"] != float64(1) {
		t.Fatalf("cos_graph_entrypoints while the start index waits: ok %v, meta %v", ep.OK, ep.meta())
	}

	release()
	until(t, "Total is found", func() bool { return s.answer("cos_graph_context", `{"uid_or_name": "Total"}`).OK })
	until(t, "the start index is over", func() bool { return s.startIndexState() == "" })
	got := s.answer("cos_graph_context", `{"uid_or_name": "Total"}`)
	if idx, _ := got.meta()["index"].(map[string]any); idx["root"] != g.Root || metaIndexState(got) != "" {
		t.Fatalf("meta.index after the start index: %v", got.meta()["index"])
	}
	if ep := s.answer("cos_graph_entrypoints", `{}`); ep.meta()["completeness"] != "exact" {
		t.Fatalf("cos_graph_entrypoints after the start index: meta %v, want exact", ep.meta())
	}
	if n := indexStarts(t, dir); n != 1 {
		t.Fatalf("graph.index_started events: %d, want 1", n)
	}
}

// TestServe_IndexFalse_LeavesGraphEmpty: with --index=false nothing is
// indexed, and a not-found on the empty graph names the tool and the
// command that fill it.
func TestServe_IndexFalse_LeavesGraphEmpty(t *testing.T) {
	g := testutil.GitRepo(t, startIndexFixture)
	dir := t.TempDir()
	s := startStdioProcess(t, "server", "--state-dir", dir, "serve", "--nats", "off", "--watch=false", "--stdio", "--index=false", "--root", g.Root)
	nf := s.answer("cos_graph_context", `{"uid_or_name": "Total"}`)
	for _, want := range []string{`no node matches "Total"`, "the graph is empty: no folder has been indexed yet",
		`cos_graph_index {"path": "` + g.Root + `"}`, "`cos index " + g.Root + "`"} {
		if nf.OK || nf.Error.Code != "E_NOT_FOUND" || !strings.Contains(nf.Error.Message, want) {
			t.Fatalf("not-found on the empty graph: %+v, want it to say %s", nf.Error, want)
		}
	}
	if _, ok := nf.Error.Details["suggestions"]; !ok {
		t.Fatalf("details lost the suggestions: %v", nf.Error.Details)
	}
	// The fixture indexes in far less than a second: a start index would
	// have shown in health or filled the graph by the end of these reads.
	for range 20 {
		h := s.answer("cos_health", `{}`)
		graph, _ := h.Data["graph"].(map[string]any)
		if _, on := h.Data["indexing"]; on || graph["files"] != float64(0) {
			t.Fatalf("--index=false: health shows indexing %v, graph %v", h.Data["indexing"], graph)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = s.in.Close()
	_ = s.cmd.Wait()
	if n := indexStarts(t, dir); n != 0 {
		t.Fatalf("graph.index_started events with --index=false: %d, want 0", n)
	}
}

// TestServe_TwoServers_OneIndex: two servers start on one fresh state
// folder while the index lock is held; both wait. Once it is released one
// indexes and the other finds the folder indexed and does nothing: the log
// holds one graph.index_started.
func TestServe_TwoServers_OneIndex(t *testing.T) {
	g := testutil.GitRepo(t, startIndexFixture)
	dir := t.TempDir()
	release := holdIndexLock(t, dir)
	var servers []*stdioServer
	for _, name := range []string{"first", "second"} {
		s := startStdioProcess(t, name, "--state-dir", dir, "serve", "--nats", "off", "--watch=false", "--stdio", "--root", g.Root)
		until(t, name+" waits to index", func() bool { return s.startIndexState() == "waiting" })
		servers = append(servers, s)
	}
	release()
	for _, s := range servers {
		until(t, s.name+" is done", func() bool { return s.startIndexState() == "" })
		if a := s.answer("cos_graph_context", `{"uid_or_name": "Total"}`); !a.OK {
			t.Fatalf("%s after the start index: %+v", s.name, a.Error)
		}
	}
	if n := indexStarts(t, dir); n != 1 {
		t.Fatalf("graph.index_started events: %d, want 1", n)
	}
	ran, skipped := 0, 0
	for _, s := range servers {
		if strings.Contains(s.errText(), "indexed at start") {
			ran++
		}
		if strings.Contains(s.errText(), "another index run indexed this folder meanwhile") {
			skipped++
		}
	}
	if ran != 1 || skipped != 1 {
		t.Fatalf("servers that indexed: %d, that found it done: %d; want 1 and 1\nfirst:\n%s\nsecond:\n%s",
			ran, skipped, servers[0].errText(), servers[1].errText())
	}
}
