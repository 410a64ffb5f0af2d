package search

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// resolverFixture is a small repository graph.
var resolverFixture = []graph.Node{
	{UID: "folder:.", Kind: graph.KindFolder, Label: "."},
	{UID: "folder:a", Kind: graph.KindFolder, Label: "a", Path: "a"},
	{UID: "folder:b", Kind: graph.KindFolder, Label: "b", Path: "b"},
	{UID: "folder:docs", Kind: graph.KindFolder, Label: "docs", Path: "docs"},
	{UID: "code:file:x.go", Kind: graph.KindFile, Label: "x.go", Path: "x.go"},
	{UID: "code:function:x.go::Char.splice", Kind: graph.KindMethod, Label: "splice", Path: "x.go"},
	{UID: "code:function:x.go::Rope.Concat", Kind: graph.KindMethod, Label: "Rope.Concat", Path: "x.go"},
	{UID: "code:file:a/util.go", Kind: graph.KindFile, Label: "util.go", Path: "a/util.go"},
	{UID: "code:file:b/util.go", Kind: graph.KindFile, Label: "util.go", Path: "b/util.go"},
	{UID: "code:class:server/config.go::HTTPServerConfig", Kind: graph.KindClass, Label: "HTTPServerConfig", Path: "server/config.go"},
	{UID: "code:function:lexer/json.go::parseJSONToken", Kind: graph.KindFunction, Label: "parseJSONToken", Path: "lexer/json.go"},
	{UID: "code:function:lexer/json.go::readNumber", Kind: graph.KindFunction, Label: "readNumber", Path: "lexer/json.go"},
	{UID: "doc:file:docs/guide.md", Kind: graph.KindDocFile, Label: "guide.md", Path: "docs/guide.md"},
	{UID: "doc:heading:docs/guide.md#getting-started:2", Kind: graph.KindHeading, Label: "Getting Started", Path: "docs/guide.md"},
	{UID: "doc:heading:docs/ja.md#settei:2", Kind: graph.KindHeading, Label: "設定を読み込む", Path: "docs/ja.md"},
	{UID: "code:function:ru/parser.go::ПарсерКонфигурации", Kind: graph.KindFunction, Label: "ПарсерКонфигурации", Path: "ru/parser.go"},
	{UID: "npm:package:react", Kind: graph.KindDependency, Label: "react"},
	{UID: "code:file:svc/store.go", Kind: graph.KindFile, Label: "store.go", Path: "svc/store.go"},
	{UID: "code:function:svc/store.go::SaveTask", Kind: graph.KindFunction, Label: "SaveTask", Path: "svc/store.go"},
}

func newTestResolver(tb testing.TB, nodes []graph.Node) *Resolver {
	tb.Helper()
	r, err := NewResolver(newMemSource(nodes), indexWith(tb, nodes), ResolverOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestResolver_Resolve(t *testing.T) {
	r := newTestResolver(t, resolverFixture)
	tests := []struct {
		name      string
		raw       string
		wantUID   string
		wantFrom  string
		wantExact bool
	}{
		{"exact uid", "code:function:x.go::Char.splice", "code:function:x.go::Char.splice", ResolvedDirect, false},
		{"exact uid padded", "  code:file:x.go ", "code:file:x.go", ResolvedDirect, false},
		{"raw code path", "x.go", "code:file:x.go", ResolvedPathPrefix, false},
		{"raw path dot slash", "./a/util.go", "code:file:a/util.go", ResolvedPathPrefix, false},
		{"raw doc path", "docs/guide.md", "doc:file:docs/guide.md", ResolvedPathPrefix, false},
		{"folder trailing slash", "docs/", "folder:docs", ResolvedPathPrefix, false},
		{"folder without slash", "docs", "folder:docs", ResolvedPathPrefix, false},
		{"root folder", "./", "folder:.", ResolvedPathPrefix, false},
		{"path and name", "x.go::Char.splice", "code:function:x.go::Char.splice", ResolvedPathPrefix, false},
		{"heading without level", "docs/guide.md#getting-started", "doc:heading:docs/guide.md#getting-started:2", ResolvedPathPrefix, false},
		{"package name", "react", "npm:package:react", ResolvedPathPrefix, false},
		{"go method by bare name", "splice", "code:function:x.go::Char.splice", ResolvedFuzzy, true},
		{"go method by bare name, label is Type.method", "Concat", "code:function:x.go::Rope.Concat", ResolvedFuzzy, true},
		{"label ignoring case", "httpserverconfig", "code:class:server/config.go::HTTPServerConfig", ResolvedFuzzy, true},
		{"camelCase fragment", "ServerConf", "code:class:server/config.go::HTTPServerConfig", ResolvedFuzzy, false},
		{"camelCase fragment words", "json token", "code:function:lexer/json.go::parseJSONToken", ResolvedFuzzy, false},
		{"one typo", "parseJSONTokem", "code:function:lexer/json.go::parseJSONToken", ResolvedFuzzy, false},
		{"one typo short", "splize", "code:function:x.go::Char.splice", ResolvedFuzzy, false},
		{"two typos", "HTTPServrConfg", "code:class:server/config.go::HTTPServerConfig", ResolvedFuzzy, false},
		{"two typos transposed", "raedNumbre", "code:function:lexer/json.go::readNumber", ResolvedFuzzy, false},
		{"CJK label", "設定を読み込む", "doc:heading:docs/ja.md#settei:2", ResolvedFuzzy, true},
		{"CJK fragment", "読み込む", "doc:heading:docs/ja.md#settei:2", ResolvedFuzzy, false},
		{"Cyrillic label", "ПарсерКонфигурации", "code:function:ru/parser.go::ПарсерКонфигурации", ResolvedFuzzy, true},
		{"Cyrillic fragment lowercase", "конфигурации", "code:function:ru/parser.go::ПарсерКонфигурации", ResolvedFuzzy, false},
		{"Cyrillic typo", "ПарсерКонфигурацыи", "code:function:ru/parser.go::ПарсерКонфигурации", ResolvedFuzzy, false},
		{"missing uid falls back to its body", "code:function:x.go::Rope.Concatt", "code:function:x.go::Rope.Concat", ResolvedFuzzy, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Resolve(context.Background(), tt.raw)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.raw, err)
			}
			if got.Node.UID != tt.wantUID || got.ResolvedFrom != tt.wantFrom || got.ExactName != tt.wantExact {
				t.Errorf("Resolve(%q) = %s from %s exact=%v, want %s from %s exact=%v",
					tt.raw, got.Node.UID, got.ResolvedFrom, got.ExactName, tt.wantUID, tt.wantFrom, tt.wantExact)
			}
			if want, _ := newMemSource(resolverFixture).Node(tt.wantUID); got.Node.Label != want.Label || got.Node.Kind != want.Kind {
				t.Errorf("resolved node %+v is not the graph's %+v", got.Node, want)
			}
		})
	}
}

func TestResolver_Resolve_Ambiguous(t *testing.T) {
	r := newTestResolver(t, resolverFixture)
	tests := []struct {
		name string
		raw  string
		want []string // must all be among the candidates
	}{
		{"basename shared by two files", "util.go", []string{"code:file:a/util.go", "code:file:b/util.go"}},
		{"fragment shared by two files", "util", []string{"code:file:a/util.go", "code:file:b/util.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Resolve(context.Background(), tt.raw)
			var amb *AmbiguousError
			if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("Resolve(%q) = %s, %v; want *AmbiguousError", tt.raw, res.Node.UID, err)
			}
			got := uids(amb.Candidates)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("candidates %q lack %q", got, w)
				}
			}
			for i, c := range amb.Candidates {
				if c.Kind == "" || c.Path == "" || c.Score <= 0 {
					t.Errorf("candidate %d incomplete: %+v", i, c)
				}
				if i > 0 && c.Score > amb.Candidates[i-1].Score {
					t.Errorf("candidates not ranked: %+v", amb.Candidates)
				}
			}
		})
	}
}

func TestResolver_Resolve_ClearWinnerRule(t *testing.T) {
	// Two nodes that a query fits equally well: no candidate is 1.5× the
	// other, so the answer is ambiguous, not the first of them.
	nodes := []graph.Node{
		{UID: "code:function:a.go::loadUserProfileA", Kind: graph.KindFunction, Label: "loadUserProfileA", Path: "a.go"},
		{UID: "code:function:b.go::loadUserProfileB", Kind: graph.KindFunction, Label: "loadUserProfileB", Path: "b.go"},
	}
	r := newTestResolver(t, nodes)
	_, err := r.Resolve(context.Background(), "loadUserProfle")
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("Resolve = %v, want *AmbiguousError", err)
	}
	if len(amb.Candidates) != 2 || amb.Candidates[0].Score >= DefaultClearWinnerRatio*amb.Candidates[1].Score {
		t.Errorf("candidates %+v", amb.Candidates)
	}

	if amb.Candidates[0].Match != "whole" {
		t.Errorf("decided by tier %q, want whole", amb.Candidates[0].Match)
	}

	// One edit from A, two from B: A scores higher. Whether that is "clear"
	// is the ratio's call.
	for _, tt := range []struct {
		ratio float64
		want  string // "" for ambiguous
	}{
		{1, "code:function:a.go::loadUserProfileA"},
		{100, ""},
	} {
		rr, err := NewResolver(newMemSource(nodes), r.idx, ResolverOptions{ClearWinnerRatio: tt.ratio})
		if err != nil {
			t.Fatal(err)
		}
		got, err := rr.Resolve(context.Background(), "loadUserProfleA")
		switch {
		case tt.want == "" && !errors.Is(err, ErrAmbiguous):
			t.Errorf("ratio %v: %s, %v; want ambiguous", tt.ratio, got.Node.UID, err)
		case tt.want != "" && (err != nil || got.Node.UID != tt.want):
			t.Errorf("ratio %v: %s, %v; want %s", tt.ratio, got.Node.UID, err, tt.want)
		}
	}
}

func TestResolver_Resolve_NotFound(t *testing.T) {
	r := newTestResolver(t, resolverFixture)
	tests := []struct {
		name      string
		raw       string
		wantSugg  string // "" when no suggestion is required
		wantEmpty bool
	}{
		{"no word matches", "qqqzzzxxyy", "", true},
		{"one word matches", "frobnicate number", "code:function:lexer/json.go::readNumber", false},
		{"empty", "   ", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Resolve(context.Background(), tt.raw)
			var nf *NotFoundError
			if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) {
				t.Fatalf("Resolve(%q) = %s, %v; want *NotFoundError", tt.raw, res.Node.UID, err)
			}
			if nf.Strict {
				t.Error("Strict set on a non-strict lookup")
			}
			if tt.wantEmpty && len(nf.Suggestions) != 0 {
				t.Errorf("suggestions %q, want none", uids(nf.Suggestions))
			}
			if tt.wantSugg != "" && !slices.Contains(uids(nf.Suggestions), tt.wantSugg) {
				t.Errorf("suggestions %q lack %q", uids(nf.Suggestions), tt.wantSugg)
			}
		})
	}
}

func TestResolver_ResolveStrict(t *testing.T) {
	r := newTestResolver(t, resolverFixture)
	ok := []struct{ raw, uid, from string }{
		{"code:function:x.go::Char.splice", "code:function:x.go::Char.splice", ResolvedDirect},
		{"x.go", "code:file:x.go", ResolvedPathPrefix},
		{"docs/", "folder:docs", ResolvedPathPrefix},
		{"x.go::Rope.Concat", "code:function:x.go::Rope.Concat", ResolvedPathPrefix},
	}
	for _, tt := range ok {
		got, err := r.ResolveStrict(context.Background(), tt.raw)
		if err != nil || got.Node.UID != tt.uid || got.ResolvedFrom != tt.from {
			t.Errorf("ResolveStrict(%q) = %s from %s, %v; want %s from %s", tt.raw, got.Node.UID, got.ResolvedFrom, err, tt.uid, tt.from)
		}
	}

	// Near misses: each has one obvious neighbour, which must come back as
	// a suggestion and never as the answer.
	miss := []struct{ raw, neighbour string }{
		{"code:function:x.go::Char.splce", "code:function:x.go::Char.splice"},
		{"x.go::Char.splce", "code:function:x.go::Char.splice"},
		{"splice", "code:function:x.go::Char.splice"},
		{"SaveTsk", "code:function:svc/store.go::SaveTask"},
		{"svc/stor.go", "code:file:svc/store.go"},
		{"code:file:svc/store.go::SaveTsk", "code:function:svc/store.go::SaveTask"},
	}
	for _, tt := range miss {
		res, err := r.ResolveStrict(context.Background(), tt.raw)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) {
			t.Errorf("ResolveStrict(%q) = %s, %v; want *NotFoundError", tt.raw, res.Node.UID, err)
			continue
		}
		if !nf.Strict {
			t.Errorf("ResolveStrict(%q): Strict not set", tt.raw)
		}
		if res.Node.UID != "" {
			t.Errorf("ResolveStrict(%q) answered %s alongside the error", tt.raw, res.Node.UID)
		}
		if !slices.Contains(uids(nf.Suggestions), tt.neighbour) {
			t.Errorf("ResolveStrict(%q) suggestions %q lack %q", tt.raw, uids(nf.Suggestions), tt.neighbour)
		}
	}

	// Strict path_prefix can still be ambiguous (never silently the first).
	amb := append(slices.Clone(resolverFixture), graph.Node{UID: "code:module:react", Kind: graph.KindModule, Label: "react"})
	r2 := newTestResolver(t, amb)
	if _, err := r2.ResolveStrict(context.Background(), "react"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ResolveStrict(react) with a module and a package = %v, want ErrAmbiguous", err)
	}
}

func TestResolver_IndexAheadOfView(t *testing.T) {
	// The index holds a node the view (a past seq) does not: the resolver
	// must not answer with it.
	ix := indexWith(t, resolverFixture)
	view := newMemSource(slices.DeleteFunc(slices.Clone(resolverFixture), func(n graph.Node) bool {
		return n.UID == "code:function:lexer/json.go::parseJSONToken"
	}))
	r, err := NewResolver(view, ix, ResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Resolve(context.Background(), "parseJSONToken")
	if err == nil {
		t.Fatalf("resolved %s, a node the view does not hold", res.Node.UID)
	}
	var nf *NotFoundError
	if errors.As(err, &nf) && slices.Contains(uids(nf.Suggestions), "code:function:lexer/json.go::parseJSONToken") {
		t.Errorf("suggested a node the view does not hold")
	}
}

func TestResolver_NodeSourceAheadOfIndex(t *testing.T) {
	// A node the index has not seen yet is still found by exact label.
	fresh := graph.Node{UID: "code:function:new.go::brandNew", Kind: graph.KindFunction, Label: "brandNew", Path: "new.go"}
	r, err := NewResolver(newMemSource(append(slices.Clone(resolverFixture), fresh)), indexWith(t, resolverFixture), ResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Resolve(context.Background(), "brandNew")
	if err != nil || got.Node.UID != fresh.UID || !got.ExactName {
		t.Errorf("Resolve(brandNew) = %+v, %v", got, err)
	}
}

func TestResolver_NoIndex(t *testing.T) {
	r, err := NewResolver(newMemSource(resolverFixture), nil, ResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := r.Resolve(ctx, "splice"); err != nil || got.Node.UID != "code:function:x.go::Char.splice" {
		t.Errorf("Resolve(splice) without index = %+v, %v", got, err)
	}
	if _, err := r.Resolve(ctx, "splize"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(splize) without index = %v, want ErrNotFound", err)
	}
}

func TestResolver_Canceled(t *testing.T) {
	r := newTestResolver(t, resolverFixture)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Resolve(ctx, "x.go"); !errors.Is(err, context.Canceled) {
		t.Errorf("Resolve(canceled) = %v", err)
	}
}

func TestResolverOptions_Validate(t *testing.T) {
	bad := []ResolverOptions{
		{ClearWinnerRatio: 0.5},
		{MaxCandidates: 1},
		{MaxCandidates: 101},
		{MaxSuggestions: 101},
	}
	for _, o := range bad {
		if _, err := NewResolver(newMemSource(nil), nil, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewResolver(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
	if _, err := NewResolver(nil, nil, ResolverOptions{}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("NewResolver(nil source) = %v", err)
	}
	if err := (ResolverOptions{ClearWinnerRatio: 2, MaxCandidates: 5, MaxSuggestions: -1}).Validate(); err != nil {
		t.Errorf("valid options rejected: %v", err)
	}
}

func TestErrors_Messages(t *testing.T) {
	amb := &AmbiguousError{Query: "util.go", Candidates: []Candidate{{UID: "code:file:a/util.go"}, {UID: "code:file:b/util.go"}}}
	nf := &NotFoundError{Query: "splce", Strict: true, Suggestions: []Candidate{{UID: "code:function:x.go::Char.splice"}}}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{amb, `"util.go" is ambiguous: 2 candidates (code:file:a/util.go, code:file:b/util.go)`},
		{nf, `no node matches "splce" (strict: uid or repo-relative path required); did you mean code:function:x.go::Char.splice`},
		{&NotFoundError{Query: "q"}, `no node matches "q"`},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestQueryVariants(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"splice", []string{"splice"}},
		{"code:function:x.go::Char.splce", []string{"Char.splce", "splce"}},
		{"x.go::Run", []string{"Run"}},
		{"svc/stor.go", []string{"svc/stor.go", "stor.go"}},
		{"client/type_error.go:findCount", []string{"client/type_error.go:findCount", "type_error.go:findCount", "findCount"}},
		{"doc:heading:docs/a.md#uid-scheme:2", []string{"docs/a.md#uid-scheme:2", "a.md#uid-scheme:2", "uid-scheme"}},
		{"README.md#intro", []string{"README.md#intro", "intro"}},
	}
	for _, tt := range tests {
		if got := queryVariants(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("queryVariants(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
