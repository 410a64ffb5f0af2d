package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// scopeFiles is a Go module where Dispatch calls Handler.ServeHTTP (which
// *Server implements), app/main.go's run and tools/gen/main.go's main call
// Dispatch, and files the build never compiles call it too: a
// //go:build ignore file and one under an _old folder.
var scopeFiles = map[string]string{
	"go.mod": "module example.com/sc\n\ngo 1.22\n",
	"srv/srv.go": `package srv

type Handler interface{ ServeHTTP() }

type Server struct{}

func (s *Server) ServeHTTP() { s.serve() }

func (s *Server) serve() {}

func Dispatch(h Handler) { h.ServeHTTP() }
`,
	"app/main.go": `package main

import "example.com/sc/srv"

func main() { run() }

func run() { srv.Dispatch(&srv.Server{}) }
`,
	"tools/gen/main.go": `package main

import "example.com/sc/srv"

func main() { srv.Dispatch(nil) }
`,
	"srv/gen.go": `//go:build ignore

package srv

func gen() { Dispatch(nil) }
`,
	"srv/_old/old.go": `package old

import "example.com/sc/srv"

func old() { srv.Dispatch(nil) }
`,
}

const (
	scDispatch = "code:function:srv/srv.go::Dispatch"
	scServe    = "code:function:srv/srv.go::Server.serve"
)

func openScope(t *testing.T) *graphRepo {
	t.Helper()
	r := openGraphRepo(t, scopeFiles, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

// rowKeys is field of each row of list in data, sorted.
func rowKeys(t *testing.T, e envOf, list, field string) []string {
	t.Helper()
	var out []string
	for _, row := range graphList(t, e.Data, list) {
		s, _ := row[field].(string)
		if row["build_excluded"] == true {
			s += " (excluded)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestGraphScope_BuildExcludedLeftOutByDefault(t *testing.T) {
	r := openScope(t)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "kinds": ["calls"]}`)
	want := []string{"code:function:app/main.go::run", "code:function:tools/gen/main.go::main"}
	if got := rowKeys(t, e, "references", "source"); !slices.Equal(got, want) || e.Data["count"] != 2.0 || e.Data["build_excluded_count"] != 2.0 {
		t.Errorf("references %v count %v build_excluded_count %v; want %v, 2, 2", got, e.Data["count"], e.Data["build_excluded_count"], want)
	}
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "kinds": ["calls"], "include_build_excluded": true}`)
	want = []string{"code:function:app/main.go::run", "code:function:srv/_old/old.go::old (excluded)",
		"code:function:srv/gen.go::gen (excluded)", "code:function:tools/gen/main.go::main"}
	if got := rowKeys(t, e, "references", "source"); !slices.Equal(got, want) || e.Data["count"] != 4.0 || e.Data["build_excluded_count"] != 2.0 {
		t.Errorf("with include_build_excluded: %v count %v build_excluded_count %v; want %v, 4, 2", got, e.Data["count"], e.Data["build_excluded_count"], want)
	}

	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scDispatch+`", "depth": 3}`)
	if got := rowKeys(t, e, "nodes", "uid"); slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "(excluded)") }) ||
		e.Data["build_excluded_count"] != 2.0 {
		t.Errorf("impact %v build_excluded_count %v; want no excluded row, 2 counted", got, e.Data["build_excluded_count"])
	}
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scDispatch+`", "depth": 3, "include_build_excluded": true}`)
	if got := rowKeys(t, e, "nodes", "uid"); !slices.Contains(got, "code:function:srv/gen.go::gen (excluded)") || e.Data["build_excluded_count"] != 2.0 {
		t.Errorf("impact with include_build_excluded %v build_excluded_count %v", got, e.Data["build_excluded_count"])
	}
}

func TestGraphScope_PathFilters(t *testing.T) {
	r := openScope(t)
	for _, tc := range []struct{ args, want string }{
		{`"paths": ["app/**"]`, "code:function:app/main.go::run"},
		{`"paths": ["app"]`, "code:function:app/main.go::run"},
		{`"exclude_paths": ["tools/**"]`, "code:function:app/main.go::run"},
		{`"paths": ["**/main.go"], "exclude_paths": ["app/*.go"]`, "code:function:tools/gen/main.go::main"},
		{`"paths": ["./app//main.go"]`, "code:function:app/main.go::run"},
	} {
		e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "kinds": ["calls"], `+tc.args+`}`)
		if got := strings.Join(rowKeys(t, e, "references", "source"), ","); got != tc.want || e.Data["count"] != 1.0 {
			t.Errorf("references %s: %s (count %v), want %s", tc.args, got, e.Data["count"], tc.want)
		}
	}
	// impact: the node's file; the walk still goes through what is dropped.
	e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scDispatch+`", "depth": 2, "paths": ["app/**"]}`)
	if got := strings.Join(rowKeys(t, e, "nodes", "uid"), ","); got != "code:function:app/main.go::main,code:function:app/main.go::run" {
		t.Errorf("impact paths app/**: %s", got)
	}
	// resolve: candidates.
	e = graphOK(t, r.s, "cos_graph_resolve", `{"q": "main", "kinds": ["function"], "paths": ["tools/**"]}`)
	if got := strings.Join(rowKeys(t, e, "results", "uid"), ","); got != "code:function:tools/gen/main.go::main" {
		t.Errorf("resolve paths tools/**: %s", got)
	}
	e = graphOK(t, r.s, "cos_graph_resolve", `{"q": "`+scDispatch+`"}`)
	if got := strings.Join(rowKeys(t, e, "results", "uid"), ","); got != scDispatch {
		t.Errorf("resolve uid: %s", got)
	}
	graphFail(t, r.s, "cos_graph_resolve", `{"q": "`+scDispatch+`", "kinds": ["function"], "exclude_paths": ["srv"]}`, envelope.CodeNotFound)

	// A malformed pattern is refused, naming it.
	for _, bad := range []string{`"paths": ["/abs"]`, `"exclude_paths": ["a/[b"]`, `"paths": ["../x"]`, `"paths": ["a\u0000b"]`} {
		e := graphFail(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", `+bad+`}`, envelope.CodeArgument)
		if !strings.Contains(e.Error.Message, "paths: entry") {
			t.Errorf("%s: %s", bad, e.Error.Message)
		}
	}
	// A pattern that matches no indexed file is said in meta.warnings: an
	// empty answer is then the filter's doing, not the code's.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "paths": ["nope/**"]}`)
	if w := fmt.Sprint(e.Data["meta"].(map[string]any)["warnings"]); e.Data["count"] != 0.0 || !strings.Contains(w, `paths entry "nope/**" matches no indexed file`) {
		t.Errorf("paths nope/**: count %v, warnings %s", e.Data["count"], w)
	}
	// The filters are part of the question a cursor belongs to.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "kinds": ["calls"], "limit": 1}`)
	cur, _ := e.Data["next_cursor"].(string)
	if cur == "" {
		t.Fatal("no next_cursor")
	}
	graphFail(t, r.s, "cos_graph_references", `{"uid": "`+scDispatch+`", "kinds": ["calls"], "limit": 1, "exclude_paths": ["x"], "cursor": "`+cur+`"}`, envelope.CodeStaleCursor)
}

// TestGraphImpact_CallersToDepth: "callers of X up to 3 calls away" is one
// call: calls edges only, static calls or, with dispatch true, also calls
// through interface methods (via calls, through the interface method).
func TestGraphImpact_CallersToDepth(t *testing.T) {
	r := openScope(t)
	e := graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scServe+`", "depth": 3, "edge_types": ["calls"], "dispatch": true}`)
	got := impactReach(t, e)
	want := map[string]string{
		"code:function:srv/srv.go::Server.ServeHTTP": "1 calls " + scServe,
		scDispatch:                              "2 calls code:function:srv/srv.go::Handler.ServeHTTP",
		"code:function:app/main.go::run":        "3 calls " + scDispatch,
		"code:function:tools/gen/main.go::main": "3 calls " + scDispatch,
	}
	if len(got) != len(want) {
		t.Errorf("callers to depth 3: %v, want %v", got, want)
	}
	for uid, w := range want {
		if got[uid] != w {
			t.Errorf("%s: %q, want %q", uid, got[uid], w)
		}
	}
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scServe+`", "depth": 3, "edge_types": ["calls"]}`)
	if got := impactReach(t, e); len(got) != 1 || got["code:function:srv/srv.go::Server.ServeHTTP"] == "" {
		t.Errorf("static callers: %v, want Server.ServeHTTP only", got)
	}
	// dispatch is part of the cursor's question.
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scServe+`", "depth": 3, "edge_types": ["calls"], "limit": 1, "dispatch": true}`)
	cur, _ := e.Data["next_cursor"].(string)
	graphFail(t, r.s, "cos_graph_impact", `{"uid": "`+scServe+`", "depth": 3, "edge_types": ["calls"], "limit": 1, "cursor": "`+cur+`"}`, envelope.CodeStaleCursor)
	// Leaving out implements leaves dispatch out by default; dispatch false
	// leaves it out with implements too.
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "`+scServe+`", "depth": 3, "edge_types": ["calls", "implements"], "dispatch": false}`)
	if got := impactReach(t, e); len(got) != 1 {
		t.Errorf("implements with dispatch false: %v, want Server.ServeHTTP only", got)
	}
}
