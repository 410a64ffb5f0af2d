package scala

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// importDecl reads one import clause: import a.b.C, import a.b.{C, D =>
// E, F as G}, import a.b._ / a.b.*, import a.b.Obj.member.
func (f *file) importDecl(n *sitter.Node) {
	var segs []string
	line := ts.Line(n)
	for i := uint(0); i < n.ChildCount(); i++ {
		k := n.Child(i)
		if k == nil {
			continue
		}
		if n.FieldNameForChild(uint32(i)) == "path" {
			if k.Kind() == "identifier" || k.Kind() == "operator_identifier" {
				segs = append(segs, ts.Text(k, f.src))
			}
			continue
		}
		switch k.Kind() {
		case "namespace_wildcard":
			f.importWild(segs, line)
		case "as_renamed_identifier", "arrow_renamed_identifier":
			// import a.b.C as D (Scala 3), a single renamed selector.
			f.importRenamed(segs, k, line)
		case "namespace_selectors":
			for _, s := range ts.Children(k) {
				switch s.Kind() {
				case "identifier", "type_identifier":
					name := ts.Text(&s, f.src)
					f.importName(segs, name, name, line)
				case "as_renamed_identifier", "arrow_renamed_identifier":
					f.importRenamed(segs, &s, line)
				case "namespace_wildcard", "wildcard":
					f.importWild(segs, line)
				}
			}
			return
		}
	}
	if len(segs) >= 2 && !f.hasSelector(n) {
		last := segs[len(segs)-1]
		f.importName(segs[:len(segs)-1], last, last, line)
	}
}

// hasSelector reports whether an import names what it imports after its
// path (selectors, a wildcard, a rename).
func (f *file) hasSelector(n *sitter.Node) bool {
	for _, k := range ts.Children(n) {
		switch k.Kind() {
		case "namespace_wildcard", "namespace_selectors", "as_renamed_identifier", "arrow_renamed_identifier":
			return true
		}
	}
	return false
}

func (f *file) importRenamed(base []string, k *sitter.Node, line int) {
	name := ts.Text(k.ChildByFieldName("name"), f.src)
	alias := ts.Text(k.ChildByFieldName("alias"), f.src)
	if alias == "_" {
		return // import a.{B => _}: hides B
	}
	f.importName(base, name, alias, line)
}

// splitPath splits an import path at its first upper-case segment: the
// package before it, the object (dotted) from it on.
func splitPath(segs []string) (pkg, obj string) {
	for i, s := range segs {
		if isUpper(s) {
			return strings.Join(segs[:i], "."), strings.Join(segs[i:], ".")
		}
	}
	return strings.Join(segs, "."), ""
}

// importName imports name from base as alias.
func (f *file) importName(base []string, name, alias string, line int) {
	if name == "" || len(base) == 0 {
		return
	}
	pkg, obj := splitPath(base)
	scope := "scala:" + pkg
	if obj == "" {
		if isUpper(name) {
			f.imports[alias] = &lang.Chain{Scope: scope, Name: name}
		} else {
			f.tops[alias] = scope // a top-level def (or a package)
		}
		f.importRef(scope, name, line)
		return
	}
	if isUpper(name) {
		f.imports[alias] = &lang.Chain{Scope: scope, Name: obj + "." + name}
	} else {
		f.imported[alias] = &lang.Chain{Scope: scope, Name: obj}
	}
	f.importRef(scope, obj[:strings.IndexByte(obj+".", '.')], line)
}

// importWild imports everything of a package or an object.
func (f *file) importWild(base []string, line int) {
	if len(base) == 0 {
		return
	}
	pkg, obj := splitPath(base)
	if obj != "" {
		f.ostars = append(f.ostars, &lang.Chain{Scope: "scala:" + pkg, Name: obj})
		f.importRef("scala:"+pkg, obj[:strings.IndexByte(obj+".", '.')], line)
		return
	}
	f.stars = append(f.stars, pkg)
	if d, ok := f.dirExists(pkg); ok && d != f.dir {
		f.fr.AddEdge(f.fileUID, lang.ClampUID("folder:"+lang.UIDPart(d)), graph.EdgeImports, line)
	}
}

// importRef adds a reference resolved to the in-tree file declaring name
// in scope (package resolve); nothing when none does.
func (f *file) importRef(scope, name string, line int) {
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefImport, From: f.fileUID, Line: line, Scope: scope, Name: name})
}

// dirExists reports whether the package pkg has a folder under the file's
// source root holding an indexed Scala file.
func (f *file) dirExists(pkg string) (string, bool) {
	if !f.rootOK {
		return "", false
	}
	d := path.Join(f.root, strings.ReplaceAll(pkg, ".", "/"))
	for p := range f.env.Files {
		if path.Dir(p) == d && (strings.HasSuffix(p, ".scala") || strings.HasSuffix(p, ".sc")) {
			return d, true
		}
	}
	return d, false
}

// fileExists reports whether the package pkg has a file <top>.scala under
// the file's source root.
func (f *file) fileExists(pkg, top string) bool {
	if !f.rootOK {
		return false
	}
	return f.env.Files[path.Join(f.root, strings.ReplaceAll(pkg, ".", "/"), top+".scala")]
}

// typeChain is the chain of an instance of the type node t; nil for type
// parameters, tuples, functions and other types no member lookup fits.
func (f *file) typeChain(t *sitter.Node, cx *ctx) *lang.Chain {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case "generic_type":
		return f.typeChain(t.ChildByFieldName("type"), cx)
	case "type_identifier", "identifier":
		return f.resolveType(ts.Text(t, f.src), cx)
	case "stable_type_identifier", "stable_identifier":
		return f.resolveDotted(ts.Text(t, f.src), cx)
	case "annotated_type", "lazy_parameter_type":
		for _, k := range ts.Children(t) {
			if k.Kind() != "annotation" && k.Kind() != "=>" {
				return f.typeChain(&k, cx)
			}
		}
	}
	return nil
}

// resolveDotted resolves A.B (a nested type or an object's member type)
// or a package-qualified a.b.C.
func (f *file) resolveDotted(q string, cx *ctx) *lang.Chain {
	q = strings.Join(strings.Fields(q), "")
	head, rest, _ := strings.Cut(q, ".")
	if isUpper(head) {
		if h := f.resolveType(head, cx); h != nil {
			return &lang.Chain{Scope: h.Scope, Name: h.Name + "." + rest, Inst: true}
		}
		return nil
	}
	pkg, obj := splitPath(strings.Split(q, "."))
	if obj == "" {
		return nil
	}
	return &lang.Chain{Scope: "scala:" + pkg, Name: obj, Inst: true}
}

// resolveType resolves a simple type name seen in cx: a type parameter
// (nil), a nested type of an enclosing type, a type of the file, an
// import, a file <Name>.scala in a wildcard-imported package's folder,
// else the first of the file's own package, the packages of chained
// clauses and those of wildcard imports to declare it (lang.ScalaSearchScope).
func (f *file) resolveType(name string, cx *ctx) *lang.Chain {
	if name == "" || name == "_" {
		return nil
	}
	if cx != nil {
		if cx.tparams[name] {
			return nil
		}
		for c := cx.cls; c != nil; c = c.outer {
			if c.tparams[name] {
				return nil
			}
			if _, ok := f.classes[c.name+"."+name]; ok {
				return &lang.Chain{Scope: f.scope, Name: c.name + "." + name, Inst: true}
			}
			if c.name == name || strings.HasSuffix(c.name, "."+name) {
				return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
			}
		}
	}
	if _, ok := f.classes[name]; ok {
		return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
	}
	if c, ok := f.imports[name]; ok {
		return &lang.Chain{Scope: c.Scope, Name: c.Name, Inst: true}
	}
	for _, p := range f.stars {
		if f.fileExists(p, name) {
			return &lang.Chain{Scope: "scala:" + p, Name: name, Inst: true}
		}
	}
	if scalaTypes[name] {
		return nil
	}
	return &lang.Chain{Scope: f.search, Name: name, Inst: true}
}

// scalaTypes are the standard types (scala._, Predef, java.lang) a name
// is taken for when the file and its imports do not declare it: no node
// in the tree, so no member call on them resolves.
var scalaTypes = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`Any AnyRef AnyVal Nothing Null Unit Boolean Byte Short Char Int Long Float Double
	String Object Option Some None Either Left Right List Nil Seq IndexedSeq Vector Map Set Array Iterator Iterable
	Tuple2 Tuple3 Function0 Function1 Function2 PartialFunction BigInt BigDecimal StringBuilder Range Stream LazyList
	Throwable Exception RuntimeException Error IllegalArgumentException IllegalStateException
	UnsupportedOperationException NoSuchElementException Serializable Product Equals Ordering Ordered Numeric
	Class Thread Runnable Comparable CharSequence Integer Character Future Try Success Failure
	App Enumeration Dynamic AutoCloseable Cloneable`) {
		scalaTypes[n] = true
	}
}
