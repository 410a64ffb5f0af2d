package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// specCheck validates live answers against the API's own OpenAPI
// document with kin-openapi: each status must be declared for its route
// and each body must match the declared schema. It records what it saw,
// per route, so a test can ask whether every route answered both a
// success and a failure.
type specCheck struct {
	doc    *openapi3.T
	router routers.Router
	mu     sync.Mutex
	// seen[method+" "+path template] holds the statuses answered.
	seen map[string]map[int]bool
}

// loadSpec fetches /api/openapi.json from base and validates it as an
// OpenAPI 3.1 document.
func loadSpec(tb testing.TB, c *http.Client, base string, header ...string) *specCheck {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, base+OpenAPIPath, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		tb.Fatalf("GET %s: %d %s: %s", OpenAPIPath, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		tb.Fatalf("load the OpenAPI document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		tb.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.IsOpenAPI31OrLater()); err != nil {
		tb.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	// The document's one server is "/", relative to where it is served:
	// the router matches absolute URLs, so it gets that one.
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		tb.Fatalf("servers %v, want the one relative server /", doc.Servers)
	}
	doc.Servers = openapi3.Servers{{URL: base}}
	router, err := legacy.NewRouter(doc, openapi3.IsOpenAPI31OrLater())
	if err != nil {
		tb.Fatal(err)
	}
	return &specCheck{doc: doc, router: router, seen: map[string]map[int]bool{}}
}

// check validates one answer to req.
func (s *specCheck) check(tb testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	tb.Helper()
	if req.Method == http.MethodHead {
		return
	}
	u, _ := url.Parse(req.URL.String())
	r := req.Clone(context.Background())
	r.URL = u
	route, params, err := s.router.FindRoute(r)
	if status == http.StatusMethodNotAllowed && err == nil {
		// 405 is no operation's answer: the path takes other methods
		// (the router matches GET /api/tasks to GET /api/tasks/{id}).
		err = &routers.RouteError{Reason: "method not allowed"}
	}
	if err != nil {
		// No route: the answer must be 404 or 405 with an error envelope.
		var re *routers.RouteError
		if !errors.As(err, &re) || (status != http.StatusNotFound && status != http.StatusMethodNotAllowed) {
			tb.Fatalf("%s %s: no route in the document (%v) and status %d", req.Method, req.URL.Path, err, status)
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			tb.Fatal(err)
		}
		if err := s.doc.Components.Schemas["ErrorEnvelope"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			tb.Fatalf("%s %s: %d body is not an ErrorEnvelope: %v", req.Method, req.URL.Path, status, err)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		tb.Fatalf("%s %s: the %d answer does not match the OpenAPI document: %v\n%s", req.Method, req.URL, status, err, clipBytes(body))
	}
	s.record(route, status)
}

// validate is check's verdict on an answer to a route of the document,
// as an error.
func (s *specCheck) validate(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func (s *specCheck) record(route *routers.Route, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := route.Method + " " + route.Path
	if s.seen[key] == nil {
		s.seen[key] = map[int]bool{}
	}
	s.seen[key][status] = true
}

func clipBytes(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// covered returns the routes of the table that did not answer both a
// success and a failure.
func (s *specCheck) uncovered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, rt := range routes {
		ok, fail := false, false
		for st := range s.seen[rt.method+" "+rt.pattern] {
			ok = ok || st < 300
			fail = fail || st >= 400
		}
		if !ok || !fail {
			out = append(out, rt.method+" "+rt.pattern)
		}
	}
	return out
}

// The document is OpenAPI 3.1 as kin-openapi reads it, describes every
// route of the table with its tool's parameters, and declares the typed
// failures on every operation.
func TestOpenAPI_DocumentDescribesEveryRoute(t *testing.T) {
	e := newAPIEnv(t, false)
	doc := e.spec.doc
	for _, rt := range routes {
		item := doc.Paths.Find(rt.pattern)
		if item == nil {
			t.Errorf("%s: not in paths", rt.pattern)
			continue
		}
		op := item.GetOperation(rt.method)
		if op == nil {
			t.Errorf("%s %s: no operation", rt.method, rt.pattern)
			continue
		}
		want := map[int]bool{400: true, 403: true, 500: true, 503: true, 504: true}
		if rt.body {
			want[409], want[413], want[415] = true, true, true
		}
		if rt.ifMatch {
			want[412] = true
		}
		if len(rt.pathArgs) > 0 {
			want[404] = true
		}
		for _, s := range []int{400, 401, 403, 404, 405, 409, 412, 413, 415, 429, 500, 503, 504} {
			if got := op.Responses.Status(s) != nil; got != want[s] && !(s == 404 || s == 409) {
				t.Errorf("%s %s: %d response declared %v, want %v", rt.method, rt.pattern, s, got, want[s])
			} else if want[s] && !got {
				t.Errorf("%s %s: no %d response", rt.method, rt.pattern, s)
			}
		}
		spec := e.api.specs[rt.tool]
		if spec == nil {
			t.Errorf("%s: no tool %s", rt.pattern, rt.tool)
			continue
		}
		if rt.body {
			if op.RequestBody == nil {
				t.Errorf("%s %s: no request body", rt.method, rt.pattern)
			}
			continue
		}
		for _, p := range spec.Params {
			name := p.Name
			for q, arg := range rt.aliases {
				if arg == p.Name {
					name = q
				}
			}
			if _, isPath := rt.pathArgs[name]; isPath || containsValue(rt.pathArgs, p.Name) {
				continue
			}
			if op.Parameters.GetByInAndName("query", name) == nil {
				t.Errorf("%s %s: query parameter %s missing", rt.method, rt.pattern, name)
			}
		}
	}
	board := doc.Paths.Find("/api/board").Get
	if s := board.Parameters.GetByInAndName("query", "limit").Schema.Value; s.Max == nil || s.Min == nil {
		t.Errorf("board limit: no range: %+v", s)
	}
	if s := board.Parameters.GetByInAndName("query", "status").Schema.Value; s.Items == nil || len(s.Items.Value.Enum) == 0 {
		t.Error("board status: no item enum")
	}
	if s := doc.Paths.Find("/api/graph/export").Get.Parameters.GetByInAndName("query", "edge_types").Schema.Value; s.Items == nil || len(s.Items.Value.Enum) == 0 {
		t.Error("export edge_types: no item enum")
	}
	if doc.Paths.Find("/api/tasks").Post.Responses.Status(201) == nil {
		t.Error("POST /api/tasks: no 201")
	}
	for _, c := range []struct {
		method, path string
		status       int
		declared     bool
	}{
		{"GET", "/api/board", 404, false}, {"GET", "/api/board", 409, true}, {"GET", "/api/health", 404, false},
		{"GET", "/api/health", 409, false}, {"GET", "/api/graph/context", 404, true}, {"GET", "/api/history", 404, true},
		{"POST", "/api/tasks/{id}/claim", 409, true}, {"POST", "/api/tasks/{id}/claim", 412, false},
	} {
		if got := doc.Paths.Find(c.path).GetOperation(c.method).Responses.Status(c.status) != nil; got != c.declared {
			t.Errorf("%s %s: %d declared %v, want %v", c.method, c.path, c.status, got, c.declared)
		}
	}
	// The answers' Go types are shared components: the task of GET
	// /api/tasks/{id} refers to the tasks.Task schema, typed field by field.
	task, ok := doc.Components.Schemas["tasks.Task"]
	if !ok || task.Value.Properties["task_id"] == nil || task.Value.Properties["revision"] == nil {
		t.Fatalf("components.schemas[tasks.Task] = %+v; want the reflected task schema", task)
	}
	get := doc.Paths.Find("/api/tasks/{id}").Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	if ref := get.Properties["data"].Value.Properties["task"].Ref; ref != "#/components/schemas/tasks.Task" {
		t.Errorf("GET /api/tasks/{id} data.task refers to %q, want #/components/schemas/tasks.Task", ref)
	}
	for _, name := range []string{"query.NodeView", "query.EdgeView", "evidence.Bundle"} {
		if s, ok := doc.Components.Schemas[name]; !ok || len(s.Value.Properties) == 0 {
			t.Errorf("components.schemas[%s] missing or untyped", name)
		}
	}
	// Without a token: both schemes declared, none required.
	if doc.Components.SecuritySchemes["bearer"] == nil || doc.Components.SecuritySchemes["cookie"] == nil {
		t.Errorf("security schemes %v; want bearer and cookie", doc.Components.SecuritySchemes)
	}
	if len(doc.Security) != 3 || len(doc.Security[0]) != 0 || doc.Security[1]["bearer"] == nil || doc.Security[2]["cookie"] == nil {
		t.Errorf("security without a token %v; want [{}, bearer, cookie]: none needed", doc.Security)
	}
}

func containsValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

// Every route answered at least one success and one failure in the
// tests of this file's companion (api_test.go), and every one of those
// answers matched the document: run them all on one API and ask.
func TestOpenAPI_LiveAnswersOfEveryRouteValidate(t *testing.T) {
	e := newAPIEnv(t, true)
	run := func(name string, f func(*apiEnv)) {
		t.Run(name, func(t *testing.T) {
			sub := *e
			sub.tb = t
			f(&sub)
		})
	}
	run("tasks", func(e *apiEnv) { exerciseTasks(e) })
	run("graph", func(e *apiEnv) { exerciseGraph(e) })
	run("history-evidence-health", func(e *apiEnv) { exerciseHistoryEvidenceHealth(e) })
	run("task-evidence", func(e *apiEnv) { exerciseTaskEvidence(e) })
	run("unknown", func(e *apiEnv) { exerciseUnknown(e) })
	run("metrics", func(e *apiEnv) { exerciseMetrics(e) })
	e.do(http.MethodGet, OpenAPIPath+"?x=1", "")
	if un := e.spec.uncovered(); len(un) > 0 {
		t.Fatalf("routes without both a validated success and failure: %s", strings.Join(un, "; "))
	}
}

// The document is built once and served with the same bytes.
func TestOpenAPI_ServedCached(t *testing.T) {
	e := newAPIEnv(t, false)
	a := e.do(http.MethodGet, OpenAPIPath, "")
	b := e.do(http.MethodGet, OpenAPIPath, "")
	if a.status != http.StatusOK || !bytes.Equal(a.raw, b.raw) || len(a.raw) < 1000 {
		t.Fatalf("openapi.json: %d, %d bytes, equal %v", a.status, len(a.raw), bytes.Equal(a.raw, b.raw))
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(a.raw, &doc); err != nil || doc.OpenAPI != "3.1.0" || len(doc.Paths) != len(patterns())+1+len(hubOwnPaths(false)) {
		t.Fatalf("openapi %q, %d paths (want %d): %v", doc.OpenAPI, len(doc.Paths), len(patterns())+1+len(hubOwnPaths(false)), err)
	}
	t.Logf("openapi.json: %d bytes, %s paths", len(a.raw), strconv.Itoa(len(doc.Paths)))
}

func patterns() map[string]bool {
	m := map[string]bool{}
	for _, rt := range routes {
		m[rt.pattern] = true
	}
	return m
}

// The validation is not vacuous: answers that break the document are
// caught.
func TestOpenAPI_CheckCatchesMismatches(t *testing.T) {
	e := newAPIEnv(t, false)
	h := http.Header{"Content-Type": {"application/json"}}
	req := func(method, path string) *http.Request {
		r, err := http.NewRequest(method, e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	meta := `"meta":{"layer":"tasks","log_seq":1}`
	for _, c := range []struct {
		name, method, path string
		status             int
		body               string
		ok                 bool
	}{
		{"a good board", "GET", "/api/board", 200, `{"ok":true,"data":{"rows":[],"total":0,"limit":50,"next_cursor":"","walk_log_seq":1,` + meta + `}}`, true},
		{"rows not a list", "GET", "/api/board", 200, `{"ok":true,"data":{"rows":"x",` + meta + `}}`, false},
		{"no meta", "GET", "/api/board", 200, `{"ok":true,"data":{"rows":[]}}`, false},
		{"a failure as 200", "GET", "/api/board", 200, `{"ok":false,"error":{"category":"validation","code":"E_ARGUMENT","message":"m","retryable":false,"details":{}}}`, false},
		{"an undeclared status", "GET", "/api/board", 418, `{"ok":false,"error":{"category":"validation","code":"E_ARGUMENT","message":"m","retryable":false,"details":{}}}`, false},
		{"an unknown code", "GET", "/api/board", 400, `{"ok":false,"error":{"category":"validation","code":"E_MADE_UP","message":"m","retryable":false,"details":{}}}`, false},
		{"a good 412", "PATCH", "/api/tasks/TASK-001", 412, `{"ok":false,"error":{"category":"conflict","code":"STALE_REVISION","message":"m","retryable":false,"details":{"current_revision":2}}}`, true},
	} {
		err := e.spec.validate(req(c.method, c.path), c.status, h, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: validate = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// The Hub's own routes (session, login, the event stream's refusals)
// answer as the document says, through the whole Hub handler with a
// token.
func TestOpenAPI_HubOwnRoutesValidate(t *testing.T) {
	e := newAPIEnv(t, false)
	h, err := New(e.r, e.st, Options{Token: "s3cret-token-for-tests"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	full := *e
	full.srv = srv
	full.http = srv.Client()
	auth := []string{"Authorization", "Bearer s3cret-token-for-tests"}
	full.spec = loadSpec(t, srv.Client(), srv.URL, auth...)
	doc := full.spec.doc
	if len(doc.Security) != 2 || doc.Security[0]["bearer"] == nil || doc.Security[1]["cookie"] == nil {
		t.Errorf("security with a token %v; want bearer or cookie", doc.Security)
	}
	for _, p := range []string{"/api/login", "/api/logout"} {
		if op := doc.Paths.Find(p).Post; op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0]) != 0 {
			t.Errorf("%s security %v; want [{}] (no token needed)", p, op.Security)
		}
	}
	if doc.Paths.Find("/api/board").Get.Responses.Status(401) == nil || doc.Paths.Find("/api/login").Post.Responses.Status(429) == nil {
		t.Error("with a token: /api/board declares no 401 or /api/login no 429")
	}
	full.do(http.MethodGet, "/api/session", "").want(t, http.StatusOK, "")
	full.do(http.MethodPost, "/api/login", `{"token": "s3cret-token-for-tests"}`, "Origin", srv.URL, "Content-Type", "text/plain").
		want(t, http.StatusUnsupportedMediaType, "E_ARGUMENT")
	for range 5 {
		full.do(http.MethodPost, "/api/login", `{"token": "wrong"}`, "Origin", srv.URL).want(t, http.StatusUnauthorized, "E_UNAUTHORIZED")
	}
	full.do(http.MethodPost, "/api/login", `{"token": "wrong"}`, "Origin", srv.URL).want(t, http.StatusTooManyRequests, "E_UNAUTHORIZED")
	h.throttle.ok("127.0.0.1")
	full.do(http.MethodPost, "/api/login", `{"token": "s3cret-token-for-tests"}`, "Origin", srv.URL).want(t, http.StatusOK, "")
	full.do(http.MethodPost, "/api/logout", "", "Origin", srv.URL, "Content-Type", "application/x-www-form-urlencoded").
		want(t, http.StatusUnsupportedMediaType, "E_ARGUMENT")
	full.do(http.MethodPost, "/api/logout", "{}", "Origin", srv.URL).want(t, http.StatusOK, "")
	full.do(http.MethodPost, "/api/logout", "{}", "Origin", "https://evil.example").want(t, http.StatusForbidden, "E_ORIGIN")
	full.do(http.MethodGet, "/api/board", "").want(t, http.StatusUnauthorized, "E_UNAUTHORIZED")
	full.do(http.MethodGet, "/api/board", "", auth...).want(t, http.StatusOK, "")
	full.do(http.MethodGet, "/api/events?since=abc", "", auth...).want(t, http.StatusBadRequest, "")
	full.do(http.MethodPost, "/api/tasks", `{"title": "x"}`, append(auth, "Origin", "https://evil.example")...).want(t, http.StatusForbidden, "")
}
