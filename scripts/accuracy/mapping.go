package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// category is the kind of callee a calls edge reaches; every in-tree
// callee has exactly one.
type category string

const (
	catFunction  category = "function"  // a package function, not generic
	catMethod    category = "method"    // a method of a concrete, non-generic type
	catGeneric   category = "generic"   // a generic function or a method of a generic type
	catInterface category = "interface" // an interface method
	catUnknown   category = "unknown"   // a cos target the oracle does not declare
	catAll       category = "all"       // every in-tree calls edge
)

// categories are the rows of a report, in order.
var categories = []category{catFunction, catMethod, catGeneric, catInterface, catAll}

// title is a category's row label.
func (c category) title() string {
	switch c {
	case catFunction:
		return "static calls to package functions"
	case catMethod:
		return "static calls to concrete methods"
	case catGeneric:
		return "generic function/method calls"
	case catInterface:
		return "interface method calls"
	case catAll:
		return "all in-tree calls"
	}
	return string(c)
}

// Synthetic provenance of the function SSA builds for a package's
// initialisers (ssa/create.go).
const syntheticPackageInit = "package initializer"

// mapper turns go/types objects and SSA functions into cos uids (the
// scheme of extract/doc.go and graph/uid.go) for one indexed folder.
type mapper struct {
	fset *token.FileSet
	// root is the indexed folder, absolute, symlinks resolved.
	root string
	// funcs lists, per file name, the declared functions of the loaded
	// syntax with their extents, to name a function-local type by the
	// function declaring it.
	funcs map[string][]declRange
}

// declRange is one function declaration's extent and cos name ("F",
// "T.M").
type declRange struct {
	pos, end token.Pos
	name     string
}

// addSyntax records the declared functions of a package's files.
func (m *mapper) addSyntax(files []*ast.File) {
	if m.funcs == nil {
		m.funcs = map[string][]declRange{}
	}
	for _, f := range files {
		name := m.fset.Position(f.Pos()).Filename
		if _, done := m.funcs[name]; done {
			continue
		}
		var l []declRange
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				t := fd.Recv.List[0].Type
				for {
					switch x := t.(type) {
					case *ast.StarExpr:
						t = x.X
						continue
					case *ast.IndexExpr:
						t = x.X
						continue
					case *ast.IndexListExpr:
						t = x.X
						continue
					case *ast.ParenExpr:
						t = x.X
						continue
					}
					break
				}
				if id, ok := t.(*ast.Ident); ok {
					n = id.Name + "." + n
				}
			}
			l = append(l, declRange{pos: fd.Pos(), end: fd.End(), name: n})
		}
		m.funcs[name] = l
	}
}

// localName returns "<Func>.<Type>" for a type declared inside a function,
// the name cos gives it, or "" when the declaring function is unknown.
func (m *mapper) localName(tn *types.TypeName) string {
	name := m.fset.Position(tn.Pos()).Filename
	for _, d := range m.funcs[name] {
		if d.pos <= tn.Pos() && tn.Pos() < d.end {
			return d.name + "." + tn.Name()
		}
	}
	return ""
}

// rel returns the slash-separated path of an absolute file name relative
// to the indexed folder, and false when it lies outside.
func (m *mapper) rel(filename string) (string, bool) {
	if filename == "" {
		return "", false
	}
	r, err := filepath.Rel(m.root, filename)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// relPos is rel of a position's file.
func (m *mapper) relPos(pos token.Pos) (string, bool) {
	if !pos.IsValid() {
		return "", false
	}
	return m.rel(m.fset.Position(pos).Filename)
}

// fileUID is the uid of a repo-relative file.
func fileUID(rel string) string { return "code:file:" + rel }

// funcUID returns the uid of a declared function, method or interface
// method and its category. A method is named by its receiver's named type
// (the generic type for an instantiation, the declaring type for a
// promoted method, the declaring interface for an interface method); an
// object declared outside the folder gets a code:external: stub named
// "<import path>.<Name>" (inTree false). ok is false for a method of an
// unnamed interface, which has no node.
func (m *mapper) funcUID(obj *types.Func) (uid string, cat category, inTree, ok bool) {
	obj = obj.Origin()
	name := obj.Name()
	sig := obj.Signature()
	cat = catFunction
	if sig.TypeParams().Len() > 0 {
		cat = catGeneric
	}
	if recv := sig.Recv(); recv != nil {
		t := types.Unalias(recv.Type())
		if p, isPtr := t.(*types.Pointer); isPtr {
			t = types.Unalias(p.Elem())
		}
		named, isNamed := t.(*types.Named)
		if !isNamed {
			return "", "", false, false
		}
		named = named.Origin()
		switch {
		case types.IsInterface(named):
			cat = catInterface
		case named.TypeParams().Len() > 0:
			cat = catGeneric
		case cat != catGeneric:
			cat = catMethod
		}
		tname := named.Obj().Name()
		if o := named.Obj(); o.Pkg() != nil && o.Parent() != o.Pkg().Scope() {
			// A function-local type: cos names it by its function.
			if ln := m.localName(o); ln != "" {
				tname = ln
			}
		}
		name = tname + "." + name
	}
	if rel, in := m.relPos(obj.Pos()); in {
		return "code:function:" + rel + "::" + name, cat, true, true
	}
	stub := name
	if obj.Pkg() != nil {
		stub = obj.Pkg().Path() + "." + name
	}
	return "code:external:" + stub, cat, false, true
}

// outermost returns the declared function a closure (or a range-over-func
// yield function) is nested in, or fn itself.
func outermost(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// callerUID returns the uid a call site in fn is attributed to: the
// outermost declared function for closures, the file of the call for the
// package initialiser (package-level variable initialisers). ok is false
// for synthetic callers (wrappers) and callers outside the folder.
func (m *mapper) callerUID(fn *ssa.Function, site token.Pos) (string, bool) {
	root := outermost(fn)
	if root.Synthetic == syntheticPackageInit {
		rel, in := m.relPos(site)
		if !in {
			return "", false
		}
		return fileUID(rel), true
	}
	if root.Synthetic != "" {
		return "", false
	}
	obj, _ := root.Object().(*types.Func)
	if obj == nil {
		return "", false
	}
	uid, _, in, ok := m.funcUID(obj)
	return uid, ok && in
}

// calleeUID returns the uid and category of a static callee. Synthetic
// wrappers (bound methods, thunks, promotion and pointer wrappers) and
// generic instantiations map to the declared function they wrap, through
// Object (whose Origin is the generic declaration). ok is false for
// package initialisers and init functions (never called from source), and
// for a closure, whose calls belong to its outermost function: calling one
// in place is that function's own body.
func (m *mapper) calleeUID(g *ssa.Function) (uid string, cat category, inTree, ok bool) {
	if g.Parent() != nil || g.Synthetic == syntheticPackageInit {
		return "", "", false, false
	}
	obj, _ := g.Object().(*types.Func)
	if obj == nil {
		return "", "", false, false
	}
	if obj.Name() == "init" && obj.Signature().Recv() == nil {
		return "", "", false, false
	}
	return m.funcUID(obj)
}
