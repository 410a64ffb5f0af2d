package resolve

import "sort"

// Memoised inference. Star re-exports and base classes make the symbol and
// member lookups a graph walk that may branch and cycle (from a import *
// in b and from b import * in a; class A(A)). Each lookup is computed once
// per run and its result kept with the scopes it looked into, so that a
// later hit still records them as dependencies of the file resolving. A
// lookup that met a cycle or the depth bound is not kept: its result
// depends on where the walk entered the cycle, and keeping it would make
// an incremental index differ from a full one.

// memoEntry is one lookup's result.
type memoEntry struct {
	busy   bool // being computed: meeting it again is a cycle
	v      value
	ok     bool
	scopes []string // the scopes the computation looked into
	keys   []uint32 // the names it read in fine scopes (namedeps.go)
}

// tooDeep reports whether depth passed maxInferDepth, marking the lookup
// under way as cut short.
func (t *Table) tooDeep(depth int) bool {
	if depth > maxInferDepth {
		t.cut = true
		return true
	}
	return false
}

// memo returns the result of the lookup key, computing it with f on first
// use.
func (t *Table) memo(key string, depth int, f func() (value, bool)) (value, bool) {
	if e, ok := t.memos[key]; ok {
		if e.busy {
			t.cut = true
			return value{}, false
		}
		if t.touched != nil {
			for _, s := range e.scopes {
				t.touched.scopes[s] = true
			}
			for _, k := range e.keys {
				t.touched.keys[k] = true
			}
		}
		return e.v, e.ok
	}
	if t.tooDeep(depth) {
		return value{}, false
	}
	if t.memos == nil {
		t.memos = map[string]*memoEntry{}
	}
	e := &memoEntry{busy: true}
	t.memos[key] = e
	outerCut, outerTouched := t.cut, t.touched
	mine := newDepSet()
	t.cut, t.touched = false, mine
	v, ok := f()
	cut := t.cut
	t.cut, t.touched = outerCut || cut, outerTouched
	if outerTouched != nil {
		for s := range mine.scopes {
			outerTouched.scopes[s] = true
		}
		for k := range mine.keys {
			outerTouched.keys[k] = true
		}
	}
	if cut {
		delete(t.memos, key)
		return v, ok
	}
	e.busy, e.v, e.ok = false, v, ok
	e.scopes = make([]string, 0, len(mine.scopes))
	for s := range mine.scopes {
		e.scopes = append(e.scopes, s)
	}
	sort.Strings(e.scopes)
	e.keys = make([]uint32, 0, len(mine.keys))
	for k := range mine.keys {
		e.keys = append(e.keys, k)
	}
	return v, ok
}

// symbol evaluates the name (possibly dotted) in scope; see symbolOnce.
func (t *Table) symbol(scope, name string, depth int) (value, bool) {
	return t.memo("s\x00"+scope+"\x00"+name, depth, func() (value, bool) { return t.symbolOnce(scope, name, depth) })
}

// member finds the method name of v's class or of a base; see memberOnce.
func (t *Table) member(v value, name string, super bool, depth int) (value, bool) {
	if v.kind != valClass && v.kind != valInst {
		return value{}, false
	}
	key := "m\x00" + v.scope + "\x00" + v.name + "\x00" + name
	if super {
		key += "\x00super"
	}
	return t.memo(key, depth, func() (value, bool) { return t.memberOnce(v, name, super, depth) })
}
