package query

import (
	"net/url"
	"sort"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// EntryKinds are the entry point kinds cos_graph_entrypoints filters on.
var EntryKinds = []string{graph.EntryHTTP, graph.EntryCLI, graph.EntryMCPTool, graph.EntryGRPC,
	graph.EntryEvent, graph.EntryWebSocket, graph.EntryMain, graph.EntryInit}

// Entrypoint is one row of cos_graph_entrypoints: an entry point node and
// the function it is handled by.
type Entrypoint struct {
	UID string `json:"uid"`
	// Kind is the entry kind: http, cli, mcp_tool, grpc, event, websocket,
	// main or init.
	Kind string `json:"kind"`
	// Method is an HTTP route's method (ANY when every method is served).
	Method string `json:"method,omitempty"`
	// Name is the route (http), the command path (cli), the tool (mcp_tool),
	// the service's full name (grpc), the subject or event (event), the
	// route or handler (websocket), or the function's name.
	Name string `json:"name"`
	// Handler is the uid of the function or method that runs; empty when
	// the registration's handler could not be resolved. Handlers lists
	// every one when there are several (a gRPC service's methods).
	Handler  string   `json:"handler,omitempty"`
	Handlers []string `json:"handlers,omitempty"`
	// Anonymous says the handler is a function literal inside Handler.
	Anonymous bool `json:"anonymous,omitempty"`
	// Dynamic says Name is the source text of a value computed at run
	// time, not a literal.
	Dynamic bool `json:"dynamic,omitempty"`
	// BuildExcluded says the file is left out of this build (a build tag,
	// another GOOS): the entry point exists only in other builds.
	BuildExcluded bool   `json:"build_excluded,omitempty"`
	File          string `json:"file"`
	Line          int    `json:"line,omitempty"`
	Framework     string `json:"framework,omitempty"`
}

// EntrypointFilter selects entry points. The zero filter selects all.
type EntrypointFilter struct {
	// Kinds are entry kinds (EntryKinds); empty selects every kind.
	Kinds []string
	// Path is a file or folder prefix ("srv", "srv/routes.go") or, when it
	// holds * ? or [, a path.Match pattern matched against the file and
	// each folder above it ("cmd/*" selects everything under cmd's
	// subfolders). A leading "./" is dropped.
	Path string
}

// matchPath reports whether the file p is selected by the filter's Path
// (PathMatches).
func (f EntrypointFilter) matchPath(p string) bool { return PathMatches(f.Path, p) }

// Entrypoints is the answer of ListEntrypoints.
type Entrypoints struct {
	// Rows are ordered by file, line and uid.
	Rows []Entrypoint
	// ByKind counts Rows by kind.
	ByKind map[string]int
	// Unresolved counts the rows without a handler.
	Unresolved int
	// Completeness is CompleteExact, or CompleteLowerBound when Go files
	// were read without types (only their main and init are found):
	// Reasons then holds syntax_fallback_files.
	Completeness string
	Reasons      map[string]int
}

// ListEntrypoints returns the entry point nodes of g that f selects, each
// with its handled_by targets.
func ListEntrypoints(g *projections.Graph, f EntrypointFilter) Entrypoints {
	kinds := TypeSet(f.Kinds)
	out := Entrypoints{Rows: []Entrypoint{}, ByKind: map[string]int{}}
	g.Nodes(func(n graph.Node) bool {
		if n.Kind != graph.KindEntrypoint {
			return true
		}
		kind, _ := n.Metadata["entry_kind"].(string)
		if (len(kinds) > 0 && !kinds[kind]) || !f.matchPath(n.Path) {
			return true
		}
		out.Rows = append(out.Rows, entrypointRow(g, n, kind))
		return true
	})
	sort.Slice(out.Rows, func(i, j int) bool {
		a, b := out.Rows[i], out.Rows[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.UID < b.UID
	})
	out.Completeness = CompleteExact
	if u := g.Unresolved(); u.LowerBoundFiles > 0 {
		out.Completeness, out.Reasons = CompleteLowerBound, map[string]int{reasonSyntaxFallbackFiles: u.LowerBoundFiles}
		if u.GoUnavailableFiles > 0 {
			out.Reasons[reasonGoUnavailable] = u.GoUnavailableFiles
		}
	}
	for _, r := range out.Rows {
		out.ByKind[r.Kind]++
		if r.Handler == "" {
			out.Unresolved++
		}
	}
	return out
}

// entrypointRow is the row of the entry point node n.
func entrypointRow(g *projections.Graph, n graph.Node, kind string) Entrypoint {
	str := func(k string) string { s, _ := n.Metadata[k].(string); return s }
	r := Entrypoint{UID: n.UID, Kind: kind, Name: entryName(n), File: n.Path, Line: n.Line, Framework: str("framework")}
	r.Dynamic, _ = n.Metadata["dynamic"].(bool)
	r.BuildExcluded, _ = n.Metadata[graph.MetaBuildExcluded].(bool)
	switch kind {
	case graph.EntryHTTP:
		r.Method, r.Name = str("method"), str("route")
	case graph.EntryCLI:
		r.Name = firstNonEmpty(str("command"), r.Name)
	case graph.EntryMCPTool:
		r.Name = firstNonEmpty(str("tool"), r.Name)
	case graph.EntryGRPC:
		r.Name = firstNonEmpty(str("service"), r.Name)
	case graph.EntryEvent:
		r.Name = firstNonEmpty(str("subject"), r.Name)
	}
	for _, e := range g.Out(n.UID) {
		if e.Type != graph.EdgeHandledBy {
			continue
		}
		if r.Handler == "" {
			r.Handler = e.Target
			r.Anonymous, _ = e.Metadata["anonymous"].(bool)
		}
		r.Handlers = append(r.Handlers, e.Target)
	}
	if len(r.Handlers) < 2 {
		r.Handlers = nil
	}
	return r
}

// entryName is the <name> of an entry point's uid
// (entry:<kind>:<path>::<name>), unescaped; its label when the uid was
// clamped.
func entryName(n graph.Node) string {
	_, name, ok := strings.Cut(n.UID, "::")
	if !ok || strings.Contains(name, "~") && len(n.UID) == graph.MaxUIDLen {
		return n.Label
	}
	if u, err := url.PathUnescape(name); err == nil {
		return u
	}
	return name
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
