package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// MaxBodyBytes bounds the JSON body of a write route, in bytes: the
// runner's own bound on a call's arguments (8 MiB) and a little room for
// the path's arguments.
const MaxBodyBytes = 8<<20 + 4096

// CallerName is the client name every write the Hub makes records in
// actor.client (cos_history shows it), followed by the browser's name
// when its User-Agent gives one: "hub (Firefox)".
const CallerName = "hub"

// APIOptions configure NewAPI.
type APIOptions struct {
	// Logger receives the lines of answers that could not be written
	// (nil: discarded).
	Logger *slog.Logger
	// Version is info.version of /api/openapi.json: the build's version
	// ("" reads "dev").
	Version string
	// Auth says a guard in front requires a token: the document then
	// applies its security schemes and lists 401.
	Auth bool
}

// route is one /api route: its method and path, the tool it runs and how
// the request's parts become the tool's arguments.
type route struct {
	method  string
	pattern string // a net/http pattern without the method: "/api/tasks/{id}"
	tool    string
	summary string
	// pathArgs maps a path wildcard to the tool argument it carries.
	pathArgs map[string]string
	// aliases maps a query parameter to the tool argument it names when
	// the two differ ("hops" → "max_hops").
	aliases map[string]string
	// body: the arguments are the JSON body (a write); otherwise the query.
	body bool
	// bodyKeys, when set, are the only body keys accepted (PATCH takes a
	// subset of cos_task_update's arguments: base_revision is If-Match).
	bodyKeys []string
	// created: success is 201 Created with Location of the new task.
	created bool
	// ifMatch: If-Match carries base_revision; a stale one is 412.
	ifMatch bool
	// etag: a success carries ETag "<revision>" of data.task.
	etag bool
	// notFound: the tool answers not_found (404) for an argument the
	// OpenAPI document cannot tell from its name (notFoundParams).
	notFound bool
}

// routes is the route table: NewAPI serves it and the OpenAPI document
// describes it. /api/events, /api/login and /api/session are the Hub's
// own (hub.go), not tool routes.
var routes = []route{
	{method: http.MethodGet, pattern: "/api/board", tool: "cos_task_board", summary: "Task board: tasks in id order, filtered, paged"},
	{method: http.MethodGet, pattern: "/api/tasks/{id}", tool: "cos_task_get", summary: "One task with its revision, hash and coordination",
		pathArgs: map[string]string{"id": "task_id"}, etag: true},
	{method: http.MethodPost, pattern: "/api/tasks", tool: "cos_task_create", summary: "Create a task", body: true, created: true},
	{method: http.MethodPatch, pattern: "/api/tasks/{id}", tool: "cos_task_update", summary: "Update a task; If-Match makes it a compare-and-set",
		pathArgs: map[string]string{"id": "task_id"}, body: true, bodyKeys: []string{"patch", "assignee", "force", "request_id"}, ifMatch: true},
	{method: http.MethodPost, pattern: "/api/tasks/{id}/claim", tool: "cos_task_claim", summary: "Claim a task",
		pathArgs: map[string]string{"id": "task_id"}, body: true, bodyKeys: []string{"assignee", "touches", "request_id"}},
	{method: http.MethodPost, pattern: "/api/tasks/{id}/release", tool: "cos_task_release", summary: "Release a claimed task",
		pathArgs: map[string]string{"id": "task_id"}, body: true, bodyKeys: []string{"assignee", "request_id"}},
	{method: http.MethodGet, pattern: "/api/graph/resolve", tool: "cos_graph_resolve", summary: "Find nodes by uid, path or name, best first", notFound: true},
	{method: http.MethodGet, pattern: "/api/graph/context", tool: "cos_graph_context", summary: "A node, its neighbours and the edges among them",
		aliases: map[string]string{"uid": "uid_or_name"}},
	{method: http.MethodGet, pattern: "/api/graph/impact", tool: "cos_graph_impact", summary: "What depends on a node, by depth"},
	{method: http.MethodGet, pattern: "/api/graph/references", tool: "cos_graph_references", summary: "Every reference to a node"},
	{method: http.MethodGet, pattern: "/api/graph/changes", tool: "cos_graph_changes", summary: "Nodes changed since a git revision and their impact"},
	{method: http.MethodGet, pattern: "/api/graph/export", tool: "cos_graph_export", summary: "A neighbourhood (root and hops) or the best connected nodes, as nodes and edges",
		aliases: map[string]string{"hops": "max_hops"}},
	{method: http.MethodGet, pattern: "/api/graph/overview", tool: "cos_graph_overview", summary: "The graph by package or file: groups with member counts and weighted edges"},
	{method: http.MethodGet, pattern: "/api/graph/source", tool: "cos_graph_source", summary: "A node's source lines (at most 400) from its file"},
	{method: http.MethodGet, pattern: "/api/history", tool: "cos_history", summary: "Events that changed a task, node, file or stream"},
	{method: http.MethodGet, pattern: "/api/evidence/sessions", tool: "cos_evidence_sessions", summary: "Sessions that recorded evidence, newest first, paged"},
	{method: http.MethodGet, pattern: "/api/evidence/sessions/{session_id}", tool: "cos_evidence_bundle", summary: "A session's evidence bundle",
		pathArgs: map[string]string{"session_id": "session_id"}},
	{method: http.MethodGet, pattern: "/api/metrics", tool: "cos_metric_list", summary: "Recorded metrics by name with their latest points"},
	{method: http.MethodGet, pattern: "/api/metrics/query", tool: "cos_metric_query", summary: "One metric aggregated over a time window", notFound: true},
	{method: http.MethodGet, pattern: "/api/tasks/{id}/evidence", tool: "cos_evidence_task", summary: "The evidence records made for a task, newest first, paged",
		pathArgs: map[string]string{"id": "task_id"}},
	{method: http.MethodGet, pattern: "/api/health", tool: "cos_health", summary: "Log head, lag, presence, integrity and index freshness"},
}

// API serves the tool routes of the route table under /api/.
type API struct {
	r       *tools.Runner
	logger  *slog.Logger
	version string
	auth    bool
	mux     *http.ServeMux
	// specs are the tools of the routes, by name (a Tool.HubOnly one
	// included); read-only after NewAPI.
	specs map[string]*tools.Tool
	// doc is /api/openapi.json, built on its first request.
	doc struct {
		once sync.Once
		b    []byte
		err  error
	}
}

// NewAPI returns the handler of every /api route that runs a tool, and of
// /api/openapi.json; any other path under /api/ is a 404 envelope, a known
// path with a method it does not serve a 405 envelope with Allow. The Hub
// mounts it under /api/ beside its own /api/events, /api/login and
// /api/session, which it registers on a more specific pattern.
func NewAPI(r *tools.Runner, o APIOptions) *API {
	a := &API{r: r, logger: o.Logger, version: o.Version, auth: o.Auth, mux: http.NewServeMux(), specs: map[string]*tools.Tool{}}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	if a.version == "" {
		a.version = "dev"
	}
	for _, rt := range routes {
		if t, ok := r.Spec(rt.tool); ok {
			a.specs[t.Name] = t
		}
	}
	byPattern := map[string][]route{}
	var patterns []string
	for _, rt := range routes {
		if _, ok := byPattern[rt.pattern]; !ok {
			patterns = append(patterns, rt.pattern)
		}
		byPattern[rt.pattern] = append(byPattern[rt.pattern], rt)
	}
	for _, p := range patterns {
		a.mux.Handle(p, a.methods(byPattern[p]))
	}
	a.mux.HandleFunc(OpenAPIPath, a.serveOpenAPI)
	a.mux.HandleFunc("/api/", func(w http.ResponseWriter, req *http.Request) {
		writeEnvelope(w, a.logger, http.StatusNotFound, envelope.Fail(envelope.Errorf(envelope.CodeNotFound,
			"no API route is %s; /api/openapi.json lists them", clip(req.URL.Path, 200)).
			WithDetails(map[string]any{"path": clip(req.URL.Path, 200)})))
	})
	return a
}

// ServeHTTP serves the /api routes.
func (a *API) ServeHTTP(w http.ResponseWriter, req *http.Request) { a.mux.ServeHTTP(w, req) }

// serveOpenAPI answers GET /api/openapi.json with the document, built
// once.
func (a *API) serveOpenAPI(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", http.MethodGet)
		writeEnvelope(w, a.logger, http.StatusMethodNotAllowed, envelope.Fail(envelope.Errorf(envelope.CodeArgument,
			"%s does not take %s; it takes GET", OpenAPIPath, clip(req.Method, 20)).
			WithDetails(map[string]any{"method": clip(req.Method, 20), "allow": []string{http.MethodGet}})))
		return
	}
	a.doc.once.Do(func() { a.doc.b, a.doc.err = a.openAPI() })
	if a.doc.err != nil {
		writeEnvelope(w, a.logger, http.StatusInternalServerError, envelope.Fail(envelope.Wrap(a.doc.err, envelope.CodeInternal,
			"the OpenAPI document could not be built")))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if req.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(a.doc.b); err != nil {
		a.logger.Debug("hub: openapi.json not written", "err", err)
	}
}

// methods dispatches one path's routes by method: any other method is 405
// with Allow naming the ones served.
func (a *API) methods(rs []route) http.Handler {
	allow := make([]string, 0, len(rs))
	for _, rt := range rs {
		allow = append(allow, rt.method)
	}
	sort.Strings(allow)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		for _, rt := range rs {
			if req.Method == rt.method || (req.Method == http.MethodHead && rt.method == http.MethodGet) {
				a.serve(w, req, rt)
				return
			}
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeEnvelope(w, a.logger, http.StatusMethodNotAllowed, envelope.Fail(envelope.Errorf(envelope.CodeArgument,
			"%s does not take %s; it takes %s", rs[0].pattern, clip(req.Method, 20), strings.Join(allow, ", ")).
			WithDetails(map[string]any{"method": clip(req.Method, 20), "allow": allow})))
	})
}

// serve runs rt's tool for req and writes its envelope.
func (a *API) serve(w http.ResponseWriter, req *http.Request, rt route) {
	spec, ok := a.specs[rt.tool]
	if !ok {
		// The tool is not in this runner's catalogue: the runner says so
		// (E_UNKNOWN_TOOL), as it would to any caller.
		a.answer(w, req, rt, a.r.Call(req.Context(), rt.tool, nil, envelope.Options{NoBudget: true}))
		return
	}
	path := map[string]string{}
	for wildcard, arg := range rt.pathArgs {
		path[arg] = req.PathValue(wildcard)
	}
	var raw json.RawMessage
	q, aerr := readQuery(req)
	switch {
	case aerr != nil:
	case rt.body && len(q) > 0:
		names := make([]string, 0, len(q))
		for k := range q {
			names = append(names, clip(k, 64))
		}
		sort.Strings(names)
		aerr = envelope.Errorf(envelope.CodeArgument, "%s %s takes its arguments in the JSON body, not the query; got query parameter %s",
			rt.method, rt.pattern, strings.Join(names, ", ")).WithDetails(map[string]any{"field": "query", "unknown": names})
	case rt.body:
		if aerr = jsonContentType(req); aerr != nil {
			writeEnvelope(w, a.logger, http.StatusUnsupportedMediaType, envelope.Fail(aerr))
			return
		}
		body, status, berr := readBody(req)
		if berr != nil {
			writeEnvelope(w, a.logger, status, envelope.Fail(berr))
			return
		}
		raw, aerr = bodyArgs(rt, req, body, path)
	default:
		raw, aerr = queryArgs(spec, rt.aliases, q, path)
	}
	if aerr != nil {
		writeEnvelope(w, a.logger, StatusOf(aerr, false), envelope.Fail(aerr))
		return
	}
	ctx := req.Context()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		ctx = withCaller(ctx, req.UserAgent())
	}
	a.answer(w, req, rt, a.r.Call(ctx, rt.tool, raw, envelope.Options{NoBudget: true}))
}

// answer writes env with the status of its category and rt's headers.
func (a *API) answer(w http.ResponseWriter, req *http.Request, rt route, env envelope.Envelope) {
	e := env.Err()
	if Cancelled(e) || (e != nil && req.Context().Err() != nil) {
		return // the caller went away: nobody reads an answer
	}
	status := StatusOf(e, rt.ifMatch && req.Header.Get("If-Match") != "")
	if e == nil {
		if rev, ok := taskRevision(env); ok {
			if rt.etag {
				w.Header().Set("ETag", strconv.Quote(strconv.FormatUint(rev, 10)))
			}
		}
		if rt.created {
			if id := taskID(env); id != "" {
				w.Header().Set("Location", "/api/tasks/"+url.PathEscape(id))
				status = http.StatusCreated
			}
		}
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfterSeconds)
	}
	if req.Method == http.MethodHead {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		return
	}
	writeEnvelope(w, a.logger, status, env)
}

// taskRevision returns data.task.revision of a success envelope.
func taskRevision(env envelope.Envelope) (uint64, bool) {
	t, _ := env.Data()["task"].(map[string]any)
	switch v := t["revision"].(type) {
	case json.Number:
		n, err := strconv.ParseUint(string(v), 10, 64)
		return n, err == nil
	case float64:
		return uint64(v), v >= 0
	case int:
		return uint64(v), v >= 0
	case int64:
		return uint64(v), v >= 0
	case uint64:
		return v, true
	}
	return 0, false
}

// taskID returns data.task.task_id of a success envelope.
func taskID(env envelope.Envelope) string {
	t, _ := env.Data()["task"].(map[string]any)
	id, _ := t["task_id"].(string)
	return id
}

// writeEnvelope writes env as the JSON body with status.
func writeEnvelope(w http.ResponseWriter, logger *slog.Logger, status int, env envelope.Envelope) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if _, err := w.Write(env.JSON()); err != nil && !errors.Is(err, http.ErrHandlerTimeout) {
		logger.Debug("hub: answer not written", "err", err)
	}
}

// withCaller returns ctx recording the Hub, and the browser the request
// came from, as the client of the writes made under it.
func withCaller(ctx context.Context, userAgent string) context.Context {
	name := CallerName
	if b := browserName(userAgent); b != "" {
		name += " (" + b + ")"
	}
	return state.WithCaller(ctx, state.Caller{Name: name})
}

// browserName returns the product a User-Agent names, most specific
// first ("Edge", "Firefox", "Chrome", "Safari", or its first product
// token such as "curl"); "" when it names none.
func browserName(ua string) string {
	for _, p := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"HeadlessChrome/", "HeadlessChrome"},
		{"Chromium/", "Chromium"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"},
	} {
		if strings.Contains(ua, p.token) {
			return p.name
		}
	}
	first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	first, _, _ = strings.Cut(first, "/")
	return clip(first, 40)
}

// clip returns s cut to at most n bytes on a character boundary, with
// control characters dropped: it is quoted back from the network.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// readBody reads a write route's body, at most MaxBodyBytes: a longer one
// is E_ARGUMENT with status 413, one that cannot be read E_ARGUMENT 400.
func readBody(req *http.Request) ([]byte, int, *envelope.Error) {
	b, err := io.ReadAll(io.LimitReader(req.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, http.StatusBadRequest, envelope.Wrap(err, envelope.CodeArgument, "the request body could not be read: %v", err)
	}
	if len(b) > MaxBodyBytes {
		return nil, http.StatusRequestEntityTooLarge, envelope.Errorf(envelope.CodeArgument, "the request body is over %d bytes", MaxBodyBytes).
			WithDetails(map[string]any{"field": "body", "max_bytes": MaxBodyBytes})
	}
	return b, 0, nil
}

// errorf is E_ARGUMENT about one field of the request.
func errorf(field, format string, args ...any) *envelope.Error {
	return envelope.Errorf(envelope.CodeArgument, "%s", fmt.Sprintf(format, args...)).
		WithDetails(map[string]any{"field": field})
}
