package extract

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cos-dev/cos/extract/golang"
	"github.com/cos-dev/cos/extract/lang"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/cos-dev/cos/graph"
)

// typedFile is what the type-checked extraction found in one file: its
// nodes and its edges, already resolved (no references are left for the
// declarations table).
type typedFile struct {
	Nodes []graph.Node
	Edges []graph.Edge
	// impl are the file's named types, whose implements edges are added
	// once the whole tree is checked.
	impl []implJob
}

// typedExtractor turns checked packages into per-file nodes and edges. One
// is shared by every package of a run; its caches are safe for concurrent
// use.
type typedExtractor struct {
	fset  *token.FileSet
	rel   *relMapper
	graph *goPackageGraph
	// typesOf returns the checked package of a go list ID (nil if none).
	typesOf func(id string) *types.Package
	// inTreePath holds the import paths of packages with files in the tree.
	inTreePath map[string]bool

	// mu guards fieldOwners and ifaces.
	mu          sync.Mutex
	fieldOwners map[*types.Package]map[*types.Var]*types.TypeName
	ifaces      map[*types.Package][]*types.TypeName
}

func newTypedExtractor(fset *token.FileSet, rel *relMapper, g *goPackageGraph, typesOf func(string) *types.Package) *typedExtractor {
	x := &typedExtractor{fset: fset, rel: rel, graph: g, typesOf: typesOf, inTreePath: map[string]bool{},
		fieldOwners: map[*types.Package]map[*types.Var]*types.TypeName{}, ifaces: map[*types.Package][]*types.TypeName{}}
	for id, files := range g.inTree {
		if len(files) > 0 {
			x.inTreePath[g.pkgs[id].PkgPath] = true
		}
	}
	return x
}

// relOf returns the repo-relative file of a position, false when it is not
// a file of the tree.
func (x *typedExtractor) relOf(pos token.Pos) (string, bool) {
	if !pos.IsValid() {
		return "", false
	}
	f := x.fset.File(pos)
	if f == nil {
		return "", false
	}
	return x.rel.of(f.Name())
}

// targetOf is relOf for the target of an edge, which may lie in another
// root (relMapper.targetOf).
func (x *typedExtractor) targetOf(pos token.Pos) (string, bool) {
	if !pos.IsValid() {
		return "", false
	}
	f := x.fset.File(pos)
	if f == nil {
		return "", false
	}
	return x.rel.targetOf(f.Name())
}

// funcTarget returns the uid of a function or method as a target, whether
// it is in the tree, and the label of its external stub. Methods are named
// by their receiver's named type (the declaring type for a promoted
// method, the generic type for an instantiation); a method of an unnamed
// interface has no node (ok false).
func (x *typedExtractor) funcTarget(fn *types.Func) (uid string, inTree bool, stub string, ok bool) {
	fn = fn.Origin()
	name := fn.Name()
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := types.Unalias(sig.Recv().Type())
		if p, isPtr := t.(*types.Pointer); isPtr {
			t = types.Unalias(p.Elem())
		}
		named, isNamed := t.(*types.Named)
		if !isNamed || !packageLevel(named.Obj()) {
			return "", false, "", false // an unnamed or function-local interface
		}
		name = named.Origin().Obj().Name() + "." + name
	}
	if rp, in := x.targetOf(fn.Pos()); in {
		return lang.CodeUID("function", rp, name), true, "", true
	}
	stub = name
	if fn.Pkg() != nil {
		stub = fn.Pkg().Path() + "." + name
	}
	return lang.ExternalUID(stub), false, stub, true
}

// typeTarget returns the code:class: uid of a named type declared in the
// tree, or its external stub.
func (x *typedExtractor) typeTarget(tn *types.TypeName) (uid string, inTree bool, stub string) {
	if !packageLevel(tn) {
		return "", false, "" // a type declared in a function has no node
	}
	if rp, in := x.targetOf(tn.Pos()); in {
		return lang.CodeUID("class", rp, tn.Name()), true, ""
	}
	stub = tn.Name()
	if tn.Pkg() != nil {
		stub = tn.Pkg().Path() + "." + tn.Name()
	}
	return lang.ExternalUID(stub), false, stub
}

// packageLevel reports whether a type name is declared at package level
// (or is predeclared): only those have nodes.
func packageLevel(tn *types.TypeName) bool {
	return tn.Pkg() == nil || tn.Parent() == tn.Pkg().Scope()
}

// namedOf returns the named type behind t, through pointers and aliases.
func namedOf(t types.Type) *types.Named {
	for range 4 {
		switch u := types.Unalias(t).(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Named:
			return u.Origin()
		default:
			return nil
		}
	}
	return nil
}

// extractPackage returns the typed results of the files of cp that want
// accepts (repo-relative paths), keyed by path.
func (x *typedExtractor) extractPackage(cp *checkedPackage, want func(string) bool) map[string]*typedFile {
	out := map[string]*typedFile{}
	pe := &pkgEntries{}
	for i, f := range cp.files {
		rp, ok := x.rel.of(cp.names[i])
		if !ok || x.graph.owner[rp] != cp.pkg || !want(rp) {
			continue
		}
		fx := &typedFileExtraction{x: x, cp: cp, file: f, path: rp, fileUID: lang.FileUID(rp), edgeAt: map[graph.EdgeKey]int{}, nodeAt: map[string]bool{},
			pkgEnt: pe, findEntries: !strings.HasSuffix(rp, "_test.go")}
		fx.extract()
		out[rp] = &typedFile{Nodes: fx.nodes, Edges: fx.edges, impl: fx.impl}
	}
	return out
}

// typedFileExtraction is the state of one file's typed extraction.
type typedFileExtraction struct {
	x       *typedExtractor
	cp      *checkedPackage
	file    *ast.File
	path    string
	fileUID string
	nodes   []graph.Node
	nodeAt  map[string]bool
	edges   []graph.Edge
	edgeAt  map[graph.EdgeKey]int
	impl    []implJob
	// local maps the named types declared inside this file's functions to
	// their uid name ("Client.send.canceler"), so that calls on a
	// function-local interface have a node to point at.
	local map[*types.TypeName]string
	// bodyName is the declared name of the function whose body is walked
	// ("" in package-level initialisers).
	bodyName string
	// pkgEnt are the package's entry point tables, shared by its files;
	// ent is this file's entry point state; findEntries is false in
	// _test.go files (goentry.go).
	pkgEnt      *pkgEntries
	ent         entryState
	findEntries bool
	// fileCounts are the dynamic and reflective calls of package-level
	// initialisers, recorded on the file node.
	fileCounts callCounts
}

// callCounts are the call sites of one function the graph cannot follow.
type callCounts struct{ dynamic, reflect int }

func (c callCounts) metadata(m map[string]any) map[string]any {
	if c.dynamic == 0 && c.reflect == 0 {
		return m
	}
	if m == nil {
		m = map[string]any{}
	}
	if c.dynamic > 0 {
		m[graph.MetaDynamicCalls] = c.dynamic
	}
	if c.reflect > 0 {
		m[graph.MetaReflectCalls] = c.reflect
	}
	return m
}

func (fx *typedFileExtraction) line(p token.Pos) int {
	if !p.IsValid() {
		return 0
	}
	return fx.x.fset.Position(p).Line
}

func (fx *typedFileExtraction) node(n graph.Node) {
	if fx.nodeAt[n.UID] {
		return
	}
	fx.nodeAt[n.UID] = true
	n.Extractor = lang.ExtractorGo
	if n.Path == "" && n.Kind != graph.KindExternal && n.Kind != graph.KindModule && n.Kind != graph.KindDependency {
		n.Path = fx.path
	}
	fx.nodes = append(fx.nodes, n)
}

// stubNode adds the code:external: node of an out-of-tree target.
func (fx *typedFileExtraction) stubNode(uid, label string) {
	fx.node(graph.Node{UID: uid, Kind: graph.KindExternal, Label: lang.CleanString(label), Metadata: map[string]any{"stub": true}})
}

// edge adds an edge once per (source, target, type), keeping the first
// line; it returns the edge's index.
func (fx *typedFileExtraction) edge(src, dst, typ string, line int) int {
	k := graph.EdgeKey{Source: src, Target: dst, Type: typ, Extractor: lang.ExtractorGo}
	if i, ok := fx.edgeAt[k]; ok {
		return i
	}
	if src == dst && typ != graph.EdgeCalls {
		return -1 // see lang.SelfLoop
	}
	fx.edges = append(fx.edges, graph.Edge{Source: src, Target: dst, Type: typ, Extractor: lang.ExtractorGo, Line: line})
	fx.edgeAt[k] = len(fx.edges) - 1
	return len(fx.edges) - 1
}

func (fx *typedFileExtraction) extract() {
	f := fx.file
	pkgName := f.Name.Name
	fileMeta := map[string]any{"language": "go", "package": pkgName, graph.MetaExtraction: graph.ExtractionTypes}
	fileIdx := len(fx.nodes)
	fx.node(graph.Node{UID: fx.fileUID, Kind: graph.KindFile, Label: path.Base(fx.path), Metadata: fileMeta})
	ip := fx.cp.pkg.PkgPath
	modUID := lang.ClampUID("code:module:" + lang.UIDPart(ip))
	fx.node(graph.Node{UID: modUID, Kind: graph.KindModule, Label: lang.CleanString(ip), Metadata: map[string]any{"language": "go"}})
	fx.edge(fx.fileUID, modUID, graph.EdgeDefines, 0)
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p == "" {
			continue
		}
		line := fx.line(imp.Pos())
		if d, ok := fx.cp.pkg.Imports[p]; ok && fx.x.inTreePath[d.PkgPath] {
			fx.edge(fx.fileUID, lang.ClampUID("code:module:"+lang.UIDPart(d.PkgPath)), graph.EdgeImports, line)
			continue
		}
		n := lang.GoPackageNode(p)
		fx.node(n)
		fx.edge(fx.fileUID, n.UID, graph.EdgeImports, line)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			fx.funcDecl(d)
		case *ast.GenDecl:
			fx.genDecl(d)
		}
	}
	fx.nodes[fileIdx].Metadata = fx.fileCounts.metadata(fx.nodes[fileIdx].Metadata)
	// By type, source and target; stable, so equal keys keep their order.
	slices.SortStableFunc(fx.edges, func(a, b graph.Edge) int {
		return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
	})
}

func (fx *typedFileExtraction) funcDecl(d *ast.FuncDecl) {
	if d.Name.Name == "_" {
		return
	}
	info := fx.cp.info
	name := d.Name.Name
	kind := graph.KindFunction
	container := fx.fileUID
	if d.Recv != nil && len(d.Recv.List) > 0 {
		recv := golang.RecvTypeName(d.Recv.List[0].Type)
		if recv == "" {
			return
		}
		name = recv + "." + name
		kind = graph.KindMethod
		if fn, ok := info.Defs[d.Name].(*types.Func); ok {
			if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
				if named := namedOf(sig.Recv().Type()); named != nil {
					// The receiver's type as callers name it (through an
					// alias: the aliased type).
					name = named.Obj().Name() + "." + d.Name.Name
					if uid, in, _ := fx.x.typeTarget(named.Obj()); in {
						container = uid
					}
				}
			}
		}
	}
	uid := lang.CodeUID("function", fx.path, name)
	idx := len(fx.nodes)
	fx.node(graph.Node{UID: uid, Kind: kind, Label: lang.CleanString(name), Line: fx.line(d.Pos()), EndLine: fx.line(d.End())})
	fx.edge(container, uid, graph.EdgeContains, fx.line(d.Pos()))
	fx.mainEntry(d)
	if fn, ok := info.Defs[d.Name].(*types.Func); ok {
		sig := fn.Type().(*types.Signature)
		for i := range sig.Params().Len() {
			fx.classRef(uid, sig.Params().At(i).Type(), graph.EdgeHasParamType, fx.line(sig.Params().At(i).Pos()))
		}
	}
	if d.Body == nil {
		return
	}
	var counts callCounts
	fx.bodyName = name
	fx.body(uid, d.Body, &counts)
	fx.bodyName = ""
	if idx < len(fx.nodes) && fx.nodes[idx].UID == uid {
		fx.nodes[idx].Metadata = counts.metadata(fx.nodes[idx].Metadata)
		if kind == graph.KindFunction && strings.HasSuffix(fx.path, "_test.go") && strings.HasPrefix(name, "Example") && exampleOutput(fx.file, d.Body) {
			if fx.nodes[idx].Metadata == nil {
				fx.nodes[idx].Metadata = map[string]any{}
			}
			fx.nodes[idx].Metadata[graph.MetaExampleOutput] = true
		}
	}
}

// exampleOutput reports whether an example's body ends with an output
// comment ("Output:" or "Unordered output:", as go/doc reads it): go test
// runs only such examples, and compiles the others.
func exampleOutput(f *ast.File, body *ast.BlockStmt) bool {
	var last *ast.CommentGroup
	for _, cg := range f.Comments {
		if cg.Pos() > body.Lbrace && cg.End() < body.Rbrace {
			last = cg
		}
	}
	if last == nil {
		return false
	}
	text := strings.TrimSpace(last.Text())
	lower := strings.ToLower(text)
	return strings.HasPrefix(lower, "output:") || strings.HasPrefix(lower, "unordered output:")
}

// classRef adds an edge of typ from src to the in-tree named type behind t.
func (fx *typedFileExtraction) classRef(src string, t types.Type, typ string, line int) {
	named := namedOf(t)
	if named == nil {
		return
	}
	if uid, in, _ := fx.typeTarget(named.Obj()); in && uid != "" {
		fx.edge(src, uid, typ, line)
	}
}

func (fx *typedFileExtraction) genDecl(d *ast.GenDecl) {
	info := fx.cp.info
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if s.Name.Name == "_" {
				continue
			}
			_, isIface := s.Type.(*ast.InterfaceType)
			uid := fx.typeDecl(fx.fileUID, s.Name.Name, s, nil)
			if tn, ok := info.Defs[s.Name].(*types.TypeName); ok && !isIface {
				fx.impl = append(fx.impl, implJob{path: fx.path, uid: uid, tn: tn, pkg: fx.cp.pkg})
			}
		case *ast.ValueSpec:
			// Calls in package-level initialisers are attributed to the file.
			for _, v := range s.Values {
				fx.body(fx.fileUID, v, &fx.fileCounts)
			}
		}
	}
}

// body records the calls, references, constructions and field accesses of
// a function body (closures included) or an initialiser, from src.
func (fx *typedFileExtraction) body(src string, n ast.Node, counts *callCounts) {
	info := fx.cp.info
	called := map[*ast.Ident]bool{}
	fx.ent.lits = nil
	ast.Inspect(n, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.FuncLit:
			fx.ent.lits = append(fx.ent.lits, e)
		case *ast.CallExpr:
			fx.call(src, e, called, counts)
		case *ast.Ident:
			if called[e] {
				return true
			}
			switch o := info.Uses[e].(type) {
			case *types.Func:
				if uid, in, stub, ok := fx.funcTarget(o); ok {
					if !in {
						fx.stubNode(uid, stub)
					}
					fx.edge(src, uid, graph.EdgeReferences, fx.line(e.Pos()))
				}
			case *types.Var:
				if o.IsField() {
					fx.field(src, o, fx.line(e.Pos()))
				}
			}
		case *ast.CompositeLit:
			if t := info.TypeOf(e); t != nil {
				fx.classRef(src, t, graph.EdgeConstructs, fx.line(e.Pos()))
			}
			if fx.findEntries {
				fx.commandLit(src, e)
			}
		case *ast.DeclStmt:
			if gd, ok := e.Decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE && fx.bodyName != "" {
				fx.localTypes(src, gd)
			}
		}
		return true
	})
}

// localTypes gives the named types declared in a function body nodes,
// code:class:<path>::<Func>.<Type>, contained by the function, and an
// interface's methods nodes <Func>.<Type>.<Method>.
func (fx *typedFileExtraction) localTypes(fn string, gd *ast.GenDecl) {
	for _, sp := range gd.Specs {
		ts, ok := sp.(*ast.TypeSpec)
		if !ok || ts.Name.Name == "_" {
			continue
		}
		tn, ok := fx.cp.info.Defs[ts.Name].(*types.TypeName)
		if !ok {
			continue
		}
		name := fx.bodyName + "." + ts.Name.Name
		if fx.local == nil {
			fx.local = map[*types.TypeName]string{}
		}
		fx.local[tn] = name
		fx.typeDecl(fn, name, ts, map[string]any{"local": true})
	}
}

// typeDecl adds the nodes of a declared type (typeDeclNodes), contained by
// container, and returns the type's uid.
func (fx *typedFileExtraction) typeDecl(container, name string, ts *ast.TypeSpec, extra map[string]any) string {
	nodes, edges := golang.TypeDeclNodes(fx.path, name, ts, fx.line, extra)
	for _, n := range nodes {
		fx.node(n)
	}
	for _, e := range edges {
		fx.edge(e.Source, e.Target, e.Type, e.Line)
	}
	fx.edge(container, nodes[0].UID, graph.EdgeContains, fx.line(ts.Pos()))
	return nodes[0].UID
}

// funcTarget is typedExtractor.funcTarget knowing this file's
// function-local types.
func (fx *typedFileExtraction) funcTarget(fn *types.Func) (uid string, inTree bool, stub string, ok bool) {
	if sig, isSig := fn.Origin().Type().(*types.Signature); isSig && sig.Recv() != nil {
		if named := namedOf(sig.Recv().Type()); named != nil && !packageLevel(named.Obj()) {
			if name, known := fx.local[named.Obj()]; known {
				return lang.CodeUID("function", fx.path, name+"."+fn.Name()), true, "", true
			}
		}
	}
	return fx.x.funcTarget(fn)
}

// typeTarget is typedExtractor.typeTarget knowing this file's
// function-local types.
func (fx *typedFileExtraction) typeTarget(tn *types.TypeName) (uid string, inTree bool, stub string) {
	if name, known := fx.local[tn]; known {
		return lang.CodeUID("class", fx.path, name), true, ""
	}
	return fx.x.typeTarget(tn)
}

// call records one call expression: a calls edge to a static callee or an
// interface method, nothing for a conversion or a builtin, a dynamic call
// for a call through a func value.
func (fx *typedFileExtraction) call(src string, c *ast.CallExpr, called map[*ast.Ident]bool, counts *callCounts) {
	info := fx.cp.info
	fun := ast.Unparen(c.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(f.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(f.X)
	}
	switch f := fun.(type) {
	case *ast.Ident:
		called[f] = true
	case *ast.SelectorExpr:
		called[f.Sel] = true
	}
	if tv, ok := info.Types[c.Fun]; ok && tv.IsType() {
		return // a conversion T(x)
	}
	switch o := typeutil.Callee(info, c).(type) {
	case *types.Builtin:
	case *types.Func:
		if isReflectCall(o) {
			counts.reflect++
		}
		uid, in, stub, ok := fx.funcTarget(o)
		if !ok {
			counts.dynamic++ // a method of an unnamed interface
			return
		}
		if !in {
			fx.stubNode(uid, stub)
		}
		fx.edge(src, uid, graph.EdgeCalls, fx.line(c.Pos()))
		if fx.findEntries {
			fx.entryCall(src, c, o)
		}
	default:
		if _, lit := fun.(*ast.FuncLit); !lit {
			counts.dynamic++ // a func-typed variable, field, parameter or result
		}
	}
}

// isReflectCall reports whether fn is one of reflect's dynamic invocations.
func isReflectCall(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "reflect" {
		return false
	}
	switch fn.Name() {
	case "Call", "CallSlice", "Method", "MethodByName":
		return true
	}
	return false
}

// field records an accesses_field edge to the in-tree struct declaring v.
func (fx *typedFileExtraction) field(src string, v *types.Var, line int) {
	owner := fx.x.fieldOwner(v)
	if owner == nil {
		return
	}
	uid, in, _ := fx.x.typeTarget(owner)
	if !in {
		return
	}
	i := fx.edge(src, uid, graph.EdgeAccessesField, line)
	if i < 0 {
		return
	}
	e := &fx.edges[i]
	if e.Metadata == nil {
		e.Metadata = map[string]any{}
	}
	fields, _ := e.Metadata[graph.MetaFields].([]string)
	name := v.Origin().Name()
	for _, f := range fields {
		if f == name {
			return
		}
	}
	fields = append(fields, name)
	sort.Strings(fields)
	e.Metadata[graph.MetaFields] = fields
}

// fieldOwner returns the package-level named struct type declaring field
// v, nil for fields of unnamed or local structs.
func (x *typedExtractor) fieldOwner(v *types.Var) *types.TypeName {
	v = v.Origin()
	pkg := v.Pkg()
	if pkg == nil {
		return nil
	}
	if _, in := x.relOf(v.Pos()); !in {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	m, ok := x.fieldOwners[pkg]
	if !ok {
		m = map[*types.Var]*types.TypeName{}
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			st, ok := tn.Type().Underlying().(*types.Struct)
			if !ok {
				continue
			}
			for i := range st.NumFields() {
				m[st.Field(i)] = tn
			}
		}
		x.fieldOwners[pkg] = m
	}
	return m[v]
}

// interfacesOf returns the named, non-generic interfaces with at least one
// method declared at package level in tp.
func (x *typedExtractor) interfacesOf(tp *types.Package) []*types.TypeName {
	x.mu.Lock()
	defer x.mu.Unlock()
	if l, ok := x.ifaces[tp]; ok {
		return l
	}
	var l []*types.TypeName
	scope := tp.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok || named.TypeParams().Len() > 0 {
			continue
		}
		it, ok := named.Underlying().(*types.Interface)
		if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
			continue
		}
		l = append(l, tn)
	}
	x.ifaces[tp] = l
	return l
}
