package golang

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// goBuiltins are the predeclared functions of Go; calls to them are not
// references.
var goBuiltins = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true,
	"bool": true, "byte": true, "rune": true, "string": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "float32": true, "float64": true, "complex64": true, "complex128": true, "error": true, "any": true}

// extract parses one Go file with go/parser: the file, its package
// (code:module:<import path>, via a defines edge), functions, methods
// (<Type>.<method>, kind method), types (code:class:), imports and calls.
// Calls are resolved later against the declarations table: bare names in
// the package, pkg.Name through the import path, x.M through a light local
// type inference (receivers, parameters, &T{}, T{}, new(T), var x T).
func extract(fr *lang.Result, src []byte, mods *lang.GoModules) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, fr.Path, src, parser.SkipObjectResolution)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok {
			for _, e := range list {
				fr.ParseError(e.Error())
			}
		} else {
			fr.ParseError(err.Error())
		}
	}
	fileUID := lang.FileUID(fr.Path)
	fileNode := graph.Node{UID: fileUID, Kind: graph.KindFile, Label: path.Base(fr.Path), Metadata: map[string]any{"language": "go"}}
	if f == nil || f.Name == nil {
		fr.AddNode(fileNode)
		return
	}
	dir := path.Dir(fr.Path)
	if dir == "." {
		dir = ""
	}
	pkgName := f.Name.Name
	scope := "go:" + dir
	if strings.HasSuffix(pkgName, "_test") {
		scope += "#test"
	}
	fileNode.Metadata["package"] = pkgName
	fr.AddNode(fileNode)
	ip := mods.ImportPath(dir)
	if strings.HasSuffix(pkgName, "_test") {
		ip += "_test" // the external test package is a package of its own
	}
	modUID := lang.ClampUID("code:module:" + lang.UIDPart(ip))
	// Every file of the package emits this node: it must be identical in
	// all of them, so it carries nothing file-specific.
	fr.AddNode(graph.Node{UID: modUID, Kind: graph.KindModule, Label: lang.CleanString(ip), Metadata: map[string]any{"language": "go"}})
	fr.AddEdge(fileUID, modUID, graph.EdgeDefines, 0)
	fr.Decl = &lang.Decl{Scope: scope, Names: map[string]string{}, Results: map[string]string{}}

	g := &goFile{fr: fr, fset: fset, scope: scope, fileUID: fileUID, pkgName: pkgName, imports: map[string]string{}}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p == "" {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		} else if i := strings.LastIndex(name, "."); i > 0 {
			name = name[:i] // gopkg.in/yaml.v3 → yaml
		} else if len(name) > 1 && name[0] == 'v' && isDigits(name[1:]) {
			name = path.Base(path.Dir(p)) // example.com/mod/v2 → mod
		}
		if name != "_" && name != "." {
			g.imports[name] = p
		}
		fr.Refs = append(fr.Refs, lang.Ref{Type: lang.RefImport, From: fileUID, Line: g.line(imp.Pos()), Scope: "goimport:" + p})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			g.funcDecl(d)
		case *ast.GenDecl:
			g.genDecl(d)
		}
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// goFile is the state of one Go file's extraction.
type goFile struct {
	fr      *lang.Result
	fset    *token.FileSet
	scope   string
	fileUID string
	pkgName string
	imports map[string]string // local name → import path
	// entries are the uids of the file's entry points (main, init: a file
	// may declare init more than once).
	entries map[string]bool
}

func (g *goFile) line(p token.Pos) int {
	if !p.IsValid() {
		return 0
	}
	return g.fset.Position(p).Line
}

// RecvTypeName returns T for receivers T, *T, T[P], *T[P]: receiver syntax
// is a subset of what typeRef unwraps, and never package-qualified.
func RecvTypeName(e ast.Expr) string {
	if t := typeRef(e); !strings.Contains(t, ".") {
		return t
	}
	return ""
}

// typeRef returns "T" or "pkg.T" for a (pointer to a) named type expression.
func typeRef(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return ""
			}
			e = x.X
		case *ast.CompositeLit:
			e = x.Type
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return id.Name + "." + x.Sel.Name
			}
			return ""
		default:
			return ""
		}
	}
}

func (g *goFile) funcDecl(d *ast.FuncDecl) {
	name := d.Name.Name
	kind := graph.KindFunction
	recvType := ""
	if d.Recv != nil && len(d.Recv.List) > 0 {
		recvType = RecvTypeName(d.Recv.List[0].Type)
		if recvType == "" {
			return
		}
		name = recvType + "." + name
		kind = graph.KindMethod
	}
	if d.Name.Name == "_" {
		return
	}
	uid := lang.CodeUID("function", g.fr.Path, name)
	g.fr.AddNode(graph.Node{UID: uid, Kind: kind, Label: lang.CleanString(name), Line: g.line(d.Pos()), EndLine: g.line(d.End())})
	if name != "init" { // init is never called by name
		g.fr.Decl.Names[name] = kind
		if res := d.Type.Results; res != nil && len(res.List) > 0 {
			if t := typeRef(res.List[0].Type); t != "" && !strings.Contains(t, ".") && !goBuiltins[t] {
				g.fr.Decl.Results[name] = t
			}
		}
	}
	if kind == graph.KindMethod {
		g.fr.Refs = append(g.fr.Refs, lang.Ref{Type: lang.RefContainedBy, From: uid, Line: g.line(d.Pos()), Scope: g.scope, Name: recvType})
	} else {
		g.fr.AddEdge(g.fileUID, uid, graph.EdgeContains, g.line(d.Pos()))
	}
	if n, edges, ok := MainEntry(g.fr.Path, g.pkgName, d, g.line); ok && !g.entries[n.UID] {
		if g.entries == nil {
			g.entries = map[string]bool{}
		}
		g.entries[n.UID] = true
		g.fr.AddNode(n)
		g.fr.Edges = append(g.fr.Edges, edges...)
	}
	if d.Body == nil {
		return
	}
	fn := &goFunc{g: g, uid: uid, locals: map[string]bool{}, types: map[string]string{}}
	if d.Recv != nil {
		fn.params(d.Recv)
	}
	fn.params(d.Type.Params)
	fn.params(d.Type.Results)
	fn.body(d.Body)
}

func (g *goFile) genDecl(d *ast.GenDecl) {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if s.Name.Name == "_" {
				continue
			}
			nodes, edges := TypeDeclNodes(g.fr.Path, s.Name.Name, s, g.line, nil)
			for _, n := range nodes {
				g.fr.AddNode(n)
			}
			for _, e := range edges {
				g.fr.AddEdge(e.Source, e.Target, e.Type, e.Line)
			}
			g.fr.AddEdge(g.fileUID, nodes[0].UID, graph.EdgeContains, g.line(s.Pos()))
			g.fr.Decl.Names[s.Name.Name] = graph.KindClass
			for _, n := range nodes[1:] {
				g.fr.Decl.Names[n.Label] = graph.KindMethod
			}
		case *ast.ValueSpec:
			// Calls in package-level initialisers are attributed to the file.
			fn := &goFunc{g: g, uid: g.fileUID, locals: map[string]bool{}, types: map[string]string{}}
			for _, v := range s.Values {
				fn.body(v)
			}
		}
	}
}

// goFunc collects the calls of one function body.
type goFunc struct {
	g      *goFile
	uid    string
	locals map[string]bool   // every name declared in the function
	types  map[string]string // local name → "T" or "pkg.T"
	calls  []*ast.CallExpr
}

func (fn *goFunc) params(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		t := typeRef(f.Type)
		for _, n := range f.Names {
			fn.locals[n.Name] = true
			if t != "" {
				fn.types[n.Name] = t
			}
		}
	}
}

func (fn *goFunc) body(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			fn.calls = append(fn.calls, x)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for i, l := range x.Lhs {
					id, ok := l.(*ast.Ident)
					if !ok {
						continue
					}
					fn.locals[id.Name] = true
					switch {
					case len(x.Rhs) == len(x.Lhs):
						if t := valueType(x.Rhs[i]); t != "" {
							fn.types[id.Name] = t
						}
					case len(x.Rhs) == 1 && i == 0:
						if t := callResult(x.Rhs[0]); t != "" {
							fn.types[id.Name] = t
						}
					}
				}
			}
		case *ast.ValueSpec:
			t := typeRef(x.Type)
			for i, id := range x.Names {
				fn.locals[id.Name] = true
				if t == "" && len(x.Values) == len(x.Names) {
					t = valueType(x.Values[i])
				}
				if t != "" {
					fn.types[id.Name] = t
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						fn.locals[id.Name] = true
					}
				}
			}
		case *ast.FuncLit:
			fn.params(x.Type.Params)
		case *ast.TypeSwitchStmt:
			if a, ok := x.Assign.(*ast.AssignStmt); ok {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						fn.locals[id.Name] = true
					}
				}
			}
		}
		return true
	})
	for _, c := range fn.calls {
		fn.call(c)
	}
	fn.calls = nil
}

// callResultPrefix marks a local whose type is "what function F returns".
const callResultPrefix = "()"

// callResult returns "()F" or "()pkg.F" for a call F(…) or pkg.F(…), whose
// result type is looked up at resolution.
func callResult(e ast.Expr) string {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return callResultPrefix + f.Name
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return callResultPrefix + id.Name + "." + f.Sel.Name
		}
	}
	return ""
}

// valueType infers the type of &T{…}, T{…}, new(T) and, through
// callResult, F(…).
func valueType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.UnaryExpr, *ast.CompositeLit:
		return typeRef(x)
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "new" && len(x.Args) == 1 {
			return typeRef(x.Args[0])
		}
		return callResult(x)
	}
	return ""
}

func (fn *goFunc) call(c *ast.CallExpr) {
	g := fn.g
	fun := c.Fun
	for {
		switch x := fun.(type) {
		case *ast.ParenExpr:
			fun = x.X
			continue
		case *ast.IndexExpr:
			fun = x.X
			continue
		case *ast.IndexListExpr:
			fun = x.X
			continue
		}
		break
	}
	line := g.line(c.Pos())
	add := func(scope, name, stub string) {
		g.fr.Refs = append(g.fr.Refs, lang.Ref{Type: lang.RefCall, From: fn.uid, Line: line, Scope: scope, Name: name, Stub: stub})
	}
	addThen := func(scope, name, then string) {
		g.fr.Refs = append(g.fr.Refs, lang.Ref{Type: lang.RefCall, From: fn.uid, Line: line, Scope: scope, Name: name, Then: then, Stub: "*." + then})
	}
	switch x := fun.(type) {
	case *ast.Ident:
		if fn.locals[x.Name] || goBuiltins[x.Name] && !g.declaresLater(x.Name) {
			return
		}
		add(g.scope, x.Name, x.Name)
	case *ast.SelectorExpr:
		sel := x.Sel.Name
		id, ok := x.X.(*ast.Ident)
		if !ok {
			add("", "", "*."+sel)
			return
		}
		if ip, isImport := g.imports[id.Name]; isImport && !fn.locals[id.Name] {
			add("goimport:"+ip, sel, ip+"."+sel)
			return
		}
		if t, ok := fn.types[id.Name]; ok {
			if f, isResult := strings.CutPrefix(t, callResultPrefix); isResult {
				if pkg, fname, qualified := strings.Cut(f, "."); qualified {
					if ip, isImport := g.imports[pkg]; isImport {
						addThen("goimport:"+ip, fname, sel)
						return
					}
				} else {
					addThen(g.scope, f, sel)
					return
				}
				add("", "", "*."+sel)
				return
			}
			if pkg, typ, qualified := strings.Cut(t, "."); qualified {
				if ip, isImport := g.imports[pkg]; isImport {
					add("goimport:"+ip, typ+"."+sel, ip+"."+typ+"."+sel)
					return
				}
			} else {
				add(g.scope, t+"."+sel, "*."+sel)
				return
			}
		}
		if !fn.locals[id.Name] {
			// A package-level variable or a type's method expression T.M.
			add(g.scope, id.Name+"."+sel, "*."+sel)
			return
		}
		add("", "", "*."+sel)
	}
}

// declaresLater reports whether the package shadows a builtin name; the
// file's own declarations are the cheap approximation.
func (g *goFile) declaresLater(name string) bool {
	_, ok := g.fr.Decl.Names[name]
	return ok
}

// TypeDeclNodes returns the node of a declared type, code:class:<path>::
// <name> (metadata type_kind struct, interface or type, plus extra), then,
// for an interface, the nodes of its declared methods <name>.<Method>
// (kind method, metadata interface), and the contains edges from the type
// to them. name is the uid name: the type's own, or <Func>.<Type> for a
// type declared in a function.
func TypeDeclNodes(p, name string, ts *ast.TypeSpec, line func(token.Pos) int, extra map[string]any) ([]graph.Node, []graph.Edge) {
	uid := lang.CodeUID("class", p, name)
	tk := "type"
	iface, isIface := ts.Type.(*ast.InterfaceType)
	switch ts.Type.(type) {
	case *ast.StructType:
		tk = "struct"
	case *ast.InterfaceType:
		tk = "interface"
	}
	meta := map[string]any{graph.MetaTypeKind: tk}
	for k, v := range extra {
		meta[k] = v
	}
	nodes := []graph.Node{{UID: uid, Kind: graph.KindClass, Label: lang.CleanString(name), Line: line(ts.Pos()), EndLine: line(ts.End()), Metadata: meta}}
	var edges []graph.Edge
	if !isIface || iface.Methods == nil {
		return nodes, nil
	}
	for _, m := range iface.Methods.List {
		for _, n := range m.Names {
			if n.Name == "_" {
				continue
			}
			mname := name + "." + n.Name
			muid := lang.CodeUID("function", p, mname)
			nodes = append(nodes, graph.Node{UID: muid, Kind: graph.KindMethod, Label: lang.CleanString(mname), Line: line(n.Pos()), EndLine: line(m.End()), Metadata: map[string]any{"interface": true}})
			edges = append(edges, graph.Edge{Source: uid, Target: muid, Type: graph.EdgeContains, Line: line(n.Pos())})
		}
	}
	return nodes, edges
}
