package extract

import (
	"go/types"
	"maps"
	"slices"
	"sort"
)

// ifaceRecord is what the declarations cache keeps of one interface of
// the tree (an implements candidate of treeInterfaces): its method names,
// sorted, and a digest of its method set. Two runs whose records of an
// interface are equal give it the same implements edges.
type ifaceRecord struct {
	Names  []string
	Digest string
}

// methodNames returns the sorted names of the methods of *T for the named
// type tn (promoted methods included): the names a type must have all of
// to implement an interface. Nil for an alias, an interface or a generic
// type, which get no implements edge (implementsEdges).
func methodNames(tn *types.TypeName) []string {
	named, ok := tn.Type().(*types.Named)
	if !ok || tn.IsAlias() || named.TypeParams().Len() > 0 {
		return nil
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return nil
	}
	ms := types.NewMethodSet(types.NewPointer(named))
	if ms.Len() == 0 {
		return nil
	}
	names := make([]string, ms.Len())
	for i := range ms.Len() {
		names[i] = ms.At(i).Obj().Name()
	}
	sort.Strings(names)
	return names
}

// changedInterfaces returns the records of the interfaces that differ
// between two runs' records (old and now, by uid): the old record of one
// removed or changed, the new record of one added or changed.
func changedInterfaces(old, now map[string]ifaceRecord) []ifaceRecord {
	var out []ifaceRecord
	for _, uid := range slices.Sorted(maps.Keys(old)) {
		o := old[uid]
		if n, ok := now[uid]; !ok || n.Digest != o.Digest {
			out = append(out, o)
		}
	}
	for _, uid := range slices.Sorted(maps.Keys(now)) {
		n := now[uid]
		if o, ok := old[uid]; !ok || o.Digest != n.Digest {
			out = append(out, n)
		}
	}
	return out
}

// implementerPackages returns the import paths of the packages (methods:
// import path → method names of each of its named types, as methodNames
// gives them) declaring a type whose methods include every method name of
// one of ifaces: the only types whose implements edges towards ifaces can
// differ from one version of them to another.
func implementerPackages(ifaces []ifaceRecord, methods map[string][][]string) map[string]bool {
	out := map[string]bool{}
	for pp, types := range methods {
	search:
		for _, names := range types {
			for _, it := range ifaces {
				if hasAll(names, it.Names) {
					out[pp] = true
					break search
				}
			}
		}
	}
	return out
}

// hasAll reports whether the sorted list have holds every name of the
// sorted list want.
func hasAll(have, want []string) bool {
	i := 0
	for _, w := range want {
		for i < len(have) && have[i] < w {
			i++
		}
		if i == len(have) || have[i] != w {
			return false
		}
		i++
	}
	return true
}
