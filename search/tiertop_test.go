package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// manyNamesFixture is n nodes sharing a few names in several cases and
// shapes (functions, methods whose bare name is the name, stubs,
// build-excluded ones, one-letter-off names), so the tiers of "get" and its
// case variants have more hits than tierTop's first page, in every class.
func manyNamesFixture(seed uint64, n int) []graph.Node {
	rng := rand.New(rand.NewPCG(seed, seed))
	names := []string{"get", "Get", "GET", "gets", "Getter", "got"}
	var nodes []graph.Node
	for i := range n {
		name := names[rng.IntN(len(names))]
		p := fmt.Sprintf("p%03d/f.go", i)
		var nd graph.Node
		switch rng.IntN(4) {
		case 0:
			nd = graph.Node{UID: "code:function:" + p + "::" + name, Kind: graph.KindFunction, Label: name, Path: p}
		case 1:
			nd = graph.Node{UID: fmt.Sprintf("code:function:%s::T%d.%s", p, i, name), Kind: graph.KindMethod, Label: fmt.Sprintf("T%d.%s", i, name), Path: p}
		case 2:
			nd = graph.Node{UID: fmt.Sprintf("code:function:%s::T%d.%s", p, i, name), Kind: graph.KindMethod, Label: name, Path: p}
		default:
			nd = stub(fmt.Sprintf("code:external:pkg%d.%s", i, name), fmt.Sprintf("pkg%d.%s", i, name))
		}
		if nd.Kind != graph.KindExternal && rng.IntN(5) == 0 {
			nd = excluded(nd)
		}
		nodes = append(nodes, nd)
	}
	return nodes
}

// Every limit is the top of ranking every hit: Candidates of a small limit
// (paged by tierTop, first page 64 hits) equals the prefix of limit 1000,
// whose first page holds every hit of the fixture, on an index with the
// name_exact field and on a version-3 index without it.
func TestResolver_TierTop_EqualsRankingAll(t *testing.T) {
	ctx := context.Background()
	for _, nameExact := range []bool{true, false} {
		for seed := range uint64(3) {
			nodes := manyNamesFixture(seed, 600)
			r := newTestResolver(t, nodes)
			r.idx.nameExact = nameExact
			for _, q := range []string{"get", "Get", "GET", "gets", "Getter", "gett", "T1.get"} {
				all, err := r.Candidates(ctx, q, nil, MaxSearchLimit)
				if err != nil {
					t.Fatal(err)
				}
				if len(all) >= MaxSearchLimit {
					t.Fatalf("%q: %d candidates: the reference must rank every hit", q, len(all))
				}
				for _, k := range []int{1, 2, 3, 5, 10, 25, 70, 200} {
					got, err := r.Candidates(ctx, q, nil, k)
					if err != nil {
						t.Fatal(err)
					}
					if want := all[:min(k, len(all))]; !slices.Equal(got, want) {
						t.Fatalf("name_exact %v, seed %d: Candidates(%q, %d) =\n%v\nwant the top of ranking all:\n%v", nameExact, seed, q, k, got, want)
					}
				}
				// Resolve decides on the same order: its winner or its
				// ambiguous candidates are the top of it.
				res, err := r.Resolve(ctx, q)
				var amb *AmbiguousError
				switch {
				case err == nil:
					if res.Node.UID != all[0].UID {
						t.Errorf("name_exact %v, seed %d: Resolve(%q) = %s, want the top %s", nameExact, seed, q, res.Node.UID, all[0].UID)
					}
				case errors.As(err, &amb):
					if want := all[:min(len(all), DefaultMaxCandidates)]; !slices.Equal(amb.Candidates, want) {
						t.Errorf("name_exact %v, seed %d: Resolve(%q) ambiguous among\n%v\nwant\n%v", nameExact, seed, q, amb.Candidates, want)
					}
				default:
					t.Errorf("Resolve(%q): %v", q, err)
				}
			}
		}
	}
}

// More hits than the old pool of 1,000: the one method whose bare name is
// "get", case included, wins over 1,001 functions labelled Get that the
// index scores higher for "get". Ranking the 1,000 best-scored hits missed
// it and answered ambiguous.
func TestResolver_Resolve_BestLevelBeyondAThousandHits(t *testing.T) {
	nodes := []graph.Node{{UID: "code:function:z/cache.go::Cache.get", Kind: graph.KindMethod, Label: "Cache.get", Path: "z/cache.go"}}
	for i := range MaxSearchLimit + 1 {
		p := fmt.Sprintf("a%04d/api.go", i)
		nodes = append(nodes, graph.Node{UID: "code:function:" + p + "::Get", Kind: graph.KindFunction, Label: "Get", Path: p})
	}
	r := newTestResolver(t, nodes)
	res, err := r.Resolve(context.Background(), "get")
	if err != nil {
		t.Fatalf("Resolve(get): %v", err)
	}
	if res.Node.UID != "code:function:z/cache.go::Cache.get" || res.Match != MatchBareName {
		t.Errorf("Resolve(get) = %s (%s), want Cache.get (bare_name)", res.Node.UID, res.Match)
	}
}

// BenchmarkResolve_Ambiguous resolves a name 2,000 nodes carry as a bare
// name, beside case variants: an *AmbiguousError listing the best 10.
func BenchmarkResolve_Ambiguous(b *testing.B) {
	var nodes []graph.Node
	for i := range 2000 {
		p := fmt.Sprintf("p%04d/f.go", i)
		name := "String"
		if i%10 == 0 {
			name = "string"
		}
		nodes = append(nodes, graph.Node{UID: fmt.Sprintf("code:function:%s::T%d.%s", p, i, name), Kind: graph.KindMethod, Label: fmt.Sprintf("T%d.%s", i, name), Path: p})
	}
	r := newTestResolver(b, nodes)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		var amb *AmbiguousError
		if _, err := r.Resolve(ctx, "String"); !errors.As(err, &amb) {
			b.Fatalf("Resolve(String): %v, want ambiguous", err)
		}
	}
}

// A version-3 index (before name_exact) is kept on open, not rebuilt, and
// the resolver answers from it as from a version-4 one.
func TestIndex_Format3IsReadAsItIs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	ctx := context.Background()
	nodes := manyNamesFixture(7, 300)
	first, err := OpenIndex(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Apply(ctx, nodes, nil, 42); err != nil {
		t.Fatal(err)
	}
	r4, err := NewResolver(newMemSource(nodes), first, ResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := r4.Candidates(ctx, "get", nil, 25)
	if err != nil {
		t.Fatal(err)
	}
	// What a version-3 process left: its format, and no name_exact terms.
	b := first.bi.NewBatch()
	b.SetInternal(keyFormat, []byte(formatWithoutNameExact))
	if err := first.bi.Batch(b); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := openTestIndex(t, dir)
	if again.Checkpoint() != 42 || again.nameExact {
		t.Fatalf("reopened a version-3 index: checkpoint %d, name_exact %v; want 42 (kept) and false", again.Checkpoint(), again.nameExact)
	}
	r3, err := NewResolver(newMemSource(nodes), again, ResolverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r3.Candidates(ctx, "get", nil, 25)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("version 3: %v\nwant %v", got, want)
	}
}
