package hub

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/tools"
)

// OpenAPIPath is where the API describes itself.
const OpenAPIPath = "/api/openapi.json"

// errorStatuses are the failure statuses the document describes, each
// answered with an ErrorEnvelope: 401 is the Hub's token check, 413 a
// body over MaxBodyBytes, 415 a write not sent as application/json, 429 a
// throttled login, the rest StatusOf. Each operation lists those its route
// can answer (routeStatuses). 405, a method the path does not take, is
// no operation's.
var errorStatuses = []int{
	http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
	http.StatusConflict, http.StatusPreconditionFailed, http.StatusRequestEntityTooLarge,
	http.StatusUnsupportedMediaType, http.StatusTooManyRequests,
	http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout,
}

// notFoundParams are the tool arguments that name something that may not
// exist: a route taking one (or a path wildcard) can answer 404.
var notFoundParams = []string{"task_id", "uid", "uid_or_name", "root", "path", "under", "session_id", "parent", "depends_on"}

// routeStatuses are the failure statuses rt can answer, ascending: every
// tool route 400, 403 (a foreign origin, a read-only state, a disabled
// module), 500, 503 and 504, 401 and 429 (an address sending wrong
// tokens waits) when a token is required; a body route
// 409 (a reused request id, a claimed task), 413 and 415; a paged read
// 409 (a stale cursor); 404 with a path wildcard or an argument naming a
// task, node, file, folder or session, or marked route.notFound; 412
// under If-Match.
func (a *API) routeStatuses(rt route) []int {
	set := map[int]bool{http.StatusBadRequest: true, http.StatusForbidden: true, http.StatusInternalServerError: true,
		http.StatusServiceUnavailable: true, http.StatusGatewayTimeout: true}
	if a.auth {
		set[http.StatusUnauthorized], set[http.StatusTooManyRequests] = true, true
	}
	if rt.body {
		set[http.StatusConflict], set[http.StatusRequestEntityTooLarge], set[http.StatusUnsupportedMediaType] = true, true, true
	}
	if rt.ifMatch {
		set[http.StatusPreconditionFailed] = true
	}
	if len(rt.pathArgs) > 0 || rt.notFound {
		set[http.StatusNotFound] = true
	}
	if t, ok := a.specs[rt.tool]; ok {
		for _, p := range t.Params {
			switch {
			case p.Name == "cursor":
				set[http.StatusConflict] = true
			case contains(notFoundParams, p.Name):
				set[http.StatusNotFound] = true
			}
		}
	}
	return statusList(set)
}

// statusList is the statuses of set, ascending.
func statusList(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for _, s := range errorStatuses {
		if set[s] {
			out = append(out, s)
		}
	}
	return out
}

// wildcard matches a path wildcard of a route pattern.
var wildcard = regexp.MustCompile(`\{([a-z_]+)\}`)

// openAPI builds the OpenAPI 3.1 document of the route table: each route's
// parameters typed by its tool's Param specs, its request body, its
// success envelope with the tool's Data fields, and the typed failures.
func (a *API) openAPI() ([]byte, error) {
	paths := map[string]any{}
	schemas := map[string]any{}
	for _, rt := range routes {
		item, _ := paths[rt.pattern].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = a.operation(rt, schemas)
	}
	guarded := []int{http.StatusForbidden, http.StatusInternalServerError}
	if a.auth {
		guarded = []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError}
	}
	paths[OpenAPIPath] = map[string]any{"get": map[string]any{
		"operationId": "openapi", "summary": "This document", "tags": []string{"openapi"},
		"responses": withErrors(map[string]any{"200": map[string]any{
			"description": "The OpenAPI 3.1 document of the API",
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"type": "object", "required": []string{"openapi", "info", "paths"}, "additionalProperties": true,
				"properties": map[string]any{"openapi": map[string]any{"type": "string"},
					"info": map[string]any{"type": "object"}, "paths": map[string]any{"type": "object"}}}}},
		}}, guarded),
	}}
	for p, item := range hubOwnPaths(a.auth) {
		paths[p] = item
	}
	codes := make([]string, 0, len(envelope.Catalogue()))
	for _, c := range envelope.Catalogue() {
		codes = append(codes, string(c.Code))
	}
	cats := make([]string, 0, len(envelope.Categories))
	for _, c := range envelope.Categories {
		cats = append(cats, string(c))
	}
	errResponses := map[string]any{}
	for _, s := range errorStatuses {
		r := map[string]any{
			"description": http.StatusText(s) + ": " + statusMeaning[s],
			"content": map[string]any{"application/json": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"}}},
		}
		if s == http.StatusServiceUnavailable || s == http.StatusTooManyRequests {
			r["headers"] = map[string]any{"Retry-After": map[string]any{
				"description": "seconds to wait before trying again", "schema": map[string]any{"type": "integer", "minimum": 1}}}
		}
		errResponses[errorResponseName(s)] = r
	}
	// Without a token nothing is required ({}); a bearer or cookie sent
	// anyway is accepted and ignored.
	security := []any{map[string]any{}, map[string]any{"bearer": []string{}}, map[string]any{"cookie": []string{}}}
	if a.auth {
		security = security[1:]
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "cos Hub API",
			"version": a.version,
			"description": "The Hub's JSON API: every route runs one cos tool and answers its envelope, " +
				"{ok: true, data: {…, meta}} or {ok: false, error: {category, code, message, retryable, details}}, " +
				"with the HTTP status of the failure's category. Read routes take their arguments as query parameters " +
				"(lists repeated or comma-separated) and `at`, a log seq or an RFC 3339 time, to read the state at that point. " +
				"A write sends its JSON body with Content-Type: application/json.\n\n" +
				"Authentication: a server started with a token requires, on every route but /api/login, /api/logout and " +
				"/api/session, either the header `Authorization: Bearer <token>` (scheme `bearer`) or the session cookie " +
				"`" + CookieName + "` that POST /api/login sets for the token (scheme `cookie`: a random session id, " +
				"ended by POST /api/logout or after its idle time, the cookie's Max-Age). Without a token the API is open " +
				"to localhost only and requires neither.",
		},
		"servers":  []any{map[string]any{"url": "/", "description": "the server that serves this document"}},
		"security": security,
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer",
					"description": "the server's token, as given with --token or $COS_HTTP_TOKEN"},
				"cookie": map[string]any{"type": "apiKey", "in": "cookie", "name": CookieName,
					"description": "the session POST /api/login opens; HttpOnly, SameSite=Strict"},
			},
			"schemas": map[string]any{
				"ErrorEnvelope": map[string]any{
					"type": "object", "required": []string{"ok", "error"},
					"properties": map[string]any{
						"ok":    map[string]any{"const": false},
						"error": map[string]any{"$ref": "#/components/schemas/Error"},
					},
				},
				"Error": map[string]any{
					"type":     "object",
					"required": []string{"category", "code", "message", "retryable", "details"},
					"properties": map[string]any{
						"category":  map[string]any{"type": "string", "enum": cats},
						"code":      map[string]any{"type": "string", "enum": codes},
						"message":   map[string]any{"type": "string"},
						"retryable": map[string]any{"type": "boolean"},
						"details":   map[string]any{"type": "object"},
					},
				},
				"Meta": map[string]any{
					"type":     "object",
					"required": []string{envelope.KeyLayer, envelope.KeyLogSeq},
					"properties": map[string]any{
						envelope.KeyLayer:           map[string]any{"type": "string"},
						envelope.KeyLogSeq:          map[string]any{"type": "integer", "minimum": 0},
						envelope.KeyAtSeq:           map[string]any{"type": "integer", "minimum": 0},
						envelope.KeyEventsSinceWalk: map[string]any{"type": "integer", "minimum": 1},
						envelope.KeyWarnings: map[string]any{"type": "array",
							"items": map[string]any{"type": "string"}},
					},
				},
			},
			"responses": errResponses,
		},
	}
	refs := string(mustMarshal(paths))
	for name := range errResponses {
		if !strings.Contains(refs, `"#/components/responses/`+name+`"`) {
			delete(errResponses, name)
		}
	}
	shared := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for k, v := range schemas {
		shared[k] = v
	}
	return json.Marshal(doc)
}

// hubOwnPaths describes the Hub's routes that run no tool (hub.go,
// auth.go, events.go): the event stream, the login, the logout and the
// session. auth: the server requires a token.
func hubOwnPaths(auth bool) map[string]any {
	authData := map[string]any{
		"type": "object", "required": []string{"ok", "data"},
		"properties": map[string]any{
			"ok": map[string]any{"const": true},
			"data": map[string]any{"type": "object", "required": []string{"auth_required", "authenticated"},
				"properties": map[string]any{
					"auth_required": map[string]any{"type": "boolean"},
					"authenticated": map[string]any{"type": "boolean"},
					"meta":          map[string]any{"type": "object"},
				}},
		},
	}
	authOK := func(desc string) map[string]any {
		return map[string]any{"description": desc,
			"content": map[string]any{"application/json": map[string]any{"schema": authData}}}
	}
	str := map[string]any{"type": "string"}
	open := []any{map[string]any{}}
	events := []int{http.StatusBadRequest, http.StatusForbidden, http.StatusInternalServerError, http.StatusServiceUnavailable}
	login := []int{http.StatusBadRequest, http.StatusForbidden, http.StatusUnsupportedMediaType, http.StatusInternalServerError}
	session := []int{http.StatusForbidden, http.StatusInternalServerError}
	if auth {
		events = append(events, http.StatusUnauthorized, http.StatusTooManyRequests)
		login = append(login, http.StatusUnauthorized, http.StatusTooManyRequests)
		session = append(session, http.StatusTooManyRequests)
	}
	return map[string]any{
		"/api/events": map[string]any{"get": map[string]any{
			"operationId": "events", "tags": []string{"events"},
			"summary": "Committed events as server-sent events",
			"description": "A text/event-stream of the events committed to the log, by any process: `event: cos`, `id:` the seq, " +
				"`data:` {seq, id, time, stream, revision, type, actor, request_id, data} (data left out above 16 KB, then data_bytes). " +
				"Last-Event-ID (or since) resumes after that seq with no gap and no duplicate; a comment every 15 s keeps the stream open.",
			"parameters": []any{
				map[string]any{"name": "types", "in": "query", "description": "event types; repeat the parameter or separate values with commas",
					"schema": map[string]any{"type": "array", "items": str}, "style": "form", "explode": true},
				map[string]any{"name": "stream", "in": "query", "schema": str},
				map[string]any{"name": "actor", "in": "query", "schema": str},
				map[string]any{"name": "since", "in": "query", "description": "resume after this seq (as Last-Event-ID)",
					"schema": map[string]any{"type": "integer", "minimum": 0}},
				map[string]any{"name": "Last-Event-ID", "in": "header", "schema": str},
			},
			"responses": withErrors(map[string]any{"200": map[string]any{"description": "The event stream",
				"content": map[string]any{"text/event-stream": map[string]any{"schema": str}}}}, events),
		}},
		"/api/login": map[string]any{"post": map[string]any{
			"operationId": "login", "tags": []string{"session"},
			"summary": "Trade the server's token for an HttpOnly session cookie",
			"description": "The right token opens a session and sets its cookie (Max-Age: the idle time after which it ends). " +
				"After 5 wrong tokens from one address, a login before the wait is over (1 s, doubled with each further " +
				"wrong token, at most 5 min) is 429 with Retry-After, whatever its token.",
			"security": open,
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"type": "object", "required": []string{"token"}, "additionalProperties": false,
				"properties": map[string]any{"token": str}}}}},
			"responses": withErrors(map[string]any{"200": authOK("The token matches; the cookie is set")}, login),
		}},
		"/api/logout": map[string]any{"post": map[string]any{
			"operationId": "logout", "tags": []string{"session"},
			"summary":  "End the request's login session and delete its cookie",
			"security": open,
			"responses": withErrors(map[string]any{"200": authOK("The session is ended (authenticated false)")},
				[]int{http.StatusForbidden, http.StatusUnsupportedMediaType, http.StatusInternalServerError}),
		}},
		"/api/session": map[string]any{"get": map[string]any{
			"operationId": "session", "tags": []string{"session"},
			"summary":   "Whether the API needs a token and whether this request carries a good one",
			"security":  open,
			"responses": withErrors(map[string]any{"200": authOK("The session")}, session),
		}},
	}
}

// statusMeaning says which failures a status carries.
var statusMeaning = map[int]string{
	http.StatusBadRequest:            "a validation failure (bad or unknown argument, malformed cursor, body not JSON)",
	http.StatusUnauthorized:          "the token is missing or wrong",
	http.StatusForbidden:             "permission (a read-only state, a foreign origin) or a disabled module",
	http.StatusNotFound:              "the task, node, session or route does not exist",
	http.StatusConflict:              "a conflict: a stale revision or cursor, a claimed task, a reused request id",
	http.StatusPreconditionFailed:    "If-Match is no longer the task's revision; details carry current_revision and current_hash",
	http.StatusRequestEntityTooLarge: "the body is over the size the route reads",
	http.StatusUnsupportedMediaType:  "the body was not sent with Content-Type: application/json (E_ARGUMENT)",
	http.StatusTooManyRequests:       "too many wrong tokens from this address: retry after Retry-After seconds",
	http.StatusInternalServerError:   "an internal failure (storage, integrity); the server log has the details",
	http.StatusServiceUnavailable:    "unavailable or transient: retry after Retry-After seconds",
	http.StatusGatewayTimeout:        "the request ran out of time",
}

// mustMarshal is v as JSON (v is the document's own maps: it marshals).
func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func errorResponseName(status int) string { return "Error" + strconv.Itoa(status) }

// withErrors adds the typed failures of statuses to an operation's
// responses.
func withErrors(resp map[string]any, statuses []int) map[string]any {
	for _, s := range statuses {
		resp[strconv.Itoa(s)] = map[string]any{"$ref": "#/components/responses/" + errorResponseName(s)}
	}
	return resp
}

// operation is the OpenAPI operation of rt; the Go types its answer names
// are added to schemas, as components its schema refers to.
func (a *API) operation(rt route, schemas map[string]any) map[string]any {
	op := map[string]any{"operationId": operationID(rt), "summary": rt.summary, "tags": []string{tagOf(rt.pattern)}}
	t, ok := a.specs[rt.tool]
	if !ok {
		op["description"] = "Runs " + rt.tool + ", which this server does not have."
		op["responses"] = withErrors(map[string]any{"200": map[string]any{"description": "never"}}, a.routeStatuses(rt))
		return op
	}
	op["description"] = t.Description
	var params []any
	pathArg := map[string]bool{}
	for _, m := range wildcard.FindAllStringSubmatch(rt.pattern, -1) {
		arg := rt.pathArgs[m[1]]
		pathArg[arg] = true
		p, _ := param(t, arg)
		s := paramSchema(p)
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": s})
	}
	alias := map[string]string{}
	for q, arg := range rt.aliases {
		alias[arg] = q
	}
	if !rt.body {
		for _, p := range t.Params {
			if pathArg[p.Name] {
				continue
			}
			name := p.Name
			if q, ok := alias[p.Name]; ok {
				name = q
			}
			qp := map[string]any{"name": name, "in": "query", "schema": paramSchema(p)}
			if p.Required {
				qp["required"] = true
			}
			if d := queryDescription(p); d != "" {
				qp["description"] = d
			}
			if p.Type == tools.TStringList {
				qp["style"], qp["explode"] = "form", true
			}
			params = append(params, qp)
		}
	} else {
		props := map[string]any{}
		var required []string
		for _, p := range t.Params {
			if pathArg[p.Name] || (rt.bodyKeys != nil && !contains(rt.bodyKeys, p.Name)) {
				continue
			}
			props[p.Name] = paramSchema(p)
			if p.Required {
				required = append(required, p.Name)
			}
		}
		body := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			body["required"] = required
		}
		op["requestBody"] = map[string]any{"required": len(required) > 0,
			"content": map[string]any{"application/json": map[string]any{"schema": body}}}
	}
	if rt.ifMatch {
		params = append(params, map[string]any{"name": "If-Match", "in": "header",
			"description": `the task's revision, "7" (the ETag of GET /api/tasks/{id}) or 7: the update is a compare-and-set, 412 when stale`,
			"schema":      map[string]any{"type": "string"}})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	ok200 := map[string]any{
		"description": "The tool's success envelope",
		"content":     map[string]any{"application/json": map[string]any{"schema": successSchema(t, schemas)}},
	}
	status := "200"
	if rt.created {
		status = "201"
		ok200["headers"] = map[string]any{"Location": map[string]any{
			"description": "/api/tasks/{id} of the new task", "schema": map[string]any{"type": "string"}}}
		ok200["description"] = "The task is created: the tool's success envelope"
	}
	if rt.etag {
		ok200["headers"] = map[string]any{"ETag": map[string]any{
			"description": `the task's revision, "7": send it as If-Match with PATCH`, "schema": map[string]any{"type": "string"}}}
	}
	op["responses"] = withErrors(map[string]any{status: ok200}, a.routeStatuses(rt))
	return op
}

// operationID names rt's operation after its tool ("cos_task_get" →
// "task_get").
func operationID(rt route) string { return strings.TrimPrefix(rt.tool, "cos_") }

// tagOf groups routes by the path segment after /api/.
func tagOf(pattern string) string {
	s := strings.TrimPrefix(pattern, "/api/")
	s, _, _ = strings.Cut(s, "/")
	return s
}

// queryDescription is a query parameter's description: the tool's, and
// how a list or `at` is written in a query.
func queryDescription(p tools.Param) string {
	d := p.Description
	add := func(s string) {
		if d != "" {
			d += "; "
		}
		d += s
	}
	switch {
	case p.Type == tools.TStringList:
		add("repeat the parameter or separate values with commas")
	case p.Name == "at":
		add("a log seq (an integer ≥ 0) or an RFC 3339 time: the state at that point")
	}
	return d
}

// successSchema is the success envelope of t: ok true and data holding
// t's Data fields and meta. Each Go type a field names (tasks.Task,
// query.NodeView, evidence.Bundle, …) is a reference to the component
// schema of that name, added to schemas: the same reflected schema as the
// tool's MCP output schema.
func successSchema(t *tools.Tool, schemas map[string]any) map[string]any {
	props := map[string]any{"meta": map[string]any{"$ref": "#/components/schemas/Meta"}}
	keys := make([]string, 0, len(t.Data))
	for k := range t.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props[k] = tools.FieldSchemaRefs(t.Data[k], func(name string) map[string]any {
			id := componentName(name)
			if _, done := schemas[id]; !done {
				s, _ := tools.NamedSchema(name)
				schemas[id] = s
			}
			return map[string]any{"$ref": "#/components/schemas/" + id}
		})
	}
	return map[string]any{
		"type": "object", "required": []string{"ok", "data"},
		"properties": map[string]any{
			"ok":   map[string]any{"const": true},
			"data": map[string]any{"type": "object", "required": []string{"meta"}, "properties": props},
		},
	}
}

// componentName is the component schema name of the registered Go type
// name: "tasks.Task" as it is, any character a component name may not
// hold as "_", and a name the document's own schemas use prefixed "T_".
func componentName(name string) string {
	id := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	switch id {
	case "ErrorEnvelope", "Error", "Meta":
		id = "T_" + id
	}
	return id
}

// paramSchema is the JSON Schema of one tool argument: its type, enum
// (shared vocabularies included), range, length and default.
func paramSchema(p tools.Param) map[string]any {
	s := map[string]any{}
	if p.Default != nil {
		s["default"] = p.Default
	}
	bound := func(k string, f *float64) {
		if f != nil {
			s[k] = *f
		}
	}
	switch p.Type {
	case tools.TString:
		s["type"] = "string"
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
		if p.MaxLen > 0 {
			s["maxLength"] = p.MaxLen
		}
	case tools.TInt:
		s["type"] = "integer"
		bound("minimum", p.Min)
		bound("maximum", p.Max)
	case tools.TNumber:
		s["type"] = "number"
		bound("minimum", p.Min)
		bound("maximum", p.Max)
	case tools.TBool:
		s["type"] = "boolean"
	case tools.TStringList:
		item := map[string]any{"type": "string"}
		if len(p.Enum) > 0 {
			item["enum"] = p.Enum
		}
		s["type"], s["items"] = "array", item
		if p.MaxLen > 0 {
			s["maxItems"] = p.MaxLen
		}
	case tools.TObject:
		s["type"] = "object"
	case tools.TObjectList:
		s["type"], s["items"] = "array", map[string]any{"type": "object"}
	default:
		types := p.JSONTypes
		if len(types) == 0 {
			types = []string{"object", "array", "string", "number", "boolean"}
		}
		s["type"] = types
	}
	if p.Description != "" && p.Type != tools.TStringList && p.Name != "at" {
		s["description"] = p.Description
	}
	return s
}
