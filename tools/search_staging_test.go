package tools

import (
	"context"
	"testing"
	"time"
)

// TestUpsertThenResolve_ReadsItsWrites: the search index writes applied
// graph changes in batches (state.Options.SearchFlushDelay); a fuzzy
// lookup right after cos_graph_upsert still finds the new node, because a
// search writes what is staged first. The delay is an hour here, so only
// the search can have written it.
func TestUpsertThenResolve_ReadsItsWrites(t *testing.T) {
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), NATS: "off",
		NoBackgroundSnapshots: true, SearchFlushDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i, q := range []struct{ label, query, want string }{
		{"ParseConfigFile", "parseconfigfi", "code:function:cfg.go::ParseConfigFile"}, // a prefix
		{"RenderTemplate", "RendrTemplate", "code:function:tpl.go::RenderTemplate"},   // a typo
		{"ServeHTTPRequest", "serve http", "code:function:srv.go::ServeHTTPRequest"},  // words
	} {
		graphOK(t, s, "cos_graph_upsert", `{"nodes": [{"uid": "`+q.want+`", "kind": "function", "label": "`+q.label+`"}]}`)
		e := call(t, s, "cos_graph_resolve", `{"q": "`+q.query+`"}`)
		if !e.OK {
			t.Fatalf("%d: resolve %q right after the upsert: %s %s", i, q.query, e.Error.Code, e.Error.Message)
		}
		rows := resolveRows(t, e)
		if len(rows) == 0 || rows[0].uid != q.want {
			t.Errorf("%d: resolve %q = %v, want %s first", i, q.query, rows, q.want)
		}
	}
}
