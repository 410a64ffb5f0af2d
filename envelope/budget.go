package envelope

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The token-budget ladder (docs/envelope.md, the ladder).
//
// A body that holds both a "nodes" list and an "edges" list is graph-export
// shaped: it skips the ladder and gets the coherent subgraph trim
// (subgraph.go) to the agent budget — or, without one, to the subgraph
// ceiling — which counts long strings at their least, so they are cut
// (the string step) before nodes are dropped. Every other body, when
// the envelope's token-normalised size exceeds the budget, goes down the
// ladder until it fits:
//
//  1. lists, only where the excess lies: when emptying one key of
//     TrimmableListKeys alone makes the envelope fit, the first such key is
//     the only one cut; when the string step alone makes it fit, no list is
//     cut; otherwise each key in order is cut from the tail to the longest
//     prefix for which the whole envelope — including the
//     truncated_<key>_from/_to markers just added — fits, and emptied if
//     none does;
//  2. edges_by_type: the longest bucket is halved until the envelope fits,
//     recorded as truncated_edges_by_type {kind: {from, to}};
//  3. strings of at least ScalarTrimFloorChars characters anywhere in the
//     body but meta (a top-level string under "node" excepted) are cut to a
//     common length, the largest that fits, and end with TruncationMarker;
//     they are named by JSON path in truncated_string_fields, longest
//     first. Shorter strings and non-string scalars are never touched;
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

// run applies the tier opts select, then sets meta.truncated. answer is
// the budget the handler asked for (Meta.Tool.BudgetChars; 0: none).
func (t *trimmer) run(opts Options, answer int) {
	// Placeholders while measuring: the final tokens_estimated of an
	// envelope that fits is at most budget/4, so the budget's own digits
	// are never fewer; "false" is longer than "true".
	t.meta[KeyTruncated] = false
	_, nodesList := t.body[keyNodes].([]any)
	_, edgesList := t.body[keyEdges].([]any)
	agent := opts.BudgetChars
	if answer > 0 {
		agent = min(answer, opts.SubgraphBudgetChars)
	}
	switch {
	case nodesList && edgesList:
		// The agent budget, or the subgraph ceiling without one.
		t.budget = agent
		if opts.NoBudget {
			t.budget = opts.SubgraphBudgetChars
		}
		t.meta[KeyTokensEstimated] = t.budget
		if !t.fits() {
			t.subgraph()
			if !t.fits() {
				t.strings()
			}
			if !t.fits() {
				t.meta[KeyUnshrinkable] = true
			}
		}
	case !opts.NoBudget:
		t.budget = agent
		t.meta[KeyTokensEstimated] = t.budget
		if !t.fits() {
			t.ladder()
		}
	}
	t.meta[KeyTruncated] = t.cut
}

func (t *trimmer) ladder() {
	// A list the excess does not lie in is not cut: when cutting one key
	// alone can make the envelope fit, the first such key (in ladder order)
	// is the only one cut.
	for _, key := range TrimmableListKeys {
		if t.absorbs(key) {
			t.list(key)
			return
		}
	}
	// Nor when the excess lies in long strings alone (a node's metadata):
	// then only the string step runs.
	if t.stringsAbsorb() {
		t.strings()
		return
	}
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

// stringsAbsorb reports whether the string step alone, cutting every
// candidate to an empty head, makes the envelope fit. It leaves the body as
// it was.
func (t *trimmer) stringsAbsorb() bool {
	saved := make(map[string]any, len(t.body))
	for k, v := range t.body {
		saved[k] = v
	}
	cut := t.cut
	t.strings()
	ok := t.fits() && t.meta[KeyTruncatedStrings] != nil
	for k := range t.body {
		if _, was := saved[k]; !was {
			delete(t.body, k)
		}
	}
	for k, v := range saved {
		t.body[k] = v
	}
	delete(t.meta, KeyTruncatedStrings)
	t.cut = cut
	return ok
}

// absorbs reports whether emptying body[key] alone (with its markers)
// makes the envelope fit.
func (t *trimmer) absorbs(key string) bool {
	var n int
	switch items := t.body[key].(type) {
	case []any:
		n = len(items)
	case *lazyList:
		n = items.len()
	}
	if n == 0 {
		return false
	}
	saved := t.body[key]
	fromKey, toKey := TruncatedFromKey(key), TruncatedToKey(key)
	t.body[key] = []any{}
	t.meta[fromKey], t.meta[toKey] = n, 0
	ok := t.fits()
	t.body[key] = saved
	delete(t.meta, fromKey)
	delete(t.meta, toKey)
	return ok
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

// strings shortens large strings anywhere in the body but meta (step 3):
// a top-level value, or one nested in objects and lists (a node's
// metadata), named by its JSON path (nodes[3].metadata.doc). A top-level
// string under "node" is never cut. Every candidate is capped at one common
// length L, in characters, the largest L for which the envelope fits:
// candidates shorter than L stay whole, the others become their first L
// characters plus TruncationMarker. One cap for all, rather than cutting the
// longest string first, keeps a readable head of each instead of emptying
// one field to make room for another. The containers on a candidate's path
// are copied first: the caller's values are never modified.
func (t *trimmer) strings() {
	var fields []stringField
	for k, v := range t.body {
		if k == keyMeta {
			continue
		}
		if _, isString := v.(string); isString && k == keyNode {
			continue
		}
		t.body[k] = collectStrings(v, pathKey(k, true), func(nv any) { t.body[k] = nv }, &fields)
	}
	if len(fields) == 0 {
		return
	}
	slices.SortFunc(fields, func(a, b stringField) int {
		if a.runes != b.runes {
			return b.runes - a.runes
		}
		return strings.Compare(a.path, b.path)
	})
	// apply sets every candidate for cap l and reports whether it fits.
	apply := func(l int) bool {
		var names []any
		for _, f := range fields {
			if f.runes <= l {
				f.set(f.value)
				continue
			}
			f.set(runePrefix(f.value, l) + TruncationMarker)
			names = append(names, f.path)
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

// stringField is a candidate of the string step: a string of at least
// ScalarTrimFloorChars characters, its JSON path, and the setter that puts
// a shortened value in its place.
type stringField struct {
	path  string
	value string
	runes int
	set   func(string)
}

// collectStrings appends to fields the candidates in v, whose JSON path is
// path, and returns v, or a copy of the containers on the candidates' paths
// in which they can be set in place: v itself is never modified. set puts
// a new value where v was (a candidate that is v itself is set through it).
func collectStrings(v any, path string, set func(any), fields *[]stringField) any {
	switch x := v.(type) {
	case string:
		if n := utf8.RuneCountInString(x); n >= ScalarTrimFloorChars {
			*fields = append(*fields, stringField{path, x, n, func(s string) { set(s) }})
		}
		return v
	case map[string]any:
		before := len(*fields)
		cp := make(map[string]any, len(x))
		for k, e := range x {
			cp[k] = e
		}
		for k, e := range x {
			cp[k] = collectStrings(e, path+pathKey(k, path == ""), func(nv any) { cp[k] = nv }, fields)
		}
		if len(*fields) == before {
			return v
		}
		return cp
	case *lazyList:
		// A top-level list the list step has not reached: its strings
		// are not candidates (decoding it all would undo the laziness).
		return v
	case []any:
		before := len(*fields)
		cp := slices.Clone(x)
		for i, e := range x {
			cp[i] = collectStrings(e, path+"["+strconv.Itoa(i)+"]", func(nv any) { cp[i] = nv }, fields)
		}
		if len(*fields) == before {
			return v
		}
		return cp
	}
	return v
}

// pathKey is object key k as a step of a JSON path: "k" at the top level,
// ".k" below it, or ["k"] (JSON-quoted) when k is empty or holds anything
// but letters, digits, _ and -.
func pathKey(k string, top bool) string {
	plain := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return "[" + strconv.Quote(k) + "]"
	case top:
		return k
	}
	return "." + k
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
