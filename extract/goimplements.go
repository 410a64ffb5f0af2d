package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"golang.org/x/tools/go/packages"

	"github.com/cos-dev/cos/graph"
)

// implJob is one named type whose implements edges are computed once every
// package of the tree is checked: they need the whole tree's interfaces.
type implJob struct {
	path string // repo-relative file declaring the type
	uid  string // its code:class: uid
	tn   *types.TypeName
	pkg  *packages.Package // the package it was extracted from
}

// implIface is one candidate interface.
type implIface struct {
	iface  *types.Interface
	names  []string // method names, sorted
	uid    string
	inTree bool
	stub   string
}

// implCandidates are interfaces indexed for the implements test.
type implCandidates struct {
	list []implIface
	// byFirst indexes list by the name of each interface's first method
	// (sorted by name), the cheap filter before types.Implements.
	byFirst map[string][]int
	seen    map[*types.TypeName]bool
}

func newImplCandidates() *implCandidates {
	return &implCandidates{byFirst: map[string][]int{}, seen: map[*types.TypeName]bool{}}
}

// add makes tn a candidate when it is a named, non-generic interface with
// at least one method that is not a constraint.
func (c *implCandidates) add(x *typedExtractor, tn *types.TypeName) {
	if c.seen[tn] {
		return
	}
	c.seen[tn] = true
	it, ok := tn.Type().Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
		return
	}
	if named, ok := tn.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
		return
	}
	uid, in, stub := x.typeTarget(tn)
	if tn.Pkg() == nil {
		uid, stub = lang.ExternalUID(tn.Name()), tn.Name() // error
	}
	if uid == "" {
		return
	}
	ii := implIface{iface: it, uid: uid, inTree: in, stub: stub}
	for i := range it.NumMethods() {
		ii.names = append(ii.names, it.Method(i).Name())
	}
	sort.Strings(ii.names)
	c.byFirst[ii.names[0]] = append(c.byFirst[ii.names[0]], len(c.list))
	c.list = append(c.list, ii)
}

// treeInterfaces returns the candidates every type of the tree is tested
// against — the interfaces declared in the tree's packages (their plain,
// non-test variants) —, a digest of their method sets (when it changes,
// implements edges of the tree may change) and the record of each, by uid
// (which types an interface's change reaches: implementerPackages).
func (x *typedExtractor) treeInterfaces(plainIDs []string) (*implCandidates, string, map[string]ifaceRecord) {
	c := newImplCandidates()
	h := sha256.New()
	recs := map[string]ifaceRecord{}
	for _, id := range plainIDs {
		tp := x.typesOf(id)
		if tp == nil {
			continue
		}
		for _, tn := range x.interfacesOf(tp) {
			n := len(c.list)
			c.add(x, tn)
			if len(c.list) == n {
				continue
			}
			ih := sha256.New()
			w := func(b []byte) {
				h.Write(b)
				ih.Write(b)
			}
			w([]byte(c.list[n].uid))
			it := c.list[n].iface
			for i := range it.NumMethods() {
				m := it.Method(i)
				w([]byte{0})
				w([]byte(m.Name()))
				w([]byte(types.TypeString(m.Type(), func(p *types.Package) string { return p.Path() })))
			}
			h.Write([]byte{'\n'})
			recs[c.list[n].uid] = ifaceRecord{Names: c.list[n].names, Digest: hex.EncodeToString(ih.Sum(nil))}
		}
	}
	return c, hex.EncodeToString(h.Sum(nil)), recs
}

// outsideInterfaces returns the exported interfaces of the packages outside
// the tree that p imports directly, and error.
func (x *typedExtractor) outsideInterfaces(p *packages.Package) *implCandidates {
	c := newImplCandidates()
	for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
		d := p.Imports[path]
		if x.inTreePath[d.PkgPath] {
			continue
		}
		if tp := x.typesOf(d.ID); tp != nil {
			for _, tn := range x.interfacesOf(tp) {
				if tn.Exported() {
					c.add(x, tn)
				}
			}
		}
	}
	if tn, ok := types.Universe.Lookup("error").(*types.TypeName); ok {
		c.add(x, tn)
	}
	return c
}

// implementsEdges returns the implements edges from the named type tn
// (uid) to every interface of the candidate sets it satisfies, with the
// method set that does, and the stub nodes of outside interfaces.
func implementsEdges(uid string, tn *types.TypeName, line int, sets ...*implCandidates) ([]graph.Edge, []graph.Node) {
	named, ok := tn.Type().(*types.Named)
	if !ok || tn.IsAlias() || named.TypeParams().Len() > 0 {
		return nil, nil
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return nil, nil
	}
	ptr := types.NewPointer(named)
	ms := types.NewMethodSet(ptr)
	if ms.Len() == 0 {
		return nil, nil
	}
	has := make(map[string]bool, ms.Len())
	for i := range ms.Len() {
		has[ms.At(i).Obj().Name()] = true
	}
	var edges []graph.Edge
	var nodes []graph.Node
	seen := map[string]bool{}
	for _, c := range sets {
		var hits []int
		for name := range has {
			hits = append(hits, c.byFirst[name]...)
		}
		sort.Ints(hits)
		for _, i := range hits {
			ii := c.list[i]
			if ii.uid == uid || seen[ii.uid] {
				continue
			}
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
			seen[ii.uid] = true
			if !ii.inTree {
				nodes = append(nodes, graph.Node{UID: ii.uid, Kind: graph.KindExternal, Label: lang.CleanString(ii.stub), Extractor: lang.ExtractorGo, Metadata: map[string]any{"stub": true}})
			}
			edges = append(edges, graph.Edge{Source: uid, Target: ii.uid, Type: graph.EdgeImplements, Extractor: lang.ExtractorGo, Line: line,
				Metadata: map[string]any{graph.MetaMethodSet: set}})
		}
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].Target < edges[j].Target })
	return edges, nodes
}

// plainTypeName returns the type of the same name as x checked it in the
// plain package, so that a type declared in a non-test file is compared
// with interfaces through the same types the rest of the tree sees: the
// plain variant of a test package, or, for a file checked again by another
// checker (its test variant did not type-check), its own package as x
// checked it. A method mentioning another package's type (io.Writer) names
// that package as its own checker loaded it, and types.Implements against
// an interface of x's check would say no.
func (x *typedExtractor) plainTypeName(j implJob, plainOf map[string]string) *types.TypeName {
	id := j.pkg.ID
	if j.pkg.ForTest != "" {
		if strings.HasSuffix(j.path, "_test.go") {
			return j.tn
		}
		id = plainOf[id]
	}
	tp := x.typesOf(id)
	if tp == nil || tp == j.tn.Pkg() {
		return j.tn
	}
	if tn, ok := tp.Scope().Lookup(j.tn.Name()).(*types.TypeName); ok {
		return tn
	}
	return j.tn
}

// variantInterfaces returns, for a test variant ("p [p.test]",
// "p_test [p.test]"), the interfaces of the variant itself and of the
// tree's packages it imports, directly or not, as compiled for that test:
// a type declared in a test file is a type of the variant, and only those
// interfaces mention the variant's types in their methods.
func (x *typedExtractor) variantInterfaces(p *packages.Package) *implCandidates {
	c := newImplCandidates()
	seen := map[string]bool{}
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		if seen[p.ID] || !x.inTreePath[p.PkgPath] && p.ForTest == "" {
			return
		}
		seen[p.ID] = true
		if tp := x.typesOf(p.ID); tp != nil {
			for _, tn := range x.interfacesOf(tp) {
				c.add(x, tn)
			}
		}
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			walk(p.Imports[path])
		}
	}
	walk(p)
	return c
}
