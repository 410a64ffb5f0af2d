package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"go/types"
	"maps"
	"slices"
)

// shapeDigest is a digest of what other packages can see of a checked
// package and of everything their edges into it depend on: its imports,
// every package-level object with the file declaring it and its type
// (struct fields and interface methods included), and each named type's
// methods with their files and signatures. A body-only edit leaves it
// unchanged, so the package's importers keep their edges; any other edit
// changes it, and they are extracted again.
func (x *typedExtractor) shapeDigest(cp *checkedPackage) string {
	h := sha256.New()
	w := func(ss ...string) {
		for _, s := range ss {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		h.Write([]byte{'\n'})
	}
	q := func(p *types.Package) string { return p.Path() }
	for _, p := range slices.Sorted(maps.Keys(cp.pkg.Imports)) {
		w("import", p)
	}
	if cp.types == nil {
		return hex.EncodeToString(h.Sum(nil))
	}
	scope := cp.types.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		rp, _ := x.relOf(obj.Pos())
		w(rp, types.ObjectString(obj, q))
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for i := range named.NumMethods() {
			m := named.Method(i)
			mrp, _ := x.relOf(m.Pos())
			w("method", m.Name(), mrp, types.TypeString(m.Type(), q))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
