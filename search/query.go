package search

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

type queryT = query.Query

// Boosts of the parts of a search query (see buildQuery). An exact label
// outweighs everything else together, so it ranks first.
const (
	boostLabelExact  = 20
	boostNameExact   = 10
	boostLabelPrefix = 4
	boostLabelFuzzy  = 3
	boostWordExact   = 2
	boostWordPrefix  = 1
	boostWordFuzzy   = 1
	boostPathWord    = 0.5
)

// Limits of fuzzy and prefix matching.
const (
	// minPrefixRunes is the shortest word matched as a prefix; shorter
	// prefixes match too many terms to mean anything.
	minPrefixRunes = 2
	// maxQueryWords bounds the words of a query that are matched one by one.
	maxQueryWords = 8
	// maxWholeFuzzyRunes bounds the whole-label typo match: the cost of a
	// Levenshtein automaton grows with the term.
	maxWholeFuzzyRunes = 64
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

// buildQuery returns the query Search runs for q, or nil when q has nothing
// to match. It is a disjunction of:
//
//   - label_key equal to q (lowercased): an exact label, boost 20;
//   - name_key equal to q: an exact bare name (splice for Char.splice), 10;
//   - label_key starting with q, 4; label_key within fuzziness(q) edits, 3;
//   - every word of q (Tokens) matching a word of the label (exact 2, as a
//     prefix 1, within fuzziness(word) edits 1) or of the path (exact or
//     prefix, 0.5) — all words must match for this part to count, unless
//     anyWord, when one is enough (Suggest).
//
// Scores are bleve's tf-idf times these boosts; fuzzy terms are further
// scaled down by their edit distance by bleve.
func buildQuery(q string, anyWord bool) queryT {
	key := strings.ToLower(strings.TrimSpace(q))
	if key == "" {
		return nil
	}
	var parts []query.Query
	parts = append(parts, term(fieldLabelKey, key, boostLabelExact), term(fieldNameKey, key, boostNameExact))
	n := utf8.RuneCountInString(key)
	if n >= minPrefixRunes {
		parts = append(parts, prefix(fieldLabelKey, key, boostLabelPrefix))
	}
	if f := fuzziness(n); f > 0 && n <= maxWholeFuzzyRunes {
		parts = append(parts, fuzzy(fieldLabelKey, key, f, boostLabelFuzzy))
	}
	words := Tokens(q)
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	switch {
	case len(words) == 0:
	case anyWord:
		for _, w := range words {
			parts = append(parts, wordQuery(w))
		}
	default:
		all := bleve.NewConjunctionQuery()
		for _, w := range words {
			all.AddQuery(wordQuery(w))
		}
		parts = append(parts, all)
	}
	return bleve.NewDisjunctionQuery(parts...)
}

// wordQuery matches one query word against the words of label and path.
func wordQuery(w string) query.Query {
	n := utf8.RuneCountInString(w)
	either := bleve.NewDisjunctionQuery(term(fieldLabel, w, boostWordExact), term(fieldPath, w, boostPathWord))
	if n >= minPrefixRunes {
		either.AddQuery(prefix(fieldLabel, w, boostWordPrefix), prefix(fieldPath, w, boostPathWord))
	}
	if f := fuzziness(n); f > 0 {
		either.AddQuery(fuzzy(fieldLabel, w, f, boostWordFuzzy))
	}
	return either
}

// buildExactQuery is Lookup's query: label_key or name_key equal to name.
func buildExactQuery(name string) queryT {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		return nil
	}
	return bleve.NewDisjunctionQuery(term(fieldLabelKey, key, boostLabelExact), term(fieldNameKey, key, boostNameExact))
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
