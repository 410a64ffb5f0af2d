package extract

import (
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"

	"github.com/cos-dev/cos/graph"
)

// implCandidates are the interfaces the named types of one package are
// tested against for implements edges:
//
//   - the tree's interfaces declared in the package itself and in every
//     package of the tree it imports, directly or not — an interface the
//     package cannot see is left out, so a re-index of a package gives the
//     same edges whatever else changed;
//   - the exported interfaces of the packages outside the tree it imports
//     directly (io.Reader where io is imported), and error.
//
// Empty interfaces, generic interfaces and constraint interfaces are never
// candidates.
type implCandidates struct {
	list []implIface
	// byFirst indexes list by the name of each interface's first method
	// (methods are sorted by name), the cheap filter before
	// types.Implements.
	byFirst map[string][]int
}

type implIface struct {
	iface  *types.Interface
	names  []string // method names, sorted
	uid    string
	inTree bool
	stub   string
}

// candidates computes the implCandidates of a checked package.
func (x *typedExtractor) candidates(cp *checkedPackage) *implCandidates {
	c := &implCandidates{byFirst: map[string][]int{}}
	seenIface := map[*types.TypeName]bool{}
	add := func(tn *types.TypeName) {
		if seenIface[tn] {
			return
		}
		seenIface[tn] = true
		it, ok := tn.Type().Underlying().(*types.Interface)
		if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
			return
		}
		uid, in, stub := x.typeTarget(tn)
		if tn.Pkg() == nil {
			uid, stub = externalUID(tn.Name()), tn.Name() // error
		}
		ii := implIface{iface: it, uid: uid, inTree: in, stub: stub}
		for i := range it.NumMethods() {
			ii.names = append(ii.names, it.Method(i).Name())
		}
		sort.Strings(ii.names)
		c.byFirst[ii.names[0]] = append(c.byFirst[ii.names[0]], len(c.list))
		c.list = append(c.list, ii)
	}
	for _, tn := range x.interfacesOf(cp.types) {
		add(tn)
	}
	seen := map[string]bool{cp.pkg.ID: true}
	var walk func(p *packages.Package, direct bool)
	walk = func(p *packages.Package, direct bool) {
		for _, path := range sortedKeys(p.Imports) {
			d := p.Imports[path]
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			tp := x.typesOf(d.ID)
			if tp == nil {
				continue
			}
			if x.inTreePath[d.PkgPath] {
				for _, tn := range x.interfacesOf(tp) {
					add(tn)
				}
				walk(d, false)
				continue
			}
			if direct {
				for _, tn := range x.interfacesOf(tp) {
					if tn.Exported() {
						add(tn)
					}
				}
			}
		}
	}
	walk(cp.pkg, true)
	if tn, ok := types.Universe.Lookup("error").(*types.TypeName); ok {
		add(tn)
	}
	return c
}

// implements adds an implements edge from the named type tn (uid) to every
// candidate interface it satisfies, with the method set that does.
func (fx *typedFileExtraction) implements(uid string, tn *types.TypeName) {
	named, ok := tn.Type().(*types.Named)
	if !ok || tn.IsAlias() || named.TypeParams().Len() > 0 {
		return
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return
	}
	c := fx.cands()
	ptr := types.NewPointer(named)
	ms := types.NewMethodSet(ptr)
	if ms.Len() == 0 {
		return
	}
	has := make(map[string]bool, ms.Len())
	for i := range ms.Len() {
		has[ms.At(i).Obj().Name()] = true
	}
	var hits []int
	for name := range has {
		hits = append(hits, c.byFirst[name]...)
	}
	sort.Ints(hits)
	line := fx.line(tn.Pos())
	for _, i := range hits {
		ii := c.list[i]
		all := true
		for _, n := range ii.names {
			if !has[n] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		set := ""
		switch {
		case types.Implements(named, ii.iface):
			set = graph.MethodSetValue
		case types.Implements(ptr, ii.iface):
			set = graph.MethodSetPointer
		default:
			continue
		}
		if ii.uid == uid {
			continue
		}
		if !ii.inTree {
			fx.stubNode(ii.uid, ii.stub)
		}
		if j := fx.edge(uid, ii.uid, graph.EdgeImplements, line); j >= 0 {
			fx.edges[j].Metadata = map[string]any{graph.MetaMethodSet: set}
		}
	}
}

// cands returns the package's implements candidates, computed once.
func (fx *typedFileExtraction) cands() *implCandidates {
	fx.cp.candsOnce.Do(func() { fx.cp.cands = fx.x.candidates(fx.cp) })
	return fx.cp.cands
}
