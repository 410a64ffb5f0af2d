package search

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestResolver_TierMemo_SameAnswers: under WithTierMemo, Resolve followed
// by Candidates (what cos_graph_resolve runs) answers exactly as without
// it, for queries of every tier (uids, paths, exact and bare names, an
// ambiguous name, prefixes, words, typos, a miss), with kinds and limits
// asked under one memo; and the memo holds what was searched.
func TestResolver_TierMemo_SameAnswers(t *testing.T) {
	nodes := append(slicesClone(resolverFixture),
		graph.Node{UID: "code:function:a/util.go::String", Kind: graph.KindFunction, Label: "String", Path: "a/util.go"},
		graph.Node{UID: "code:function:b/util.go::T.String", Kind: graph.KindMethod, Label: "T.String", Path: "b/util.go"},
		graph.Node{UID: "code:function:b/util.go::U.String", Kind: graph.KindMethod, Label: "U.String", Path: "b/util.go"},
		stub("code:external:fmt.Stringer", "Stringer"),
	)
	r := newTestResolver(t, nodes)
	queries := []string{
		"code:file:x.go", "x.go", "a/util.go", "util.go", "splice", "Char.splice", "Rope.Concat", "Concat",
		"String", "Str", "HTTPServer", "server config", "parseJSON", "readNumbr", "json token", "SaveTask",
		"Getting Started", "react", "nothing-like-it", "ПарсерКонфигурации", "docs/", "x.go::Char.splice",
	}
	type answer struct {
		Res   Resolution
		Err   string
		Cands []Candidate
		CErr  error
	}
	ask := func(ctx context.Context, q string, kinds []string, limit int) answer {
		var a answer
		res, err := r.Resolve(ctx, q)
		a.Res = res
		if err != nil {
			a.Err = fmt.Sprintf("%T %v", err, err)
			var amb *AmbiguousError
			var nf *NotFoundError
			if errors.As(err, &amb) {
				a.Err += fmt.Sprint(amb.Candidates)
			} else if errors.As(err, &nf) {
				a.Err += fmt.Sprint(nf.Suggestions)
			}
		}
		a.Cands, a.CErr = r.Candidates(ctx, q, kinds, limit)
		return a
	}
	for _, q := range queries {
		// One memo for every kinds and limit of q: none may answer
		// another's.
		ctx := WithTierMemo(context.Background())
		for _, c := range []struct {
			kinds []string
			limit int
		}{{nil, 10}, {nil, 3}, {[]string{graph.KindMethod}, 10}} {
			plain := ask(context.Background(), q, c.kinds, c.limit)
			memo := ask(ctx, q, c.kinds, c.limit)
			if !reflect.DeepEqual(plain, memo) {
				t.Errorf("%q kinds %v limit %d:\nwithout memo %+v\nwith memo    %+v", q, c.kinds, c.limit, plain, memo)
			}
			if again := ask(ctx, q, c.kinds, c.limit); !reflect.DeepEqual(plain, again) {
				t.Errorf("%q kinds %v limit %d, asked twice under one memo:\n%+v\nwant %+v", q, c.kinds, c.limit, again, plain)
			}
		}
	}
	ctx := WithTierMemo(context.Background())
	if _, err := r.Candidates(ctx, "String", nil, 10); err != nil {
		t.Fatal(err)
	}
	if m := ctx.Value(tierMemoKey{}).(*tierMemo); len(m.m) == 0 {
		t.Error("Candidates under WithTierMemo left the memo empty")
	}
}

func slicesClone(ns []graph.Node) []graph.Node { return append([]graph.Node(nil), ns...) }
