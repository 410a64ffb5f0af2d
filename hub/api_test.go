package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// apiEnv is the API over a real state folder (bbolt log, projections,
// search), a real runner and an indexed git repository, served by a
// real HTTP server.
type apiEnv struct {
	tb   testing.TB
	st   *state.State
	r    *tools.Runner
	api  *API
	git  *testutil.Git
	srv  *httptest.Server
	http *http.Client
	// spec validates every answer against /api/openapi.json.
	spec *specCheck
}

// answer is one HTTP answer of the API.
type answer struct {
	status int
	header http.Header
	raw    []byte
	env    testutil.Envelope
}

func newAPIEnv(tb testing.TB, index bool) *apiEnv {
	tb.Helper()
	ctx := context.Background()
	g := testutil.GitRepo(tb, testutil.DemoRepo)
	st, err := state.Open(ctx, state.Options{Dir: tb.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close(context.Background()) })
	ix, err := indexing.New(st, indexing.Options{Roots: []string{g.Root}})
	if err != nil {
		tb.Fatal(err)
	}
	r := tools.New(st, ix, tools.Options{Version: "test"})
	if index {
		env := r.Call(ctx, "cos_graph_index", mustJSON(tb, map[string]any{"path": g.Root}), envelope.Options{NoBudget: true})
		if !env.OK() {
			tb.Fatalf("index: %s", env.JSON())
		}
	}
	api := NewAPI(r, APIOptions{Version: "test"})
	srv := httptest.NewServer(api)
	tb.Cleanup(srv.Close)
	return &apiEnv{tb: tb, st: st, r: r, api: api, git: g, srv: srv, http: srv.Client(), spec: loadSpec(tb, srv.Client(), srv.URL)}
}

func mustJSON(tb testing.TB, v any) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// do sends one request; body "" sends none; header pairs are name, value.
func (e *apiEnv) do(method, path, body string, header ...string) answer {
	e.tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.http.Do(req)
	if err != nil {
		e.tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.tb.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	e.spec.check(e.tb, req, a.status, a.header, raw)
	if method != http.MethodHead && len(raw) > 0 {
		if err := json.Unmarshal(raw, &a.env); err != nil {
			e.tb.Fatalf("%s %s: body is not JSON (%v): %s", method, path, err, raw)
		}
	}
	return a
}

// want fails unless a has status and, for a failure, code.
func (a answer) want(tb testing.TB, status int, code string) answer {
	tb.Helper()
	if a.status != status || (code != "" && a.env.Error.Code != code) {
		tb.Fatalf("status %d code %q, want %d %q: %s", a.status, a.env.Error.Code, status, code, a.raw)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		tb.Fatalf("Content-Type %q, want application/json", ct)
	}
	if status < 300 && !a.env.OK {
		tb.Fatalf("status %d with a failure envelope: %s", status, a.raw)
	}
	if status >= 400 && a.env.OK {
		tb.Fatalf("status %d with a success envelope: %s", status, a.raw)
	}
	return a
}

// data returns data.key of a success answer.
func (a answer) data(key string) any { return a.env.Data[key] }

// createTask creates a task over the API and returns its id.
func (e *apiEnv) createTask(title string) string {
	e.tb.Helper()
	a := e.do(http.MethodPost, "/api/tasks", `{"title": `+strconv.Quote(title)+`}`).want(e.tb, http.StatusCreated, "")
	id := a.data("task").(map[string]any)["task_id"].(string)
	if loc := a.header.Get("Location"); loc != "/api/tasks/"+id {
		e.tb.Fatalf("Location %q, want /api/tasks/%s", loc, id)
	}
	return id
}

// greetUID resolves the demo repository's Greet function over the API.
func (e *apiEnv) greetUID() string {
	e.tb.Helper()
	a := e.do(http.MethodGet, "/api/graph/resolve?q=Greet&kinds=function,method&limit=3", "").want(e.tb, http.StatusOK, "")
	res := a.data("results").([]any)
	return res[0].(map[string]any)["uid"].(string)
}

func TestStatusOf_EveryCodeByCategory(t *testing.T) {
	want := map[envelope.Category]int{
		envelope.CategoryValidation:     http.StatusBadRequest,
		envelope.CategoryPermission:     http.StatusForbidden,
		envelope.CategoryModuleDisabled: http.StatusForbidden,
		envelope.CategoryNotFound:       http.StatusNotFound,
		envelope.CategoryConflict:       http.StatusConflict,
		envelope.CategoryUnavailable:    http.StatusServiceUnavailable,
		envelope.CategoryTransient:      http.StatusServiceUnavailable,
		envelope.CategoryInternal:       http.StatusInternalServerError,
	}
	for _, cat := range envelope.Categories {
		if _, ok := want[cat]; !ok {
			t.Errorf("category %s has no status in this test", cat)
		}
	}
	for _, spec := range envelope.Catalogue() {
		got := StatusOf(envelope.Errorf(spec.Code, "x"), false)
		w := want[spec.Category]
		if spec.Code == envelope.CodeTimeout {
			w = http.StatusGatewayTimeout
		}
		if got != w {
			t.Errorf("%s (%s): status %d, want %d", spec.Code, spec.Category, got, w)
		}
	}
	stale := envelope.Errorf(envelope.CodeStaleRevision, "x").WithDetails(map[string]any{"current_revision": 3, "current_hash": "h"})
	for _, c := range []struct {
		e       *envelope.Error
		ifMatch bool
		want    int
	}{
		{nil, false, http.StatusOK},
		{stale, true, http.StatusPreconditionFailed},
		{stale, false, http.StatusConflict},
		{envelope.Errorf(envelope.CodeStaleRevision, "a cycle"), true, http.StatusConflict},
		{&envelope.Error{Code: "E_NEVER_HEARD_OF", Category: "strange"}, false, http.StatusInternalServerError},
	} {
		if got := StatusOf(c.e, c.ifMatch); got != c.want {
			t.Errorf("StatusOf(%v, %v) = %d, want %d", c.e, c.ifMatch, got, c.want)
		}
	}
	if !Cancelled(envelope.Errorf(envelope.CodeCancelled, "x")) || Cancelled(nil) {
		t.Error("Cancelled: wrong answer")
	}
}

func TestAPI_TaskRoutes(t *testing.T) { exerciseTasks(newAPIEnv(t, false)) }

// exerciseTasks drives every task route to a success and its failures.
func exerciseTasks(e *apiEnv) {
	t := e.tb
	id := e.createTask("write the hub")
	other := e.createTask("second")

	// board: filters, paging, at, conversions.
	a := e.do(http.MethodGet, "/api/board?limit=1", "").want(t, http.StatusOK, "")
	if rows := a.data("rows").([]any); len(rows) != 1 || a.data("next_cursor") == "" {
		t.Fatalf("board limit=1: %s", a.raw)
	}
	next := a.data("next_cursor").(string)
	a = e.do(http.MethodGet, "/api/board?limit=1&cursor="+url.QueryEscape(next), "").want(t, http.StatusOK, "")
	if rows := a.data("rows").([]any); len(rows) != 1 || rows[0].(map[string]any)["task_id"] != other {
		t.Fatalf("board page 2: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/board?status=todo&at=1", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/board?limit=abc", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/board?limit=0", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/board?status=nonsense", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/board?cursor=garbage", "").want(t, http.StatusBadRequest, "E_CURSOR")
	a = e.do(http.MethodGet, "/api/board?colour=red", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	if !strings.Contains(a.env.Error.Message, "colour") {
		t.Errorf("unknown parameter: the message does not name it: %s", a.raw)
	}
	a = e.do(http.MethodGet, "/api/board?limit=1&limit=2", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	if a.env.Error.Details["field"] != "limit" {
		t.Errorf("a repeated scalar: details %v", a.env.Error.Details)
	}

	// get: ETag is the revision; at reads the past.
	a = e.do(http.MethodGet, "/api/tasks/"+id, "").want(t, http.StatusOK, "")
	task := a.data("task").(map[string]any)
	if got, want := a.header.Get("ETag"), `"`+num(task["revision"])+`"`; got != want {
		t.Fatalf("ETag %s, want %s", got, want)
	}
	e.do(http.MethodGet, "/api/tasks/TASK-999", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
	e.do(http.MethodGet, "/api/tasks/"+id+"?at=0", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
	e.do(http.MethodGet, "/api/tasks/"+id+"?task_id=TASK-002", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	// create: the tool's own validation.
	e.do(http.MethodPost, "/api/tasks", `{"title": ""}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `{"title": "x", "owner": "me"}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `{"title": `).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `[1]`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `{"title": "x"}`, "Content-Type", "text/plain").want(t, http.StatusUnsupportedMediaType, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `{"title": "x"}`, "Content-Type", "").want(t, http.StatusUnsupportedMediaType, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks", `{"title": "fix \u202etxt.exe"}`).want(t, http.StatusBadRequest, "E_ARGUMENT")

	// claim and release.
	e.do(http.MethodPost, "/api/tasks/"+id+"/claim", `{"assignee": "ana"}`).want(t, http.StatusOK, "")
	e.do(http.MethodPost, "/api/tasks/"+id+"/claim", `{"assignee": "bob"}`).want(t, http.StatusConflict, "E_CLAIMED")
	e.do(http.MethodPost, "/api/tasks/"+id+"/release", `{"assignee": "bob"}`).want(t, http.StatusConflict, "E_CLAIMED")
	e.do(http.MethodPost, "/api/tasks/"+id+"/release", `{"assignee": "ana", "request_id": "rel-1"}`).want(t, http.StatusOK, "")
	e.do(http.MethodPost, "/api/tasks/"+id+"/claim", `{"assignee": "ana", "task_id": "TASK-002"}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks/"+id+"/claim", `{}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPost, "/api/tasks/TASK-999/claim", `{"assignee": "ana"}`).want(t, http.StatusNotFound, "E_NOT_FOUND")
	exercisePatch(e)
}

func num(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	return ""
}

// A PATCH under If-Match is a compare-and-set: the current revision
// passes, a stale one is 412 with the task's current revision and hash in
// the details.
func TestAPI_PatchIfMatch_Stale412(t *testing.T) { exercisePatch(newAPIEnv(t, false)) }

func exercisePatch(e *apiEnv) {
	t := e.tb
	id := e.createTask("cas me")
	get := e.do(http.MethodGet, "/api/tasks/"+id, "").want(t, http.StatusOK, "")
	etag := get.header.Get("ETag")

	a := e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "first"}}`, "If-Match", etag).want(t, http.StatusOK, "")
	cur := a.data("task").(map[string]any)
	if num(cur["revision"]) == strings.Trim(etag, `"`) {
		t.Fatalf("the revision did not move: %s", a.raw)
	}

	a = e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "second"}}`, "If-Match", etag).
		want(t, http.StatusPreconditionFailed, "STALE_REVISION")
	d := a.env.Error.Details
	if num(d["current_revision"]) != num(cur["revision"]) || d["current_hash"] != cur["hash"] {
		t.Fatalf("412 details %v, want current_revision %v and current_hash %v", d, cur["revision"], cur["hash"])
	}
	// The bare number is an If-Match too; W/ is tolerated.
	e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "third"}}`, "If-Match", num(cur["revision"])).want(t, http.StatusOK, "")
	// A malformed If-Match, or base_revision in the body, is refused.
	a = e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "x"}}`, "If-Match", `"seven"`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	if a.env.Error.Details["field"] != "If-Match" {
		t.Errorf("details %v", a.env.Error.Details)
	}
	e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "x"}, "base_revision": 1}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	// An empty If-Match (an unset $ETAG) is refused, not read as no
	// condition; so is a key twice inside the patch.
	e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "x"}}`, "If-Match", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	a = e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"priority": "low", "priority": "critical"}}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	if a.env.Error.Details["field"] != "patch.priority" {
		t.Errorf("nested duplicate key: details %v, want field patch.priority", a.env.Error.Details)
	}
	// A key sent twice is refused, not decided by the decoder (the last won).
	a = e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"title": "x"}, "patch": {"title": "y"}}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	if a.env.Error.Details["field"] != "patch" {
		t.Errorf("duplicate key: details %v, want field patch", a.env.Error.Details)
	}
	// Without If-Match a stale revision cannot happen; a bad patch is 400.
	e.do(http.MethodPatch, "/api/tasks/"+id, `{"patch": {"colour": "red"}}`).want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodPatch, "/api/tasks/TASK-404", `{"patch": {"title": "x"}}`).want(t, http.StatusNotFound, "E_NOT_FOUND")
	// Nothing of the refused writes landed.
	final := e.do(http.MethodGet, "/api/tasks/"+id, "").want(t, http.StatusOK, "").data("task").(map[string]any)
	if final["title"] != "third" {
		t.Fatalf("title %v, want third", final["title"])
	}
}

// A write through the Hub records the client "hub" and the browser the
// request names, which the history shows.
func TestAPI_WritesRecordTheHubAsClient(t *testing.T) {
	e := newAPIEnv(t, false)
	a := e.do(http.MethodPost, "/api/tasks", `{"title": "by browser"}`,
		"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0").want(t, http.StatusCreated, "")
	id := a.data("task").(map[string]any)["task_id"].(string)
	h := e.do(http.MethodGet, "/api/history?task_id="+id, "").want(t, http.StatusOK, "")
	evs := h.data("events").([]any)
	if len(evs) == 0 {
		t.Fatalf("no history: %s", h.raw)
	}
	actor := evs[len(evs)-1].(map[string]any)["actor"].(map[string]any)
	if actor["client"] != "hub (Firefox)" {
		t.Fatalf("actor %v, want client hub (Firefox)", actor)
	}
}

func TestAPI_GraphRoutes(t *testing.T) { exerciseGraph(newAPIEnv(t, true)) }

func exerciseGraph(e *apiEnv) {
	t := e.tb
	uid := e.greetUID()
	q := url.QueryEscape(uid)

	e.do(http.MethodGet, "/api/graph/resolve?q=Greet", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/graph/resolve", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/graph/resolve?q=Greet&kinds=planet", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	a := e.do(http.MethodGet, "/api/graph/context?uid="+q+"&depth=2&edge_types=calls,contains", "").want(t, http.StatusOK, "")
	if a.data("node").(map[string]any)["uid"] != uid {
		t.Fatalf("context: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/graph/context?uid_or_name="+q, "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/graph/context?uid="+q+"&uid_or_name="+q, "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/graph/context?uid="+q+"&depth=9", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/graph/context?uid=func:nowhere.Nothing", "").want(t, http.StatusNotFound, "E_NOT_FOUND")

	e.do(http.MethodGet, "/api/graph/impact?uid="+q+"&depth=2", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/graph/impact?uid="+q+"&depth=two", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	e.do(http.MethodGet, "/api/graph/references?uid="+q+"&kinds=calls&kinds=references", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/graph/references?uid="+q+"&include_tests=maybe", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	e.do(http.MethodGet, "/api/graph/changes?base=HEAD&depth=1", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/graph/changes?base=no-such-revision", "").want(t, http.StatusBadRequest, "")

	a = e.do(http.MethodGet, "/api/graph/export?root="+q+"&hops=1&max_nodes=50&edge_types=calls,contains", "").want(t, http.StatusOK, "")
	if _, ok := a.data("nodes").([]any); !ok {
		t.Fatalf("export: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/graph/export?max_nodes=0", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	a = e.do(http.MethodGet, "/api/graph/source?uid="+q, "").want(t, http.StatusOK, "")
	lines := a.data("lines").([]any)
	if len(lines) == 0 || !strings.Contains(strings.Join(toStrings(lines), "\n"), "func Greet") {
		t.Fatalf("source: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/graph/source?uid="+q+"&max_lines=401", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/graph/source?uid=func:nowhere.Nothing", "").want(t, http.StatusNotFound, "E_NOT_FOUND")

	a = e.do(http.MethodGet, "/api/graph/overview?level=file&limit=50", "").want(t, http.StatusOK, "")
	if groups, _ := a.data("groups").([]any); len(groups) == 0 {
		t.Fatalf("overview: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/graph/overview?level=symbol", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/graph/overview?under=nowhere", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
}

func toStrings(l []any) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i], _ = v.(string)
	}
	return out
}

func TestAPI_HistoryEvidenceHealth(t *testing.T) { exerciseHistoryEvidenceHealth(newAPIEnv(t, false)) }

func exerciseHistoryEvidenceHealth(e *apiEnv) {
	t := e.tb
	id := e.createTask("traced")
	a := e.do(http.MethodGet, "/api/history?task_id="+id+"&limit=10", "").want(t, http.StatusOK, "")
	if evs := a.data("events").([]any); len(evs) != 1 {
		t.Fatalf("history: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/history?task_id="+id+"&uid=x", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/history?limit=-1", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	ctx := context.Background()
	for _, s := range []string{"sess-a", "sess-b", "sess-c"} {
		env := e.r.Call(ctx, "cos_supervise_record_output", json.RawMessage(`{"session_id": "`+s+`", "kind": "discovery", "output": {"summary": "found it"}}`), envelope.Options{})
		if !env.OK() {
			t.Fatalf("record: %s", env.JSON())
		}
	}
	a = e.do(http.MethodGet, "/api/evidence/sessions?limit=2", "").want(t, http.StatusOK, "")
	page := a.data("sessions").([]any)
	if len(page) != 2 || page[0].(map[string]any)["session_id"] != "sess-c" || num(a.data("total")) != "3" {
		t.Fatalf("sessions page 1: %s", a.raw)
	}
	// A session recorded while paging does not shift the next page.
	if env := e.r.Call(ctx, "cos_supervise_record_output", json.RawMessage(`{"session_id": "sess-d", "kind": "backtrack", "output": {"reason": "r"}}`), envelope.Options{}); !env.OK() {
		t.Fatalf("record: %s", env.JSON())
	}
	a = e.do(http.MethodGet, "/api/evidence/sessions?limit=2&cursor="+url.QueryEscape(a.data("next_cursor").(string)), "").want(t, http.StatusOK, "")
	page = a.data("sessions").([]any)
	if len(page) != 1 || page[0].(map[string]any)["session_id"] != "sess-a" || a.data("next_cursor") != "" {
		t.Fatalf("sessions page 2: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/evidence/sessions?cursor=nope", "").want(t, http.StatusBadRequest, "E_CURSOR")
	e.do(http.MethodGet, "/api/evidence/sessions?limit=501", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	a = e.do(http.MethodGet, "/api/evidence/sessions/sess-a", "").want(t, http.StatusOK, "")
	if a.data("bundle").(map[string]any)["session_id"] != "sess-a" {
		t.Fatalf("bundle: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/evidence/sessions/sess-zzz", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
	e.do(http.MethodGet, "/api/evidence/sessions/bad%20id", "").want(t, http.StatusBadRequest, "")

	a = e.do(http.MethodGet, "/api/health", "").want(t, http.StatusOK, "")
	e.do(http.MethodGet, "/api/health?verbose=1", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	// A module switched off is 403.
	if err := state.SetModule(e.st.Dir(), "evidence", false); err != nil {
		t.Fatal(err)
	}
	e.do(http.MethodGet, "/api/evidence/sessions", "").want(t, http.StatusForbidden, "E_MODULE_DISABLED")
}

func TestAPI_UnknownPathAndMethod(t *testing.T) { exerciseUnknown(newAPIEnv(t, false)) }

func exerciseUnknown(e *apiEnv) {
	t := e.tb
	e.do(http.MethodGet, "/api/nothing/here", "").want(t, http.StatusNotFound, "E_NOT_FOUND")
	e.do(http.MethodGet, "/api/tasks", "").want(t, http.StatusMethodNotAllowed, "E_ARGUMENT")
	a := e.do(http.MethodDelete, "/api/tasks/TASK-001", "").want(t, http.StatusMethodNotAllowed, "E_ARGUMENT")
	if got := a.header.Get("Allow"); got != "GET, PATCH" {
		t.Fatalf("Allow %q, want GET, PATCH", got)
	}
	a = e.do(http.MethodPost, "/api/board", `{}`).want(t, http.StatusMethodNotAllowed, "E_ARGUMENT")
	if got := a.header.Get("Allow"); got != "GET" {
		t.Fatalf("Allow %q, want GET", got)
	}
	e.do(http.MethodPost, OpenAPIPath, `{}`).want(t, http.StatusMethodNotAllowed, "E_ARGUMENT")
	if a := e.do(http.MethodHead, "/api/health", ""); a.status != http.StatusOK || len(a.raw) != 0 {
		t.Fatalf("HEAD: %d %q", a.status, a.raw)
	}
}

// The tools of the Hub alone are neither listed nor callable with an
// agent budget: MCP never sees them.
func TestRunner_HubOnlyToolsStayOffMCP(t *testing.T) {
	e := newAPIEnv(t, false)
	for _, name := range []string{"cos_evidence_sessions", "cos_graph_source", "cos_metric_list", "cos_evidence_task", "cos_graph_overview"} {
		if e.r.Has(name) {
			t.Errorf("Has(%s) = true", name)
		}
		for _, tl := range e.r.Tools() {
			if tl.Name == name {
				t.Errorf("Tools() lists %s", name)
			}
		}
		if env := e.r.Call(context.Background(), name, nil, envelope.Options{}); env.Err() == nil || env.Err().Code != envelope.CodeUnknownTool {
			t.Errorf("%s with an agent budget: %s", name, env.JSON())
		}
		if _, ok := e.r.Spec(name); !ok {
			t.Errorf("Spec(%s) missing", name)
		}
	}
}

// A node's source is read only inside the indexed folder: a symbolic
// link that leads out is E_PATH and nothing of the outside file is shown
// (a path with .. never reaches the graph: cos_graph_upsert refuses it).
func TestAPI_GraphSourceStaysInsideTheIndexedFolder(t *testing.T) {
	e := newAPIEnv(t, true)
	outside := t.TempDir() + "/secret.txt"
	if err := os.WriteFile(outside, []byte("the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.git.Root+"/link.go"); err != nil {
		t.Fatal(err)
	}
	nodes := []map[string]any{
		{"uid": "code:function:link.go::via", "kind": "function", "label": "via", "path": "link.go", "line": 1},
	}
	env := e.r.Call(context.Background(), "cos_graph_upsert", mustJSON(t, map[string]any{"nodes": nodes}), envelope.Options{NoBudget: true})
	if !env.OK() {
		t.Fatalf("upsert: %s", env.JSON())
	}
	for _, uid := range []string{"code:function:link.go::via"} {
		a := e.do(http.MethodGet, "/api/graph/source?uid="+url.QueryEscape(uid), "").want(t, http.StatusBadRequest, "E_PATH")
		if strings.Contains(string(a.raw), "the secret") {
			t.Fatalf("%s: the outside file leaked: %s", uid, a.raw)
		}
	}
}

// FuzzQueryArgs: whatever the query, the conversion answers a JSON
// object of arguments or an E_ARGUMENT naming a field, and never panics.
func FuzzQueryArgs(f *testing.F) {
	for _, s := range []string{"limit=5", "kinds=a,b&kinds=c", "at=12", "at=2026-01-01T00:00:00Z", "limit=1&limit=2",
		"depth=x", "%zz", "force=maybe", "uid=a&uid_or_name=b", "since={\"a\":1}"} {
		f.Add(s)
	}
	var specs []*tools.Tool
	for _, name := range []string{"cos_task_board", "cos_graph_context", "cos_graph_references", "cos_history", "cos_graph_export"} {
		for _, t := range tools.Catalogue() {
			if t.Name == name {
				specs = append(specs, t)
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, spec := range specs {
			args, aerr := queryArgs(spec, map[string]string{"uid": "uid_or_name"}, q, nil)
			if aerr != nil {
				if aerr.Code != envelope.CodeArgument || aerr.Details["field"] == nil {
					t.Fatalf("%s %q: %v", spec.Name, raw, aerr)
				}
				continue
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(args, &obj); err != nil {
				t.Fatalf("%s %q: %s is not a JSON object: %v", spec.Name, raw, args, err)
			}
		}
	})
}

// FuzzIfMatch: a revision or a clear E_ARGUMENT, never a panic.
func FuzzIfMatch(f *testing.F) {
	for _, s := range []string{`"7"`, `7`, `W/"7"`, `*`, `""`, `"-1"`, `"18446744073709551616"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		n, err := parseIfMatch(h)
		if err != nil && (err.Code != envelope.CodeArgument || err.Details["field"] != "If-Match") {
			t.Fatalf("%q: %v", h, err)
		}
		if err == nil && n == 0 && strings.TrimSpace(h) != "*" {
			t.Fatalf("%q: revision 0 without *", h)
		}
	})
}
