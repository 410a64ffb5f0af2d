package search

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"

	"github.com/cos-dev/cos/graph"
)

// The best few of a tier without ranking all its hits.
//
// The index orders a tier's hits by its score; the resolver by match level,
// stub or not, build-excluded or not, then that score (newRanked). An
// ambiguous name ("String" in a Go tree: 1,500 methods) matches far more
// nodes than an answer lists, and ranking them all — each confirmed through
// the NodeSource — was most of its cost. tierTop asks the index for a page
// of the best-scored hits at a time and stops as soon as no hit it has not
// seen can enter the top: a hit not seen scores at most what the last one
// seen scored (bleve's order is score, then uid), so its rank is bounded by
// the best level it could have and that score. Hits are split into classes
// whose best level is known from the index (in-tree or external by kind;
// in the exact tier, a case-sensitive bare name equal to the query or not,
// through the name_exact field), so a class of lower levels is never paged
// through to rule out one of a higher level. The answer is the top of
// ranking every hit, whatever the page sizes: limit k is still a prefix of
// limit n.

// tierClass is a part of a tier's hits whose best rank is known.
type tierClass struct {
	// filter restricts the tier's query to the class.
	filter func(queryT) queryT
	// level is the best level (levelOf) a node of the class can have
	// that is not already among the tier's candidates (the exact tier's
	// label matches all are: NodesByLabel).
	level int
}

// tierClasses returns the classes of a tier's hits for q, best first.
func (r *Resolver) tierClasses(tier int, q string) []tierClass {
	inTree := func(q queryT) queryT { return withoutKind(q, graph.KindExternal) }
	external := func(q queryT) queryT { return withKinds(q, []string{graph.KindExternal}) }
	if tier != tierExact {
		m := tierMatch(tier, q)
		return []tierClass{
			{filter: inTree, level: levelOf(m, false)},
			{filter: external, level: levelOf(m, true)},
		}
	}
	if !r.idx.nameExact {
		// A version-3 index: a bare name's case is not in it.
		return []tierClass{
			{filter: inTree, level: levelOf(MatchBareName, false)},
			{filter: external, level: levelOf(MatchBareName, true)},
		}
	}
	named := func(f func(queryT) queryT) func(queryT) queryT {
		return func(q2 queryT) queryT { return withFilter(f(q2), term(fieldNameExact, q, 1)) }
	}
	unnamed := func(f func(queryT) queryT) func(queryT) queryT {
		return func(q2 queryT) queryT { return withoutTerm(f(q2), term(fieldNameExact, q, 1)) }
	}
	return []tierClass{
		{filter: named(inTree), level: levelOf(MatchBareName, false)},
		{filter: unnamed(inTree), level: levelOf(MatchExactCaseInsensitive, false)},
		{filter: named(external), level: levelOf(MatchBareName, true)},
		{filter: unnamed(external), level: levelOf(MatchExactCaseInsensitive, true)},
	}
}

// seenUntil is the last hit of a page: every hit of its query not in the
// page comes after it in the index's order (lower score, or the same score
// and a greater uid).
type seenUntil struct {
	score float64
	uid   string
}

// tierTop returns at least the best need candidates of query (one tier's
// query for q, kinds applied) in the resolver's order, or all of them when
// fewer match, ranked. match gives each node's Match kind. labelled (the
// exact tier: the nodes labelled q exactly, NodesByLabel) join them as
// MatchExact candidates with the best index score of the hits, or 1.
func (r *Resolver) tierTop(ctx context.Context, tier int, q string, query queryT, need int, match func(graph.Node) string, labelled []graph.Node) ([]ranked, error) {
	size := max(need, firstSearchSize)
	hits, total, err := r.idx.page(ctx, query, size, tierNames[tier], false)
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", q, err)
	}
	found := r.confirm(hits, match)
	// The label matches rank as Resolve ranks them, with the best index
	// score: the first hit's, every other hit scores at most that.
	top := 1.0
	for _, c := range found {
		top = max(top, c.index)
	}
	if len(labelled) > 0 {
		more := make([]ranked, 0, len(labelled))
		for _, n := range labelled {
			more = append(more, newRanked(n, MatchExact, top))
		}
		found = mergeRanked(found, more)
	}
	if uint64(len(hits)) >= total {
		return found, nil // every hit ranked
	}
	probe := seenUntil{hits[len(hits)-1].Score, hits[len(hits)-1].UID}
	for _, cl := range r.tierClasses(tier, q) {
		last, size := probe, size
		for !beats(found, need, cl.level, last) {
			hits, total, err := r.idx.page(ctx, cl.filter(query), size, tierNames[tier], false)
			if err != nil {
				return nil, fmt.Errorf("resolve %q: %w", q, err)
			}
			found = mergeRanked(found, r.confirm(hits, match))
			if uint64(len(hits)) >= total || len(hits) == 0 {
				break // the class is ranked whole
			}
			if h := hits[len(hits)-1]; h.Score < last.score || (h.Score == last.score && h.UID > last.uid) {
				last = seenUntil{h.Score, h.UID}
			}
			size = int(min(uint64(size)*4, total))
		}
	}
	return found, nil
}

// beats reports whether the need-th of ranked (ranked) outranks every node
// of a class whose best level is level and whose hits not seen come after
// last: its Score is above what such a node could score (level, not
// build-excluded, last's index score), or equal with a smaller uid (a node
// not seen with last's score has a uid above last's). Scores equal from
// two different index scores (rounding of index/(1+index)) are not told
// apart: bleve's scores of different hits are not that close.
func beats(ranked []ranked, need, level int, last seenUntil) bool {
	if len(ranked) < need {
		return false
	}
	c := ranked[need-1]
	bound := float64(level) + 0.5 + 0.5*last.score/(1+last.score)
	return c.Score > bound || (c.Score == bound && c.UID < last.uid)
}

// withFilter keeps the hits of q that f matches, without changing scores.
func withFilter(q, f queryT) queryT {
	b := bleve.NewBooleanQuery()
	b.AddMust(q)
	b.AddFilter(f)
	return b
}

// withoutTerm leaves out the hits of q that t matches.
func withoutTerm(q, t queryT) queryT {
	b := bleve.NewBooleanQuery()
	b.AddMust(q)
	b.AddMustNot(t)
	return b
}
