package search

import (
	"context"
	"errors"
	"fmt"
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

	if amb.Candidates[0].Match != MatchWholeLabel {
		t.Errorf("decided by tier %q, want %s", amb.Candidates[0].Match, MatchWholeLabel)
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

// stub is an unresolved call target's node, as the Go extractor makes it.
func stub(uid, label string) graph.Node {
	return graph.Node{UID: uid, Kind: graph.KindExternal, Label: label, Metadata: map[string]any{"stub": true}}
}

// excluded marks n as left out of the build (a foo_windows.go on linux).
func excluded(n graph.Node) graph.Node {
	n.Metadata = map[string]any{graph.MetaBuildExcluded: true}
	return n
}

func TestResolver_Resolve_StubNeverWinsAName(t *testing.T) {
	ctx := context.Background()
	newRequest := graph.Node{UID: "code:function:request.go::NewRequest", Kind: graph.KindFunction, Label: "NewRequest", Path: "request.go"}
	get := graph.Node{UID: "code:function:client.go::Get", Kind: graph.KindFunction, Label: "Get", Path: "client.go"}
	stubs := []graph.Node{
		stub("code:external:NewRequest", "NewRequest"),
		stub("code:external:net/http.Get", "net/http.Get"),
	}
	type want struct{ uid, from, match string }
	for _, tt := range []struct {
		name  string
		nodes []graph.Node
		raw   string
		want  want
	}{
		{"name with stub and function", []graph.Node{stubs[0], newRequest}, "NewRequest", want{newRequest.UID, ResolvedFuzzy, MatchExact}},
		{"name with the stub alone", []graph.Node{stubs[0]}, "NewRequest", want{stubs[0].UID, ResolvedPathPrefix, MatchPath}},
		{"stub uid is direct", []graph.Node{stubs[0], newRequest}, "code:external:NewRequest", want{stubs[0].UID, ResolvedDirect, MatchUID}},
		{"bare name of a stub", []graph.Node{stubs[1], get}, "Get", want{get.UID, ResolvedFuzzy, MatchExact}},
		{"bare name of a stub alone", []graph.Node{stubs[1]}, "Get", want{stubs[1].UID, ResolvedFuzzy, MatchBareName}},
		{"qualified stub uid is direct", []graph.Node{stubs[1], get}, "code:external:net/http.Get", want{stubs[1].UID, ResolvedDirect, MatchUID}},
		{"typo ranks the stub below", []graph.Node{stubs[0], newRequest}, "NewRequst", want{newRequest.UID, ResolvedFuzzy, MatchWholeLabel}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newTestResolver(t, tt.nodes).Resolve(ctx, tt.raw)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.raw, err)
			}
			if g := (want{got.Node.UID, got.ResolvedFrom, got.Match}); g != tt.want || got.Score <= 0 {
				t.Errorf("Resolve(%q) = %+v score %v, want %+v", tt.raw, g, got.Score, tt.want)
			}
		})
	}

	t.Run("strict never lands on the stub by name", func(t *testing.T) {
		r := newTestResolver(t, []graph.Node{stubs[0], newRequest})
		res, err := r.ResolveStrict(ctx, "NewRequest")
		var amb *AmbiguousError
		if !errors.As(err, &amb) {
			t.Fatalf("ResolveStrict(NewRequest) = %s, %v; want *AmbiguousError", res.Node.UID, err)
		}
		if got := uids(amb.Candidates); !slices.Equal(got, []string{newRequest.UID, stubs[0].UID}) {
			t.Errorf("candidates %q, want the function then the stub", got)
		}
		alone := newTestResolver(t, []graph.Node{stubs[0]})
		if res, err := alone.ResolveStrict(ctx, "NewRequest"); err != nil || res.Node.UID != stubs[0].UID || res.ResolvedFrom != ResolvedPathPrefix {
			t.Errorf("ResolveStrict(NewRequest) with the stub alone = %+v, %v", res, err)
		}
	})

	t.Run("stubs do not crowd out an in-tree name", func(t *testing.T) {
		// More stubs labelled Get than the index returns, all scoring above
		// a method whose bare name is Get: the method still wins.
		method := graph.Node{UID: "code:function:hdr.go::Header.Get", Kind: graph.KindMethod, Label: "Header.Get", Path: "hdr.go"}
		nodes := []graph.Node{method}
		for i := range DefaultMaxCandidates + 2 {
			nodes = append(nodes, stub(fmt.Sprintf("code:external:pkg%02d.Get", i), "Get"))
		}
		got, err := newTestResolver(t, nodes).Resolve(ctx, "Get")
		if err != nil || got.Node.UID != method.UID || got.Match != MatchBareName {
			t.Errorf("Resolve(Get) = %s (%s), %v; want %s", got.Node.UID, got.Match, err, method.UID)
		}
	})
}

func TestResolver_Resolve_ExactCaseWins(t *testing.T) {
	ctx := context.Background()
	lower := graph.Node{UID: "code:function:a.go::send", Kind: graph.KindFunction, Label: "send", Path: "a.go"}
	method := graph.Node{UID: "code:function:b.go::Client.send", Kind: graph.KindMethod, Label: "Client.send", Path: "b.go"}
	upper := graph.Node{UID: "code:function:c.go::Send", Kind: graph.KindFunction, Label: "Send", Path: "c.go"}
	for _, tt := range []struct {
		name      string
		nodes     []graph.Node
		raw       string
		wantUID   string
		wantMatch string
	}{
		{"exact label over bare name and case", []graph.Node{lower, method, upper}, "send", lower.UID, MatchExact},
		{"exact label, other case", []graph.Node{lower, method, upper}, "Send", upper.UID, MatchExact},
		{"bare name over case-insensitive label", []graph.Node{method, upper}, "send", method.UID, MatchBareName},
		{"case-insensitive alone", []graph.Node{upper}, "send", upper.UID, MatchExactCaseInsensitive},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newTestResolver(t, tt.nodes).Resolve(ctx, tt.raw)
			if err != nil || got.Node.UID != tt.wantUID || got.Match != tt.wantMatch || !got.ExactName {
				t.Errorf("Resolve(%q) = %s (%s, exact=%v), %v; want %s (%s)", tt.raw, got.Node.UID, got.Match, got.ExactName, err, tt.wantUID, tt.wantMatch)
			}
		})
	}

	t.Run("two exact-case labels stay ambiguous", func(t *testing.T) {
		nodes := []graph.Node{
			{UID: "code:file:a/util.go", Kind: graph.KindFile, Label: "util.go", Path: "a/util.go"},
			{UID: "code:file:b/util.go", Kind: graph.KindFile, Label: "util.go", Path: "b/util.go"},
			{UID: "code:file:c/Util.go", Kind: graph.KindFile, Label: "Util.go", Path: "c/Util.go"},
		}
		_, err := newTestResolver(t, nodes).Resolve(ctx, "util.go")
		var amb *AmbiguousError
		if !errors.As(err, &amb) {
			t.Fatalf("Resolve(util.go) = %v, want *AmbiguousError", err)
		}
		got := uids(amb.Candidates)
		if !slices.Equal(got, []string{"code:file:a/util.go", "code:file:b/util.go", "code:file:c/Util.go"}) {
			t.Errorf("candidates %q, want the two exact ones (by uid) then the other case", got)
		}
		if amb.Candidates[0].Match != MatchExact || amb.Candidates[2].Match != MatchExactCaseInsensitive {
			t.Errorf("matches %+v", amb.Candidates)
		}
	})
}

func TestResolver_Resolve_BuildExcluded(t *testing.T) {
	ctx := context.Background()
	windows := excluded(graph.Node{UID: "code:function:dial_windows.go::Dial", Kind: graph.KindFunction, Label: "Dial", Path: "dial_windows.go"})
	plan9 := excluded(graph.Node{UID: "code:function:dial_plan9.go::Dial", Kind: graph.KindFunction, Label: "Dial", Path: "dial_plan9.go"})
	linux := graph.Node{UID: "code:function:dial_linux.go::Dial", Kind: graph.KindFunction, Label: "Dial", Path: "dial_linux.go"}
	lowerIncluded := graph.Node{UID: "code:function:x.go::dial", Kind: graph.KindFunction, Label: "dial", Path: "x.go"}
	for _, tt := range []struct {
		name    string
		nodes   []graph.Node
		raw     string
		wantUID string // "" for ambiguous
	}{
		{"included wins the name", []graph.Node{windows, plan9, linux}, "Dial", linux.UID},
		{"included wins a typo", []graph.Node{windows, linux}, "Dail", linux.UID},
		{"excluded alone is found", []graph.Node{windows}, "Dial", windows.UID},
		{"two excluded alone are ambiguous", []graph.Node{windows, plan9}, "Dial", ""},
		{"a better match level still wins", []graph.Node{windows, lowerIncluded}, "Dial", windows.UID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newTestResolver(t, tt.nodes).Resolve(ctx, tt.raw)
			switch {
			case tt.wantUID == "" && !errors.Is(err, ErrAmbiguous):
				t.Errorf("Resolve(%q) = %s, %v; want ambiguous", tt.raw, got.Node.UID, err)
			case tt.wantUID != "" && (err != nil || got.Node.UID != tt.wantUID):
				t.Errorf("Resolve(%q) = %s, %v; want %s", tt.raw, got.Node.UID, err, tt.wantUID)
			}
		})
	}
}

func TestResolver_Candidates(t *testing.T) {
	ctx := context.Background()
	nodes := []graph.Node{
		stub("code:external:NewRequest", "NewRequest"),
		{UID: "code:function:request.go::NewRequest", Kind: graph.KindFunction, Label: "NewRequest", Path: "request.go"},
		{UID: "code:function:client.go::Client.NewRequest", Kind: graph.KindMethod, Label: "Client.NewRequest", Path: "client.go"},
		excluded(graph.Node{UID: "code:function:req_windows.go::NewRequest", Kind: graph.KindFunction, Label: "NewRequest", Path: "req_windows.go"}),
		{UID: "code:function:request.go::NewRequestWithContext", Kind: graph.KindFunction, Label: "NewRequestWithContext", Path: "request.go"},
		{UID: "code:file:request.go", Kind: graph.KindFile, Label: "request.go", Path: "request.go"},
	}
	r := newTestResolver(t, nodes)
	got, err := r.Candidates(ctx, "NewRequest", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ uid, match string }
	want := []row{
		{"code:function:request.go::NewRequest", MatchExact},
		{"code:function:req_windows.go::NewRequest", MatchExact},
		{"code:function:client.go::Client.NewRequest", MatchBareName},
		{"code:external:NewRequest", MatchPath},
		{"code:function:request.go::NewRequestWithContext", MatchWholeLabel},
	}
	var rows []row
	for i, c := range got {
		rows = append(rows, row{c.UID, c.Match})
		if i > 0 && (c.Score > got[i-1].Score || (c.Score == got[i-1].Score && c.UID < got[i-1].UID)) {
			t.Errorf("not ordered by score, then uid, at %d: %+v", i, got)
		}
	}
	if !slices.Equal(rows, want) {
		t.Errorf("Candidates(NewRequest) =\n%+v\nwant\n%+v", rows, want)
	}
	res, err := r.Resolve(ctx, "NewRequest")
	if err != nil || res.Node.UID != got[0].UID || res.Score != got[0].Score {
		t.Errorf("Resolve = %+v, %v; want the first candidate %+v", res, err, got[0])
	}

	// Kinds and limit.
	got, err = r.Candidates(ctx, "NewRequest", []string{graph.KindMethod, graph.KindExternal}, 10)
	if err != nil || !slices.Equal(uids(got), []string{"code:function:client.go::Client.NewRequest", "code:external:NewRequest"}) {
		t.Errorf("Candidates(NewRequest, method|external) = %q, %v", uids(got), err)
	}
	if got, err = r.Candidates(ctx, "NewRequest", nil, 2); err != nil || len(got) != 2 {
		t.Errorf("Candidates(limit 2) = %q, %v", uids(got), err)
	}
	// A uid is itself, first.
	if got, err = r.Candidates(ctx, "code:external:NewRequest", nil, 10); err != nil || len(got) == 0 || got[0].UID != "code:external:NewRequest" || got[0].Match != MatchUID {
		t.Errorf("Candidates(stub uid) = %+v, %v", got, err)
	}
	if got, err = r.Candidates(ctx, "  ", nil, 10); err != nil || len(got) != 0 {
		t.Errorf("Candidates(blank) = %+v, %v", got, err)
	}
}

func TestLevelOf_Order(t *testing.T) {
	// Best first: every in-tree level of a stage above its external ones,
	// and those above the next stage.
	order := []struct {
		match    string
		external bool
	}{
		{MatchUID, false}, {MatchUID, true},
		{MatchPath, false}, {MatchExact, false}, {MatchBareName, false}, {MatchExactCaseInsensitive, false}, {MatchPathCaseInsensitive, false},
		{MatchPath, true}, {MatchExact, true}, {MatchBareName, true}, {MatchExactCaseInsensitive, true}, {MatchPathCaseInsensitive, true},
		{MatchWholeLabel, false}, {MatchWholeLabel, true},
		{MatchWords, false}, {MatchWords, true},
		{MatchTypo, false}, {MatchTypo, true},
		{MatchAnyWord, false}, {MatchAnyWord, true},
	}
	for i, o := range order {
		if got := levelOf(o.match, o.external); got != len(order)-i {
			t.Errorf("levelOf(%s, external=%v) = %d, want %d", o.match, o.external, got, len(order)-i)
		}
	}
	if levelOf(MatchWholePath, false) != levelOf(MatchWholeLabel, false) || levelOf("bogus", false) != 0 {
		t.Error("whole_path and whole_label differ, or an unknown kind has a level")
	}
}

// TestResolver_Candidates_ExactNameSkipsTypos: a name an in-tree node
// carries exactly lists its exact matches, then what it prefixes, never its
// typo neighbours (the typo search is most of a lookup's cost); a name no
// node carries still finds them.
func TestResolver_Candidates_ExactNameSkipsTypos(t *testing.T) {
	ctx := context.Background()
	nodes := []graph.Node{
		{UID: "code:function:a.go::Handler", Kind: graph.KindFunction, Label: "Handler", Path: "a.go"},
		{UID: "code:function:a.go::HandlerFunc", Kind: graph.KindFunction, Label: "HandlerFunc", Path: "a.go"},
		{UID: "code:function:b.go::Handles", Kind: graph.KindFunction, Label: "Handles", Path: "b.go"},
	}
	r := newTestResolver(t, nodes)
	got, err := r.Candidates(ctx, "Handler", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"code:function:a.go::Handler", "code:function:a.go::HandlerFunc"}; !slices.Equal(uids(got), want) {
		t.Errorf("Candidates(Handler) = %q, want %q", uids(got), want)
	}
	got, err = r.Candidates(ctx, "Handlr", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(uids(got), "code:function:a.go::Handler") || !slices.Contains(uids(got), "code:function:b.go::Handles") {
		t.Errorf("Candidates(Handlr) = %q, want the typo neighbours", uids(got))
	}
}
