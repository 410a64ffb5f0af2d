package resolve

import (
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
)

// Name-level dependencies. Most languages declare in many small scopes (a
// Go package, a Python module), and a file depends on the scopes its
// references look into: when one of them changes its declarations, the
// file is extracted again. C and C++ declare in one scope for the whole
// tree ("c:", one linkage namespace): a scope-level rule would make any new
// function anywhere re-extract every C file. In such a fine scope the
// table records, per file, the names its lookups read instead — the key of
// every entry of the scope's names, aliases, results and facts it looked
// at, hashed to 4 bytes (lang.Decl.Keys) — and a run re-extracts only the
// files that read a key whose entries changed (KeyChanges).
//
// Keys are conservative: two names with one hash, a fact and a name with
// one subject ("v:f" and "f"), or the table's own bookkeeping keys only
// ever make more files dependents, never fewer. A lookup that reads a fine
// scope as a whole (Table.names: the C#, Kotlin, Scala and Ruby helpers,
// the first file of a scope) records the scope's whole key, which every
// change in the scope marks.

// FineScope reports whether dependencies on scope are recorded by name
// (the one scope of C and C++) rather than by scope.
func FineScope(scope string) bool { return scope == "c:" }

// Bookkeeping keys of a fine scope: wholeName is read by a lookup that
// reads the scope as a whole and changes with any entry; declaredName is
// read by a test of whether any file declares in the scope and changes
// when that answer does (the runner marks it).
const (
	wholeName    = "\x00whole"
	declaredName = "\x00declared"
)

// nameKey is the 4-byte key of name in scope: FNV-1a over scope, a zero
// byte and name. It must not change between runs (caches hold it).
func nameKey(scope, name string) uint32 {
	const offset, prime = 2166136261, 16777619
	h := uint32(offset)
	for i := 0; i < len(scope); i++ {
		h = (h ^ uint32(scope[i])) * prime
	}
	h *= prime // the zero byte
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * prime
	}
	return h
}

// factSubject is the name a fact key is about ("v:f" → "f", "a:C.x" →
// "C.x"): the fact kinds of one name share its key.
func factSubject(key string) string {
	if _, s, ok := strings.Cut(key, ":"); ok {
		return s
	}
	return key
}

// WholeKey is the key every change in the fine scope marks, and that a
// lookup reading the scope as a whole records.
func WholeKey(scope string) uint32 { return nameKey(scope, wholeName) }

// DeclaredKey is the key of whether any file declares in the fine scope:
// the runner marks it when a run makes the scope empty or no longer empty.
func DeclaredKey(scope string) uint32 { return nameKey(scope, declaredName) }

// KeyChanges calls mark with the key of every entry of a fine scope that
// differs between a file's old and new declarations records (either may be
// the zero record: a file that appeared, vanished or declares nothing), and
// with the scope's WholeKey when any does. A record moving between scopes
// changes every entry it had and has.
func KeyChanges(old, nr lang.DeclRecord, mark func(uint32)) {
	for i, s := range []string{old.Scope, nr.Scope} {
		if !FineScope(s) || (i == 1 && s == old.Scope) {
			continue
		}
		var o, n lang.DeclRecord
		if old.Scope == s {
			o = old
		}
		if nr.Scope == s {
			n = nr
		}
		changed := false
		markName := func(k string) { mark(nameKey(s, k)); changed = true }
		diffEntries(o.Names, n.Names, markName)
		diffEntries(o.Alias, n.Alias, markName)
		diffEntries(o.Results, n.Results, markName)
		diffEntries(o.Facts, n.Facts, func(k string) { markName(factSubject(k)) })
		if changed {
			mark(WholeKey(s))
		}
	}
}

// diffEntries calls changed with every key whose entry differs between two
// flattened maps ("key\tvalue\n", sorted by key: lang.DeclRecord).
func diffEntries(a, b string, changed func(key string)) {
	if a == b {
		return
	}
	next := func(s string) (line, key, rest string) {
		line, rest, _ = strings.Cut(s, "\n")
		key, _, _ = strings.Cut(line, "\t")
		return line, key, rest
	}
	for a != "" || b != "" {
		switch {
		case b == "":
			_, k, rest := next(a)
			changed(k)
			a = rest
		case a == "":
			_, k, rest := next(b)
			changed(k)
			b = rest
		default:
			la, ka, ra := next(a)
			lb, kb, rb := next(b)
			switch {
			case ka < kb:
				changed(ka)
				a = ra
			case kb < ka:
				changed(kb)
				b = rb
			default:
				if la != lb {
					changed(ka)
				}
				a, b = ra, rb
			}
		}
	}
}

// packKeys encodes a key set as lang.Decl.Keys: sorted, 4 bytes each,
// little-endian.
func packKeys(keys map[uint32]bool) string {
	if len(keys) == 0 {
		return ""
	}
	sorted := slices.Sorted(maps.Keys(keys))
	b := make([]byte, 4*len(sorted))
	for i, k := range sorted {
		binary.LittleEndian.PutUint32(b[4*i:], k)
	}
	return string(b)
}

// AnyKey reports whether the packed keys (lang.Decl.Keys) hold one of set.
func AnyKey(keys string, set map[uint32]bool) bool {
	if len(set) == 0 {
		return false
	}
	for i := 0; i+4 <= len(keys); i += 4 {
		if set[binary.LittleEndian.Uint32([]byte(keys[i:i+4]))] {
			return true
		}
	}
	return false
}

// depSet collects what resolutions looked into: scopes (for the fine ones,
// read as a whole) and the keys of names read in fine scopes.
type depSet struct {
	scopes map[string]bool
	keys   map[uint32]bool
}

func newDepSet() *depSet { return &depSet{scopes: map[string]bool{}, keys: map[uint32]bool{}} }

// touch records scope as looked into (as a whole).
func (t *Table) touch(scope string) {
	if t.touched != nil {
		t.touched.scopes[scope] = true
	}
}

// touchName records the name read in the fine scope s; in another scope,
// the scope itself.
func (t *Table) touchName(s, name string) {
	if t.touched == nil {
		return
	}
	if FineScope(s) {
		t.touched.keys[nameKey(s, name)] = true
		return
	}
	t.touched.scopes[s] = true
}

// open expands the declarations of the normalised scope s; outside a fine
// scope it records s as looked into, as names does (inside one, the
// accessors below record the names read).
func (t *Table) open(s string) {
	if FineScope(s) {
		t.expand(s)
		return
	}
	t.names(s)
}

// cands returns the declarations of name in s.
func (t *Table) cands(s, name string) []Candidate {
	t.open(s)
	t.touchName(s, name)
	return t.scopes[s][name]
}

// aliasOf returns the name the alias name of s stands for.
func (t *Table) aliasOf(s, name string) (string, bool) {
	t.open(s)
	t.touchName(s, name)
	a, ok := t.alias[s][name]
	return a, ok
}

// fact returns the merged fact key of s.
func (t *Table) fact(s, key string) (string, bool) {
	t.open(s)
	t.touchName(s, factSubject(key))
	f, ok := t.factsOf[s][key]
	return f, ok
}

// result returns the result type of the function name of s.
func (t *Table) result(s, name string) (string, bool) {
	t.open(s)
	t.touchName(s, name)
	r, ok := t.results[s][name]
	return r, ok
}

// declared reports whether any file declares in s (pathsOf non-empty).
func (t *Table) declared(s string) bool {
	if FineScope(s) {
		t.touchName(s, declaredName)
		return len(t.byScope[s]) > 0
	}
	return len(t.pathsOf(s)) > 0
}

// firstPath returns the first file declaring in s: which one it is
// changes with the scope's files, so a fine scope is read as a whole.
func (t *Table) firstPath(s string) (string, bool) {
	if FineScope(s) {
		t.touch(s)
	}
	ps := t.pathsOf(s)
	if len(ps) == 0 {
		return "", false
	}
	return ps[0], true
}

// ScopeSize returns how many files of the table declare in scope.
func (t *Table) ScopeSize(scope string) int { return len(t.byScope[scope]) }
