package envelope

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The token-budget ladder (docs/envelope.md, the ladder).
//
// A body that holds both a "nodes" list and an "edges" list is graph-export
// shaped: it skips the ladder and answers to the subgraph ceiling instead
// (subgraph.go). Every other body, when the envelope's token-normalised
// size exceeds the budget, goes down the ladder until it fits:
//
//  1. each key of TrimmableListKeys, in order, is cut from the tail to the
//     longest prefix for which the whole envelope — including the
//     truncated_<key>_from/_to markers just added — fits; if no prefix fits
//     the list is emptied and the next key is tried;
//  2. edges_by_type: the longest bucket is halved until the envelope fits,
//     recorded as truncated_edges_by_type {kind: {from, to}};
//  3. top-level strings of at least ScalarTrimFloorChars characters are cut
//     to a common length, the largest that fits, and end with
//     TruncationMarker; they are named in truncated_string_fields, longest
//     first. Shorter strings, non-string scalars and the "node" key are
//     never touched;
//  4. if it still does not fit, envelope_unshrinkable is set.
//
// All sizes come from the additive cost of the generic tree (cost.go), never
// from cutting serialized bytes, and every cut falls on a rune boundary.
//
// Removing one element at a time from the tail is the contract's result: the
// longest prefix that fits. Step 1 reaches it directly by growing the prefix
// from the front with per-element costs and stopping at the first element
// that no longer fits, so its work is bounded by the budget (plus one
// element), not by the list's length.

// ScalarTrimFloorChars is the string floor: strings shorter than this
// (in characters) are load-bearing and never shortened.
const ScalarTrimFloorChars = 200

// TruncationMarker ends every string the ladder shortened.
const TruncationMarker = "…[truncated]"

// trimmer holds the envelope being trimmed: doc is {"ok":true,"data":body}
// and body["meta"] is meta.
type trimmer struct {
	doc, body, meta map[string]any
	budget          int
	cut             bool // something was actually removed
}

func (t *trimmer) fits() bool {
	_, over := measureLimited(t.doc, t.budget)
	return !over
}

// run applies the tier opts select, then sets meta.truncated.
func (t *trimmer) run(opts Options) {
	// Placeholders while measuring: the final tokens_estimated of an
	// envelope that fits is at most budget/4, so the budget's own digits
	// are never fewer; "false" is longer than "true".
	t.meta[KeyTruncated] = false
	_, nodesList := t.body[keyNodes].([]any)
	_, edgesList := t.body[keyEdges].([]any)
	switch {
	case nodesList && edgesList:
		t.budget = opts.SubgraphBudgetChars
		t.meta[KeyTokensEstimated] = t.budget
		if !t.fits() {
			t.subgraph()
			if !t.fits() {
				t.meta[KeyUnshrinkable] = true
			}
		}
	case !opts.NoBudget:
		t.budget = opts.BudgetChars
		t.meta[KeyTokensEstimated] = t.budget
		if !t.fits() {
			t.ladder()
		}
	}
	t.meta[KeyTruncated] = t.cut
}

func (t *trimmer) ladder() {
	for _, key := range TrimmableListKeys {
		t.list(key)
		if t.fits() {
			return
		}
	}
	t.edgesByType()
	if t.fits() {
		return
	}
	t.strings()
	if !t.fits() {
		t.meta[KeyUnshrinkable] = true
	}
}

// list cuts body[key] to the longest prefix that fits (step 1).
func (t *trimmer) list(key string) {
	var (
		n      int
		elem   func(int) any
		prefix func(int) []any
	)
	switch items := t.body[key].(type) {
	case []any:
		n = len(items)
		elem = func(i int) any { return items[i] }
		prefix = func(k int) []any { return slices.Clone(items[:k]) }
	case *lazyList:
		n = items.len()
		elem, prefix = items.elem, items.prefix
	}
	if n == 0 {
		return
	}
	fromKey, toKey := TruncatedFromKey(key), TruncatedToKey(key)
	// Everything but the list, with the list empty and the markers at to=0.
	t.body[key] = []any{}
	t.meta[fromKey] = n
	t.meta[toKey] = 0
	base, over := measureLimited(t.doc, t.budget)
	kept := 0
	if !over {
		acc := base
		for k := 1; k < n; k++ { // k == n is the state that did not fit
			e, eover := measureLimited(elem(k-1), t.budget)
			if eover {
				break
			}
			next := acc.plus(e)
			if k > 1 {
				next = next.plus(asciiCost(1)) // comma
			}
			if next.plus(asciiCost(digits(k)-1)).size() > t.budget {
				break
			}
			acc, kept = next, k
		}
	}
	t.body[key] = prefix(kept)
	t.meta[toKey] = kept
	t.cut = true
}

// edgesByType halves the longest edges_by_type bucket until the envelope
// fits or every bucket is empty (step 2).
func (t *trimmer) edgesByType() {
	ebt, ok := t.body[keyEdgesByType].(map[string]any)
	if !ok || len(ebt) == 0 {
		return
	}
	cur := make(map[string]any, len(ebt))
	from := make(map[string]int)
	for k, v := range ebt {
		cur[k] = v
		if l, ok := v.([]any); ok {
			from[k] = len(l)
		}
	}
	t.body[keyEdgesByType] = cur
	record := map[string]any{}
	for !t.fits() {
		biggest, size := "", 0
		for k := range from {
			l := len(cur[k].([]any))
			if l > size || (l == size && l > 0 && k < biggest) {
				biggest, size = k, l
			}
		}
		if size == 0 {
			break
		}
		kept := size / 2
		cur[biggest] = slices.Clone(cur[biggest].([]any)[:kept])
		record[biggest] = map[string]any{"from": from[biggest], "to": kept}
		t.meta[KeyTruncatedEdgesByType] = record
		t.cut = true
	}
}

// strings shortens large top-level strings (step 3). Every candidate is
// capped at one common length L, in characters, the largest L for which the
// envelope fits: candidates shorter than L stay whole, the others become their
// first L characters plus TruncationMarker. One cap for all, rather than
// cutting the longest string first, keeps a readable head of each instead
// of emptying one field to make room for another.
func (t *trimmer) strings() {
	type field struct {
		key   string
		value string
		runes int
	}
	var fields []field
	for k, v := range t.body {
		s, ok := v.(string)
		if !ok || k == keyNode || k == keyMeta {
			continue
		}
		if n := utf8.RuneCountInString(s); n >= ScalarTrimFloorChars {
			fields = append(fields, field{k, s, n})
		}
	}
	if len(fields) == 0 {
		return
	}
	slices.SortFunc(fields, func(a, b field) int {
		if a.runes != b.runes {
			return b.runes - a.runes
		}
		return strings.Compare(a.key, b.key)
	})
	// apply sets every candidate for cap l and reports whether it fits.
	apply := func(l int) bool {
		var names []any
		for _, f := range fields {
			if f.runes <= l {
				t.body[f.key] = f.value
				continue
			}
			t.body[f.key] = runePrefix(f.value, l) + TruncationMarker
			names = append(names, f.key)
		}
		t.meta[KeyTruncatedStrings] = names
		return t.fits()
	}
	// Largest l in [0, longest) that fits; the longest is always cut, since
	// the envelope did not fit with every string whole.
	lo, hi := 0, fields[0].runes-1
	t.cut = true
	if !apply(lo) {
		return // even empty heads do not fit; the caller marks unshrinkable
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if apply(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	apply(lo)
}

// runePrefix returns the first n characters of s.
func runePrefix(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}
