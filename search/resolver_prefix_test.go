package search

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// prefixFixture has a method named get (a bare name equal to "get", case
// included) beside 30 functions labelled Get, which the index scores
// higher for "get" (their label equals it ignoring case) but the resolver
// ranks lower (MatchExactCaseInsensitive below MatchBareName).
func prefixFixture() []graph.Node {
	nodes := []graph.Node{{UID: "code:function:z/cache.go::Cache.get", Kind: graph.KindMethod, Label: "Cache.get", Path: "z/cache.go"}}
	for i := range 30 {
		p := fmt.Sprintf("a%02d/api.go", i)
		nodes = append(nodes, graph.Node{UID: "code:function:" + p + "::Get", Kind: graph.KindFunction, Label: "Get", Path: p})
	}
	return nodes
}

// A small limit is the top of a larger one: the tier's pool does not
// depend on the limit.
func TestResolver_Candidates_LimitIsPrefix(t *testing.T) {
	ctx := context.Background()
	r := newTestResolver(t, prefixFixture())
	for _, q := range []string{"get", "Get", "ge", "api"} {
		all, err := r.Candidates(ctx, q, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 2, 3, 10} {
			got, err := r.Candidates(ctx, q, nil, k)
			if err != nil {
				t.Fatal(err)
			}
			want := uids(all[:min(k, len(all))])
			if !slices.Equal(uids(got), want) {
				t.Errorf("Candidates(%q, limit %d) = %q, want the top %d of limit 100: %q", q, k, uids(got), k, want)
			}
		}
	}
}

// Resolve ranks the tier's whole pool: the one node whose bare name is
// "get", case included, wins over the 30 labelled Get the index scores
// higher.
func TestResolver_Resolve_BestLevelBeyondIndexTop(t *testing.T) {
	r := newTestResolver(t, prefixFixture())
	res, err := r.Resolve(context.Background(), "get")
	if err != nil {
		t.Fatalf("Resolve(get): %v", err)
	}
	if res.Node.UID != "code:function:z/cache.go::Cache.get" || res.Match != MatchBareName {
		t.Errorf("Resolve(get) = %s (%s), want Cache.get (bare_name)", res.Node.UID, res.Match)
	}
}
