package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/query"
)

// Size limits of one cos_graph_upsert or cos_graph_delete call.
const (
	writeMaxNodes = 10000
	writeMaxEdges = 50000
	// writeChunk is how many nodes or edges go in one event, keeping typical
	// events well under the log's 1 MiB event limit.
	writeChunk = 2000
)

// writeReceipt is the part of the log's receipt a write tool reports.
type writeReceipt struct {
	Stream   string `json:"stream"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Replayed bool   `json:"replayed"`
}

func receiptOf(r eventlog.Receipt) writeReceipt {
	return writeReceipt{Stream: r.Stream, FirstSeq: r.FirstSeq, LastSeq: r.LastSeq, Replayed: r.Replayed}
}

// deletedView is the shape of cos_graph_delete's data.deleted, for its
// schema: the nodes, edges and files the delete named.
type deletedView struct {
	UIDs  []string         `json:"uids"`
	Edges []query.EdgeView `json:"edges"`
	Files []string         `json:"files"`
}

func graphWriteTools() []*Tool {
	return []*Tool{
		{
			Name:        "cos_graph_upsert",
			Title:       "Write nodes and edges",
			Description: "Add or replace nodes and edges; a uid looks like code:function:a.go::run.",
			Data:        Fields{"receipt": typ(writeReceipt{}), "written": typ(map[string]int{}), "uids": "[]string", "graph": typ(projections.GraphCounts{}), "edges_gone": "integer"},
			Module:      "graph", Layer: envelope.LayerGraph, Idempotent: true,
			Example: `{"nodes": [{"uid": "code:function:a.go::run", "kind": "function", "label": "run", "path": "a.go", "line": 3}], ` +
				`"edges": [{"source": "code:file:a.go", "target": "code:function:a.go::run", "type": "contains"}], "request_id": "ext-42"}`,
			Params: []Param{
				{Name: "nodes", Type: TObjectList, MaxLen: writeMaxNodes, Description: "{uid, kind, label, path, line, end_line, metadata}"},
				{Name: "edges", Type: TObjectList, MaxLen: writeMaxEdges, Description: "{source, target, type, line, metadata}"},
				requestIDParam,
			},
			Handler: upsertTool,
		},
		{
			Name:        "cos_graph_delete",
			Title:       "Delete nodes and edges",
			Description: "Delete nodes (with their edges) and edges; if one is missing, E_NOT_FOUND and none is.",
			Data:        Fields{"receipt": typ(writeReceipt{}), "deleted": typ(deletedView{}), "graph": typ(projections.GraphCounts{}), "remaining": "[]string"},
			Module:      "graph", Layer: envelope.LayerGraph, Destructive: true, Idempotent: true,
			Example: `{"uids": ["code:function:a.go::run"], "edges": [{"source": "code:file:a.go", "target": "code:function:a.go::old", "type": "contains"}]}`,
			Params: []Param{
				{Name: "uids", Type: TStringList, NonEmpty: true, MaxLen: writeMaxNodes, Description: "uids or paths"},
				{Name: "edges", Type: TObjectList, MaxLen: writeMaxEdges, Description: "{source, target, type, extractor}"},
				requestIDParam,
			},
			Handler: deleteTool,
		},
	}
}

// decodeStrict decodes one argument object into v, refusing unknown keys.
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// decodeField decodes the element at of a list argument into v (a pointer
// to a struct with json tags) and translates a decoding failure into the
// house E_ARGUMENT: "nodes[0].line: got a string "3", expected an integer",
// naming the JSON field and the JSON kinds, never a Go type.
func decodeField(t *Tool, at string, raw json.RawMessage, v any) *envelope.Error {
	err := decodeStrict(raw, v)
	if err == nil {
		return nil
	}
	var (
		typ *json.UnmarshalTypeError
		syn *json.SyntaxError
	)
	switch {
	case errors.As(err, &typ) && typ.Field == "":
		return argError(t, at, describe(raw), "an object {"+strings.Join(jsonKeys(v), ", ")+"}")
	case errors.As(err, &typ):
		field := at + "." + typ.Field
		got := jsonKindWord(typ.Value)
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			if sub, ok := obj[strings.SplitN(typ.Field, ".", 2)[0]]; ok && !strings.Contains(typ.Field, ".") {
				got = describe(sub)
			}
		}
		return argError(t, field, got, expectedOf(typ.Type))
	case errors.As(err, &syn):
		return argError(t, at, "text that is not valid JSON", "an object {"+strings.Join(jsonKeys(v), ", ")+"}")
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return argError(t, at, "the unknown key "+key, "only the keys "+strings.Join(jsonKeys(v), ", "))
	}
	return argError(t, at, describe(raw), "an object {"+strings.Join(jsonKeys(v), ", ")+"}")
}

// jsonKeys lists the JSON keys of the struct v points to.
func jsonKeys(v any) []string {
	rt := reflect.TypeOf(v)
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// jsonKindWord renders the JSON kind a json.UnmarshalTypeError reports
// ("string", "number", "number 1.5", "bool", "array", "object").
func jsonKindWord(value string) string {
	switch kind, rest, _ := strings.Cut(value, " "); kind {
	case "string":
		return "a string"
	case "number":
		if rest != "" {
			return "the number " + rest
		}
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return value
}

// expectedOf names the JSON kind a field of Go type rt accepts.
func expectedOf(rt reflect.Type) string {
	if rt == nil {
		return "another kind of value"
	}
	switch rt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

// uidPrefix returns the scheme prefix (docs/uids.md) of a valid uid: "folder:" or its
// first two colon-separated parts ("code:function:").
func uidPrefix(uid string) string {
	if strings.HasPrefix(uid, "folder:") {
		return "folder:"
	}
	parts := strings.SplitN(uid, ":", 3)
	if len(parts) < 3 {
		return uid
	}
	return parts[0] + ":" + parts[1] + ":"
}

// kindsOfUID are the node kinds a valid uid admits: the kind its prefix
// implies, and method too for code:function:.
func kindsOfUID(uid string) []string {
	implied, _ := graph.KindOfUID(uid)
	if implied == graph.KindFunction {
		return []string{graph.KindFunction, graph.KindMethod}
	}
	return []string{implied}
}

// quotedOr renders kinds as `"a"`, `"a" or "b"`.
func quotedOr(kinds []string) string {
	q := make([]string, len(kinds))
	for i, k := range kinds {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, " or ")
}

// fieldError is E_ARGUMENT naming one field of one element: "nodes[3].uid: …".
func fieldError(t *Tool, field, format string, args ...any) *envelope.Error {
	msg := fmt.Sprintf(format, args...)
	return envelope.Errorf(envelope.CodeArgument, "%s: %s; example: %s", field, msg, t.Example).
		WithDetails(map[string]any{"field": field, "reason": msg, "example": json.RawMessage(t.Example)})
}

// resolveError prefixes a resolver error with the field it came from. The
// resolver's error is dropped as the cause: ToEnvelopeError would otherwise
// find it in the chain and rebuild the message without the field.
func resolveError(field string, err error) error {
	e := ToEnvelopeError(err).WithDetails(map[string]any{"field": field}).WithCause(nil)
	e.Message = field + ": " + e.Message
	return e
}

// validatePathField accepts a repo-relative, slash-separated path with no
// ".." segment (what the projection accepts for extracted files).
func validatePathField(p string) string {
	switch {
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return "must be repo-relative with forward slashes"
	case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return `must not contain ".."`
	case strings.ContainsRune(p, '`'):
		return "must not contain a backtick"
	}
	return ""
}

// defaultLabel is the label of a node sent without one: the last segment of
// its uid's body.
func defaultLabel(uid string) string {
	body := strings.TrimPrefix(uid, "folder:")
	if body == uid { // every other prefix has two parts: "code:function:"
		if parts := strings.SplitN(uid, ":", 3); len(parts) == 3 {
			body = parts[2]
		}
	}
	for _, sep := range []string{"::", "#", "/"} {
		if i := strings.LastIndex(body, sep); i >= 0 && i+len(sep) < len(body) {
			body = body[i+len(sep):]
		}
	}
	return body
}

// upsertInput validates the nodes and edges of an upsert, resolving edge
// endpoints strictly. Call it inside a view.
func upsertInput(ctx context.Context, c *Call) ([]graph.Node, []graph.Edge, error) {
	var nodes []graph.Node
	raws := c.Args.Objects("nodes")
	inCall := map[string]bool{}
	for i, raw := range raws {
		at := fmt.Sprintf("nodes[%d]", i)
		var n graph.Node
		if err := decodeField(c.Tool, at, raw, &n); err != nil {
			return nil, nil, err
		}
		if err := graph.ValidateUID(n.UID); err != nil {
			return nil, nil, fieldError(c.Tool, at+".uid", "%v", err)
		}
		admitted := kindsOfUID(n.UID)
		if n.Kind == "" {
			n.Kind = admitted[0]
		}
		if !contains(nodeKinds, n.Kind) {
			return nil, nil, fieldError(c.Tool, at+".kind", "got %q, expected one of %s", n.Kind, strings.Join(nodeKinds, ", "))
		}
		if !contains(admitted, n.Kind) {
			return nil, nil, fieldError(c.Tool, at+".kind", "got %q, expected %s for a %s uid (or leave kind out)",
				n.Kind, quotedOr(admitted), uidPrefix(n.UID))
		}
		if n.Label == "" {
			n.Label = defaultLabel(n.UID)
		}
		if n.Path != "" {
			if why := validatePathField(n.Path); why != "" {
				return nil, nil, fieldError(c.Tool, at+".path", "%q %s", n.Path, why)
			}
		}
		if n.Line < 0 || n.EndLine < 0 || (n.EndLine > 0 && n.EndLine < n.Line) {
			return nil, nil, fieldError(c.Tool, at+".line", "got line %d, end_line %d; lines are 1-based and end_line ≥ line", n.Line, n.EndLine)
		}
		if n.Extractor == "" {
			n.Extractor = projections.AgentOwner
		}
		inCall[n.UID] = true
		nodes = append(nodes, n)
	}
	raws = c.Args.Objects("edges")
	var edges []graph.Edge
	for i, raw := range raws {
		at := fmt.Sprintf("edges[%d]", i)
		var e graph.Edge
		if err := decodeField(c.Tool, at, raw, &e); err != nil {
			return nil, nil, err
		}
		if !contains(edgeTypes, e.Type) {
			return nil, nil, fieldError(c.Tool, at+".type", "got %q, expected one of %s (the types the read tools follow)", e.Type, strings.Join(edgeTypes, ", "))
		}
		for _, end := range []struct {
			name string
			uid  *string
		}{{"source", &e.Source}, {"target", &e.Target}} {
			if *end.uid == "" {
				return nil, nil, fieldError(c.Tool, at+"."+end.name, "missing; expected a uid or a repo-relative path")
			}
			if inCall[*end.uid] {
				continue
			}
			res, err := c.Resolve(ctx, *end.uid, true)
			if err != nil {
				return nil, nil, resolveError(at+"."+end.name, err)
			}
			*end.uid = res.Node.UID
		}
		if e.Line < 0 {
			return nil, nil, fieldError(c.Tool, at+".line", "got %d, expected a 1-based line or 0", e.Line)
		}
		if e.Extractor == "" {
			e.Extractor = projections.AgentOwner
		}
		edges = append(edges, e)
	}
	if len(nodes) == 0 && len(edges) == 0 {
		return nil, nil, argError(c.Tool, "nodes", "nothing", "at least one node or edge")
	}
	return nodes, edges, nil
}

func upsertTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	var (
		nodes []graph.Node
		edges []graph.Edge
	)
	if ferr := freshView(ctx, c, func() { nodes, edges, err = upsertInput(ctx, c) }); ferr != nil {
		return nil, tm, ferr
	}
	if err != nil {
		return nil, tm, err
	}
	// One request (atomic, one request_id), split into events small enough
	// for the log's per-event limit.
	req := eventlog.AppendRequest{Stream: graph.Stream, RequestID: rid}
	for i := 0; i < len(nodes); i += writeChunk {
		req.Events = append(req.Events, mustPayload(graph.TypeNodesUpserted, graph.NodesUpserted{Nodes: nodes[i:min(i+writeChunk, len(nodes))]}))
	}
	for i := 0; i < len(edges); i += writeChunk {
		req.Events = append(req.Events, mustPayload(graph.TypeEdgesUpserted, graph.EdgesUpserted{Edges: edges[i:min(i+writeChunk, len(edges))]}))
	}
	rcs, err := c.Append(ctx, req)
	if err != nil {
		return nil, tm, err
	}
	// The answer is counts and uids, not an echo of what was sent.
	uids := make([]string, len(nodes))
	for i, n := range nodes {
		uids[i] = n.UID
	}
	body := map[string]any{
		"receipt": receiptOf(rcs[0]),
		"written": map[string]int{"nodes": len(nodes), "edges": len(edges)},
		"uids":    uids,
	}
	// The write is committed: a read back that fails (the call's context
	// ended) is a warning, never an error, or a retry without request_id
	// would write again.
	if err := c.ReadBack(ctx, rcs[0].LastSeq, func() {
		g := c.V.Graph
		missing := 0
		for _, e := range edges {
			if _, ok := g.Edge(e.Key()); !ok {
				missing++
			}
		}
		body["graph"] = g.Counts()
		if missing > 0 { // deleted again by a later write before the read back
			body["edges_gone"] = missing
		}
	}); err != nil {
		tm.Warnings = append(tm.Warnings, committedReadBackWarning(rcs[0].LastSeq, err))
	}
	return body, tm, nil
}

// mustPayload encodes a graph event payload; the payload types always
// encode.
func mustPayload(typ string, v any) eventlog.Payload {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %s: %v", typ, err))
	}
	return eventlog.Payload{Type: typ, Data: b}
}

// deleteInput resolves the uids and edges of a delete. Call it inside a
// view. With resend set (the request id already has a receipt: this call
// may be a retry of a delete that happened), well-formed uids and edge keys
// are taken as given, so that the same arguments rebuild the same intent and
// the log replays the original receipt — or answers E_REQUEST_REUSE when
// they differ (docs/errors.md, request ids).
func deleteInput(ctx context.Context, c *Call, resend bool) ([]string, []graph.EdgeKey, error) {
	g := c.V.Graph
	uids := []string{} // answered as deleted.uids: [] when only edges go
	for i, raw := range c.Args.Strings("uids") {
		at := fmt.Sprintf("uids[%d]", i)
		if in, out := g.Degree(raw); g.HasNode(raw) || in+out > 0 || (resend && graph.ValidateUID(raw) == nil) {
			uids = append(uids, raw) // a node, or the endpoint of dangling edges
			continue
		}
		res, err := c.Resolve(ctx, raw, true)
		if err != nil {
			return nil, nil, resolveError(at, err)
		}
		uids = append(uids, res.Node.UID)
	}
	raws := c.Args.Objects("edges")
	var keys []graph.EdgeKey
	for i, raw := range raws {
		at := fmt.Sprintf("edges[%d]", i)
		var k struct {
			Source    string `json:"source"`
			Target    string `json:"target"`
			Type      string `json:"type"`
			Extractor string `json:"extractor"`
		}
		if err := decodeField(c.Tool, at, raw, &k); err != nil {
			return nil, nil, err
		}
		if k.Source == "" || k.Target == "" || k.Type == "" {
			return nil, nil, fieldError(c.Tool, at, "source, target and type are required")
		}
		key := graph.EdgeKey{Source: k.Source, Target: k.Target, Type: k.Type, Extractor: k.Extractor}
		if key.Extractor == "" {
			key.Extractor = projections.AgentOwner
		}
		if _, ok := g.Edge(key); !ok && !resend {
			for _, end := range []*string{&key.Source, &key.Target} {
				if res, err := c.Resolve(ctx, *end, true); err == nil {
					*end = res.Node.UID
				}
			}
		}
		if _, ok := g.Edge(key); !ok && !resend {
			msg := fmt.Sprintf("%s: no edge %s -[%s/%s]-> %s in the graph", at, key.Source, key.Type, key.Extractor, key.Target)
			if others := edgeExtractors(g, key); len(others) > 0 {
				msg += fmt.Sprintf("; it exists with extractor %s (extractor defaults to %q, the owner of edges written by hand)",
					strings.Join(others, ", "), projections.AgentOwner)
			}
			return nil, nil, envelope.Errorf(envelope.CodeNotFound, "%s", msg).
				WithDetails(map[string]any{"field": at, "edge": key, "suggestions": outgoingOf(g, key.Source)})
		}
		keys = append(keys, key)
	}
	if len(uids) == 0 && len(keys) == 0 {
		return nil, nil, argError(c.Tool, "uids", "nothing", "at least one uid or edge")
	}
	return uids, keys, nil
}

// edgeExtractors are the extractors of the edges from key's source to its
// target of its type: the edge a caller named under another owner.
func edgeExtractors(g *projections.Graph, key graph.EdgeKey) []string {
	var out []string
	for _, e := range g.Out(key.Source) {
		if e.Target == key.Target && e.Type == key.Type && e.Extractor != key.Extractor && !slices.Contains(out, e.Extractor) {
			out = append(out, e.Extractor)
		}
	}
	slices.Sort(out)
	return out
}

// outgoingOf lists a few edges leaving uid, to help correct a missed edge
// key.
func outgoingOf(g *projections.Graph, uid string) []query.EdgeView {
	out := []query.EdgeView{}
	for _, e := range g.Out(uid) {
		if len(out) == 5 {
			break
		}
		out = append(out, query.EdgeOf(e))
	}
	return out
}

func deleteTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	var (
		uids []string
		keys []graph.EdgeKey
	)
	resend := false
	if rid != "" {
		if _, resend, err = c.st.LookupReceipt(ctx, rid); err != nil {
			return nil, tm, err
		}
	}
	if ferr := freshView(ctx, c, func() { uids, keys, err = deleteInput(ctx, c, resend) }); ferr != nil {
		return nil, tm, ferr
	}
	if err != nil {
		return nil, tm, err
	}
	req := eventlog.AppendRequest{Stream: graph.Stream, RequestID: rid}
	// A file node takes with it what indexing extracted from the file: its
	// functions, classes, headings and their edges (graph.file_removed), so
	// that nothing is left orphaned and the next index extracts it again.
	files := filesOfUIDs(uids)
	for _, p := range files {
		req.Events = append(req.Events, mustPayload(graph.TypeFileRemoved, graph.FileRemoved{Path: p}))
	}
	if len(keys) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeEdgesDeleted, graph.EdgesDeleted{Edges: keys}))
	}
	if len(uids) > 0 {
		req.Events = append(req.Events, mustPayload(graph.TypeNodesDeleted, graph.NodesDeleted{UIDs: uids}))
	}
	rcs, err := c.Append(ctx, req)
	if err != nil {
		return nil, tm, err
	}
	var body map[string]any
	err = c.ReadBack(ctx, rcs[0].LastSeq, func() {
		g := c.V.Graph
		still := []string{}
		for _, uid := range uids {
			if g.HasNode(uid) {
				still = append(still, uid) // re-created by a later write
			}
		}
		body = map[string]any{
			"receipt":   receiptOf(rcs[0]),
			"deleted":   map[string]any{"uids": uids, "edges": keysView(keys), "files": files},
			"graph":     g.Counts(),
			"remaining": still,
		}
	})
	return body, tm, err
}

// filesOfUIDs returns the repo-relative paths of the file nodes among uids
// (code:file:<path>, doc:file:<path>), in order, without repeats. It reads
// the path from the uid alone, never from the graph, so that a resend of
// the same delete rebuilds the same events; a uid whose path was clamped
// (a path too long to spell out) names no file.
func filesOfUIDs(uids []string) []string {
	files := []string{}
	seen := map[string]bool{}
	for _, uid := range uids {
		rest, ok := strings.CutPrefix(uid, "code:file:")
		if !ok {
			rest, ok = strings.CutPrefix(uid, "doc:file:")
		}
		if !ok {
			continue
		}
		p := unescapeUIDPart(rest)
		if p == "" || seen[p] || graph.SourceFileUID(p) != uid || p == ".." || strings.HasPrefix(p, "/") ||
			strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
			continue
		}
		seen[p] = true
		files = append(files, p)
	}
	return files
}

// unescapeUIDPart undoes graph.UIDPart's %XX escapes.
func unescapeUIDPart(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, lo := unhex(s[i+1]), unhex(s[i+2]); hi >= 0 && lo >= 0 {
				b.WriteByte(byte(hi<<4 | lo))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unhex is the value of a hex digit, or -1.
func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func keysView(keys []graph.EdgeKey) []query.EdgeView {
	out := make([]query.EdgeView, len(keys))
	for i, k := range keys {
		out[i] = query.EdgeView{Source: k.Source, Target: k.Target, Type: k.Type, Extractor: k.Extractor}
	}
	return out
}
