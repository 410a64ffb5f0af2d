package extract

import (
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/resolve"
)

// dependents is what changed in the declarations table during one run, for
// the choice of the unchanged files to extract again (Run's phase 4): the
// scopes whose declarations changed, and, in the fine scopes where files
// depend on names (resolve.FineScope: C and C++), the keys of the names
// whose entries changed.
type dependents struct {
	// affected are scopes (and "missing:" watch scopes) whose
	// declarations changed: a file declaring in one or looking into one
	// is a dependent.
	affected map[string]bool
	// keys are the keys (resolve.KeyChanges) of the fine-scope names
	// whose entries changed: a file that read one is a dependent.
	keys map[uint32]bool
	// fine are the fine scopes where something changed: a file of one
	// whose record has no keys (resolved before names were recorded)
	// depends on every change in it.
	fine map[string]bool
	// unknown are the fine scopes where a file changed whose earlier
	// declarations are not known (no cache record): every file of the
	// scope, or that read a name in a fine scope, is a dependent.
	unknown map[string]bool
	// before counts the files declaring in each fine scope when the run
	// began, and declared whether the scope's DeclaredKey was marked.
	before   map[string]int
	declared map[string]bool
}

// newDependents returns an empty set of changes over the declarations
// cache as the run found it (decls).
func newDependents(decls map[string]lang.DeclRecord) *dependents {
	d := &dependents{affected: map[string]bool{}, keys: map[uint32]bool{}, fine: map[string]bool{}, unknown: map[string]bool{}, before: map[string]int{}, declared: map[string]bool{}}
	for _, rec := range decls {
		if resolve.FineScope(rec.Scope) {
			d.before[rec.Scope]++
		}
	}
	return d
}

// markKey records a changed fine-scope key; true when it is new.
func (d *dependents) markKey(k uint32) bool {
	if d.keys[k] {
		return false
	}
	d.keys[k] = true
	return true
}

// markScope records scope as changed; true when it is new. In a fine scope
// only its WholeKey is marked (and the scope noted for keyless records).
func (d *dependents) markScope(scope string) bool {
	if resolve.FineScope(scope) {
		grew := !d.fine[scope]
		d.fine[scope] = true
		return d.markKey(resolve.WholeKey(scope)) || grew
	}
	if d.affected[scope] {
		return false
	}
	d.affected[scope] = true
	return true
}

// keyChanges marks the fine-scope keys that differ between old and nr.
func (d *dependents) keyChanges(old, nr lang.DeclRecord) bool {
	grew := false
	resolve.KeyChanges(old, nr, func(k uint32) { grew = d.markKey(k) || grew })
	for _, s := range []string{old.Scope, nr.Scope} {
		if resolve.FineScope(s) && d.keys[resolve.WholeKey(s)] && !d.fine[s] {
			d.fine[s] = true
			grew = true
		}
	}
	return grew
}

// gone records that a file declaring rec no longer declares anything
// (removed, or it now fails to extract); true when the changes grew.
func (d *dependents) gone(rec lang.DeclRecord) bool {
	grew := d.markScope(rec.Scope)
	return d.keyChanges(rec, lang.DeclRecord{}) || grew
}

// came records a file that declares rec and did not before.
func (d *dependents) came(rec lang.DeclRecord) bool {
	grew := d.markScope(rec.Scope)
	return d.keyChanges(lang.DeclRecord{}, rec) || grew
}

// unknownChange records a change of a file declaring in scope whose
// earlier declarations are not known: any name of the scope may have
// changed.
func (d *dependents) unknownChange(scope string) bool {
	if !resolve.FineScope(scope) {
		return d.markScope(scope)
	}
	grew := !d.unknown[scope]
	d.unknown[scope] = true
	return d.markScope(scope) || grew
}

// changed records a file's declarations going from old to nr. Outside the
// fine scopes a change of anything another file's resolution reads marks
// both scopes (declChanged); inside, the names whose entries changed, and
// the whole scope when the file enters or leaves it.
func (d *dependents) changed(old, nr lang.DeclRecord) bool {
	if !declChanged(old, nr) {
		return false
	}
	grew := false
	for _, s := range []string{old.Scope, nr.Scope} {
		if !resolve.FineScope(s) || old.Scope != nr.Scope {
			grew = d.markScope(s) || grew
		}
	}
	return d.keyChanges(old, nr) || grew
}

// declaredFlips marks the DeclaredKey of each fine scope that has become
// empty or stopped being empty since the run began, fresh and cached
// being the declarations now; true when it marked one.
func (d *dependents) declaredFlips(fresh map[string]*lang.Decl, cached map[string]lang.DeclRecord) bool {
	now := map[string]int{}
	for _, dc := range fresh {
		if dc != nil && resolve.FineScope(dc.Scope) {
			now[dc.Scope]++
		}
	}
	for _, rec := range cached {
		if resolve.FineScope(rec.Scope) {
			now[rec.Scope]++
		}
	}
	grew := false
	for _, counts := range []map[string]int{now, d.before} {
		for s := range counts {
			if (now[s] == 0) != (d.before[s] == 0) && !d.declared[s] {
				d.declared[s] = true
				d.markKey(resolve.DeclaredKey(s))
				d.markScope(s)
				grew = true
			}
		}
	}
	return grew
}

// of reports whether a file whose record is rec depends on the changes:
// its own scope or one it looked into changed, it read a changed name of a
// fine scope, or its record predates the names (KeysKnown false) and it
// declares in or looked into a fine scope with a change.
func (d *dependents) of(rec lang.DeclRecord) bool {
	if d.affected[rec.Scope] || d.unknown[rec.Scope] || len(d.unknown) > 0 && rec.Keys != "" {
		return true
	}
	for _, s := range rec.Deps {
		if d.affected[s] || !rec.KeysKnown && d.fine[s] {
			return true
		}
	}
	if !rec.KeysKnown && d.fine[rec.Scope] {
		return true
	}
	return resolve.AnyKey(rec.Keys, d.keys)
}
