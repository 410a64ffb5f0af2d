package search

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cos-dev/cos/graph"
)

type queryT = query.Query

// A search runs in tiers, cheapest and most precise first; the resolver stops
// at the first tier that finds anything, Search goes on until it has its
// limit. Per-word matching is the expensive part (common words have long
// posting lists), so it only runs when the whole-string tiers found nothing.
//
//	tier     matches                                                   boosts
//	exact    label equal to q (ignoring case); a bare name equal to q;  20, 10
//	         for a q with '/', a path equal to q                         10
//	whole    label starting with q; label within fuzziness(q) edits     4, 3
//	         (q ≤ 32 runes); for a q with '/', the same on the paths of
//	         files and folders instead of labels
//	words    every word of q (Tokens) is a word of the label or of the  2
//	         bare name, or a prefix of one (≥ 2 runes)                   1
//	typos    every word of q is within fuzziness(word) edits of one     1
//
// Scores are bleve's tf-idf times these boosts (bleve scales fuzzy matches
// further down by their edit distance), comparable inside a tier only.
const (
	tierExact = iota
	tierWhole
	tierWords
	tierTypos
	tierCount
)

// tierNames name the tiers in logs and tests.
var tierNames = [tierCount]string{"exact", "whole", "words", "typos"}

const (
	boostLabelExact  = 20
	boostNameExact   = 10
	boostPathExact   = 10
	boostWholePrefix = 4
	boostWholeFuzzy  = 3
	boostWordExact   = 2
	boostWordPrefix  = 1
	boostWordFuzzy   = 1
)

// Limits of fuzzy and prefix matching.
const (
	// minPrefixRunes is the shortest word matched as a prefix; shorter
	// prefixes match too many terms to mean anything.
	minPrefixRunes = 2
	// maxQueryWords bounds the words of a query that are matched one by one.
	maxQueryWords = 8
	// maxWholeFuzzyRunes bounds the whole-string typo match: building the
	// Levenshtein automaton is most of a fuzzy query's cost and grows with
	// the term (profiled on 100k nodes); longer strings rely on the word
	// tiers.
	maxWholeFuzzyRunes = 32
)

// fuzziness is the number of typos (edits) tolerated in a term of n runes:
// none below 3 runes, one for 3–4, two from 5 (bleve's maximum).
func fuzziness(n int) int {
	switch {
	case n < 3:
		return 0
	case n < 5:
		return 1
	}
	return 2
}

// tierQuery returns the query of one tier for q, or nil when the tier has
// nothing to match for q. Without typos the typo matches are left out: the
// whole tier matches prefixes only and the typos tier nothing (for a name
// some node carries exactly, which needs no correction).
func tierQuery(tier int, q string, typos bool) queryT {
	key := strings.ToLower(strings.TrimSpace(q))
	if key == "" {
		return nil
	}
	n := utf8.RuneCountInString(key)
	pathLike := strings.ContainsRune(key, '/')
	switch tier {
	case tierExact:
		d := bleve.NewDisjunctionQuery(term(fieldLabelKey, key, boostLabelExact), term(fieldNameKey, key, boostNameExact))
		if pathLike {
			d.AddQuery(term(fieldPathKey, key, boostPathExact))
		}
		return d
	case tierWhole:
		d := bleve.NewDisjunctionQuery()
		// A label is a base name: a path is matched against paths only (the
		// resolver tries its base name as a variant of its own).
		f := fieldLabelKey
		if pathLike {
			f = fieldPathKey
		}
		{
			if n >= minPrefixRunes {
				d.AddQuery(prefix(f, key, boostWholePrefix))
			}
			if e := fuzziness(n); typos && e > 0 && n <= maxWholeFuzzyRunes {
				d.AddQuery(fuzzy(f, key, e, boostWholeFuzzy))
			}
		}
		if len(d.Disjuncts) == 0 {
			return nil
		}
		if pathLike {
			// A path names a file or a folder, not the symbols inside.
			return withKinds(d, []string{graph.KindFile, graph.KindDocFile, graph.KindFolder})
		}
		return d
	case tierWords, tierTypos:
		if tier == tierTypos && !typos {
			return nil
		}
		words := Tokens(q)
		if len(words) > maxQueryWords {
			words = words[:maxQueryWords]
		}
		if len(words) == 0 {
			return nil
		}
		all := bleve.NewConjunctionQuery()
		for _, w := range words {
			all.AddQuery(wordQuery(tier, w))
		}
		return all
	}
	return nil
}

// wordQuery matches one query word against the words field.
func wordQuery(tier int, w string) query.Query {
	n := utf8.RuneCountInString(w)
	d := bleve.NewDisjunctionQuery(term(fieldWords, w, boostWordExact))
	switch {
	case tier == tierWords && n >= minPrefixRunes:
		d.AddQuery(prefix(fieldWords, w, boostWordPrefix))
	case tier == tierTypos && fuzziness(n) > 0:
		d.AddQuery(fuzzy(fieldWords, w, fuzziness(n), boostWordFuzzy))
	}
	return d
}

// anyWordQuery matches nodes having at least one word of q exactly: the
// loosest net, for suggestions only.
func anyWordQuery(q string) queryT {
	words := Tokens(q)
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	if len(words) == 0 {
		return nil
	}
	d := bleve.NewDisjunctionQuery()
	for _, w := range words {
		d.AddQuery(term(fieldWords, w, boostWordExact))
	}
	return d
}

// withKinds restricts q to the given kinds without changing its scores.
func withKinds(q queryT, kinds []string) queryT {
	if len(kinds) == 0 {
		return q
	}
	filter := bleve.NewDisjunctionQuery()
	for _, k := range kinds {
		filter.AddQuery(term(fieldKind, k, 1))
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(q)
	b.AddFilter(filter)
	return b
}

// withoutKind keeps the nodes of q whose kind is not kind (all of them when
// kind is "").
func withoutKind(q queryT, kind string) queryT {
	if kind == "" {
		return q
	}
	b := bleve.NewBooleanQuery()
	b.AddMust(q)
	b.AddMustNot(term(fieldKind, kind, 1))
	return b
}

func term(field, t string, boost float64) query.Query {
	q := bleve.NewTermQuery(t)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

func prefix(field, p string, boost float64) query.Query {
	q := bleve.NewPrefixQuery(p)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

func fuzzy(field, t string, edits int, boost float64) query.Query {
	q := bleve.NewFuzzyQuery(t)
	q.SetField(field)
	q.SetFuzziness(edits)
	q.SetBoost(boost)
	return q
}
