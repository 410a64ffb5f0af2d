package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/tools"
)

// This file is the cos:// resources' vocabulary: their kinds and specs,
// the URI grammar, and the tool that answers a read of each.

// Resource kinds: the part of a cos:// URI after the scheme, before any
// "/".
const (
	ResourceBoard    = "board"
	ResourceTask     = "task"
	ResourceNode     = "node"
	ResourceEvidence = "evidence"
	ResourceHealth   = "health"
)

// ResourceScheme begins every resource URI.
const ResourceScheme = "cos://"

// ResourceMIMEType is the MIME type of every resource's contents: the
// envelope of the tool that answers it, as JSON.
const ResourceMIMEType = "application/json"

// MaxResourceURILen bounds a resource URI, in bytes.
const MaxResourceURILen = 2048

// Minimum time between two update notifications for one resource of one
// session (ResourceRef.MinInterval).
const (
	ResourceUpdateInterval = 100 * time.Millisecond
	HealthUpdateInterval   = time.Second
)

// ResourceSpec describes one resource (URI set) or resource template
// (URITemplate set, RFC 6570) for resources/list and
// resources/templates/list.
type ResourceSpec struct {
	Kind        string
	URI         string
	URITemplate string
	Name        string
	Title       string
	Description string
	// Tool answers a read of the resource (its envelope is the content).
	Tool string
}

// ResourceSpecs returns every resource and template, fixed ones first.
func ResourceSpecs() []ResourceSpec {
	return []ResourceSpec{
		{Kind: ResourceBoard, URI: "cos://board", Name: "board", Title: "Task board", Tool: "cos_task_board",
			Description: "The task board (the first page of cos_task_board). Subscribe to be told when any task changes."},
		{Kind: ResourceHealth, URI: "cos://health", Name: "health", Title: "Server health", Tool: "cos_health",
			Description: "The server's health (cos_health). Subscribe to be told, at most once a second, when anything is committed."},
		{Kind: ResourceTask, URITemplate: "cos://task/{task_id}", Name: "task", Title: "One task", Tool: "cos_task_get",
			Description: `One task with every field, its revision and hash (cos_task_get), e.g. cos://task/TASK-007. Subscribe to be told when it changes.`},
		{Kind: ResourceNode, URITemplate: "cos://node/{uid}", Name: "node", Title: "One graph node", Tool: "cos_graph_context",
			Description: "A graph node and its neighbours (cos_graph_context), by uid, e.g. cos://node/code:function:main.go::run " +
				"(write # as %23). Subscribe to be told when its file is indexed again or an event names it."},
		{Kind: ResourceEvidence, URITemplate: "cos://evidence/{session_id}", Name: "evidence", Title: "A session's evidence bundle", Tool: "cos_evidence_bundle",
			Description: "A working session's evidence bundle (cos_evidence_bundle), e.g. cos://evidence/sess-42. Subscribe to be told when a record is added."},
	}
}

// ResourceRef is a parsed resource URI.
type ResourceRef struct {
	// URI is the URI as the client wrote it (notifications name it so).
	URI string
	// Kind is one of the Resource* kinds.
	Kind string
	// ID is the task id, node uid or session id (percent-decoded); empty
	// for the board and health.
	ID string
}

// ErrResourceURI is returned (wrapped in a *ResourceURIError) by
// ParseResourceURI for a URI that names no cos resource.
var ErrResourceURI = errors.New("not a cos resource URI")

// ResourceURIError says why a URI names no resource.
type ResourceURIError struct {
	URI    string
	Reason string
}

func (e *ResourceURIError) Error() string {
	return fmt.Sprintf("%s: %s; the resources are cos://board, cos://health, cos://task/{task_id}, cos://node/{uid}, cos://evidence/{session_id}",
		quoteURI(e.URI), e.Reason)
}
func (e *ResourceURIError) Unwrap() error { return ErrResourceURI }

// quoteURI quotes a URI for a message, cut to 120 bytes.
func quoteURI(uri string) string {
	if len(uri) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(uri[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (%d bytes)", uri[:cut], len(uri))
	}
	return fmt.Sprintf("%q", uri)
}

// ParseResourceURI parses a cos:// resource URI. The id part is
// percent-decoded; a raw "?" or "#" (a query or fragment) is refused, as
// are an unknown kind, a missing or extra part, and an id its tool would
// refuse (a task id not TASK-NNN, a malformed uid, a bad session id).
// Errors are *ResourceURIError.
func ParseResourceURI(uri string) (ResourceRef, error) {
	bad := func(format string, a ...any) (ResourceRef, error) {
		return ResourceRef{}, &ResourceURIError{URI: uri, Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case uri == "":
		return bad("the uri is empty")
	case len(uri) > MaxResourceURILen:
		return bad("longer than %d bytes", MaxResourceURILen)
	case !utf8.ValidString(uri):
		return bad("not valid UTF-8")
	}
	rest, ok := strings.CutPrefix(uri, ResourceScheme)
	if !ok {
		return bad("it does not start with %s", ResourceScheme)
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return bad("it has a %q: cos resources take no query or fragment (write # in a uid as %%23)", rest[i])
	}
	for i := 0; i < len(uri); i++ {
		if !uriByte(uri[i]) {
			r, _ := utf8.DecodeRuneInString(uri[i:])
			return bad("%q at byte %d must be percent-encoded (RFC 3986), e.g. %s", r, i, url.PathEscape(string(r)))
		}
	}
	kind, raw, hasID := strings.Cut(rest, "/")
	ref := ResourceRef{URI: uri, Kind: kind}
	switch kind {
	case ResourceBoard, ResourceHealth:
		if hasID {
			return bad("cos://%s takes nothing after it", kind)
		}
		return ref, nil
	case ResourceTask, ResourceNode, ResourceEvidence:
	default:
		return bad("no resource kind is named %q", kind)
	}
	id, err := url.PathUnescape(raw)
	if err != nil {
		return bad("its %s part is not valid percent-encoding", kind)
	}
	if id == "" {
		return bad("cos://%s/ needs an id after the slash", kind)
	}
	switch kind {
	case ResourceTask:
		if !tasks.ValidID(id) {
			return bad("%q is not a task id (TASK- and at least three digits, e.g. cos://task/TASK-007)", clip(id, 60))
		}
	case ResourceNode:
		if err := graph.ValidateUID(id); err != nil {
			var ue *graph.UIDError
			reason := err.Error()
			if errors.As(err, &ue) {
				reason = ue.Reason
			}
			return bad("%q is not a node uid (%s); find a node's uid with cos_graph_resolve", clip(id, 60), reason)
		}
	case ResourceEvidence:
		if err := evidence.ValidateSession(id); err != nil {
			return bad("bad session id: %v", err)
		}
	}
	ref.ID = id
	return ref, nil
}

// uriByte reports whether c may appear unencoded in a URI (RFC 3986:
// unreserved, reserved or the % of an escape).
func uriByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

// MinInterval is the least time between two update notifications of the
// resource to one session.
func (ref ResourceRef) MinInterval() time.Duration {
	if ref.Kind == ResourceHealth {
		return HealthUpdateInterval
	}
	return ResourceUpdateInterval
}

// Tool returns the tool that answers a read of the resource.
func (ref ResourceRef) Tool() string {
	for _, s := range ResourceSpecs() {
		if s.Kind == ref.Kind {
			return s.Tool
		}
	}
	return ""
}

// args returns the tool arguments that read the resource.
func (ref ResourceRef) args() json.RawMessage {
	var m map[string]string
	switch ref.Kind {
	case ResourceTask:
		m = map[string]string{"task_id": ref.ID}
	case ResourceNode:
		m = map[string]string{"uid_or_name": ref.ID}
	case ResourceEvidence:
		m = map[string]string{"session_id": ref.ID}
	default:
		return json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(m)
	return b
}

// readResource answers a read of ref with the envelope of its tool, run
// through r.Call with budget: the same answer, byte for byte, as calling
// the tool with the resource's id. Like Call it never fails: a task that
// does not exist is an E_NOT_FOUND envelope (which readResponse answers as
// JSON-RPC -32002), a disabled module E_MODULE_DISABLED.
func readResource(ctx context.Context, r *tools.Runner, ref ResourceRef, budget envelope.Options) envelope.Envelope {
	return r.Call(ctx, ref.Tool(), ref.args(), budget)
}

// clip shortens s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
