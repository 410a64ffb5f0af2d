package java

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the Java grammar, loaded once.
var language = sitter.NewLanguage(tsjava.Language())

// fieldPrefix marks a field in attribute facts and chain steps, so that a
// field and a method of one name (Java allows both) stay apart.
const fieldPrefix = "$"

// class is a class, interface, enum, record or annotation type of the
// file; anonymous and local classes have no node (named false).
type class struct {
	name       string // Outer.Inner; "" for an anonymous class
	outer      *class
	named      bool
	methods    map[string]bool
	spans      map[string][2]int      // method → first and last lines of its overloads
	returns    map[string]*lang.Chain // an anonymous class's method → its return type
	fields     map[string]*lang.Chain // field → its declared type (nil: unknown)
	tparams    map[string]bool
	base       *lang.Chain // an anonymous or local class: what it extends
	hasBase    bool        // a named class declares extends or implements
	superclass bool        // a named class declares extends (a class's)
}

// file is the state of one extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	pkg     string
	scope   string
	fileUID string
	dir     string
	root    string // the source root: dir without the package's folders
	rootOK  bool
	imports map[string]*lang.Chain // simple name → class
	statics map[string]*lang.Chain // statically imported member → its class
	sstars  []*lang.Chain          // import static C.*
	stars   []string               // import p.*: packages
	cstars  []*lang.Chain          // import C.*: classes
	classes map[string]*class      // by name (Outer.Inner)
	returns map[string]string      // FactReturn key → encoded chain, "" on disagreement
}

// ctx is where a body is walked: the node calls come from, the class
// this names, the method's type parameters and locals.
type ctx struct {
	from    string
	cls     *class
	tparams map[string]bool
	locals  map[string]*lang.Chain // nil value: a local of unknown type
}

func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "java"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	if env == nil {
		env = &lang.Env{}
	}
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, dir: path.Dir(fr.Path),
		imports: map[string]*lang.Chain{}, statics: map[string]*lang.Chain{}, classes: map[string]*class{}, returns: map[string]string{}}
	kids := ts.Children(root)
	for i := range kids {
		if ts.Kind(&kids[i]) == "package_declaration" {
			for _, c := range ts.Children(&kids[i]) {
				if ts.Kind(&c) == "scoped_identifier" || ts.Kind(&c) == "identifier" {
					f.pkg = ts.Text(&c, src)
				}
			}
		}
	}
	f.scope = "java:" + f.pkg
	f.root, f.rootOK = f.dir, f.pkg == ""
	if f.pkg != "" {
		pd := strings.ReplaceAll(f.pkg, ".", "/")
		if f.dir == pd {
			f.root, f.rootOK = ".", true
		} else if r, ok := strings.CutSuffix(f.dir, "/"+pd); ok {
			f.root, f.rootOK = r, true
		}
	}
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	for i := range kids {
		if ts.Kind(&kids[i]) == "import_declaration" {
			f.importDecl(&kids[i])
		}
	}
	// Declarations first, so that bodies see every class of the file.
	var types []sitter.Node
	for i := range kids {
		if isTypeDecl(ts.Kind(&kids[i])) {
			types = append(types, kids[i])
			f.declare(&kids[i], nil)
		}
	}
	for i := range types {
		f.emit(&types[i], nil, fileUID)
	}
	for k, v := range f.returns {
		if v != "" {
			if cs := lang.DecodeChains(v); len(cs) == 1 {
				fr.Decl.SetFact(k, cs[0])
			}
		}
	}
}

func isTypeDecl(k string) bool {
	switch k {
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
		return true
	}
	return false
}

// typeKind names a declaration's kind for the node's metadata.
func typeKind(k string) string {
	switch k {
	case "interface_declaration":
		return "interface"
	case "enum_declaration":
		return "enum"
	case "record_declaration":
		return "record"
	case "annotation_type_declaration":
		return "annotation"
	}
	return "class"
}

// fileExists reports whether the package pkg has a file <top>.java under
// the file's source root.
func (f *file) fileExists(pkg, top string) (string, bool) {
	if !f.rootOK {
		return "", false
	}
	p := path.Join(f.root, strings.ReplaceAll(pkg, ".", "/"), top+".java")
	return p, f.env.Files[p]
}

// dirExists reports whether the package pkg has a folder under the file's
// source root holding an indexed file.
func (f *file) dirExists(pkg string) (string, bool) {
	if !f.rootOK {
		return "", false
	}
	d := path.Join(f.root, strings.ReplaceAll(pkg, ".", "/"))
	for p := range f.env.Files {
		if path.Dir(p) == d && strings.HasSuffix(p, ".java") {
			return d, true
		}
	}
	return d, false
}

// splitQualified splits a qualified name into its package and its class
// (dotted for nested classes): by the in-tree file it names, else by the
// first segment starting with an upper-case letter.
func (f *file) splitQualified(q string) (pkg, name string, inTree string) {
	segs := strings.Split(q, ".")
	for i := 1; i < len(segs); i++ {
		p := strings.Join(segs[:i], ".")
		if fp, ok := f.fileExists(p, segs[i]); ok {
			return p, strings.Join(segs[i:], "."), fp
		}
	}
	for i, s := range segs {
		if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
			return strings.Join(segs[:i], "."), strings.Join(segs[i:], "."), ""
		}
	}
	return strings.Join(segs[:len(segs)-1], "."), segs[len(segs)-1], ""
}

func (f *file) importDecl(n *sitter.Node) {
	static, star := false, false
	var name string
	for _, c := range ts.Children(n) {
		switch ts.Kind(&c) {
		case "asterisk":
			star = true
		case "scoped_identifier", "identifier":
			name = ts.Text(&c, f.src)
		}
	}
	for i := uint(0); i < n.ChildCount(); i++ {
		if c := n.Child(i); c != nil && ts.Kind(c) == "static" {
			static = true
		}
	}
	if name == "" {
		return
	}
	line := ts.Line(n)
	switch {
	case static && star:
		pkg, cls, fp := f.splitQualified(name)
		f.sstars = append(f.sstars, &lang.Chain{Scope: "java:" + pkg, Name: cls})
		f.importEdge(fp, line)
	case static:
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			return
		}
		pkg, cls, fp := f.splitQualified(name[:i])
		f.statics[name[i+1:]] = &lang.Chain{Scope: "java:" + pkg, Name: cls}
		f.importEdge(fp, line)
	case star:
		if d, ok := f.dirExists(name); ok {
			f.stars = append(f.stars, name)
			f.fr.AddEdge(f.fileUID, lang.ClampUID("folder:"+lang.UIDPart(d)), graph.EdgeImports, line)
			return
		}
		pkg, cls, fp := f.splitQualified(name)
		if fp != "" || (cls != "" && pkg != name) {
			f.cstars = append(f.cstars, &lang.Chain{Scope: "java:" + pkg, Name: cls})
			f.importEdge(fp, line)
			return
		}
		f.stars = append(f.stars, name)
	default:
		pkg, cls, fp := f.splitQualified(name)
		simple := cls[strings.LastIndexByte(cls, '.')+1:]
		f.imports[simple] = &lang.Chain{Scope: "java:" + pkg, Name: cls}
		f.importEdge(fp, line)
	}
}

func (f *file) importEdge(fp string, line int) {
	if fp != "" && fp != f.fr.Path {
		f.fr.AddEdge(f.fileUID, lang.FileUID(fp), graph.EdgeImports, line)
	}
}

// maxTypeNesting is how deep type declarations nest before the deeper
// ones are left out (no node, bodies not read). A nested type's name holds
// every enclosing name, so without a bound a file of n nested classes
// costs n² in names and uids: 20,000 levels (180 KB) took over 5 GB.
const maxTypeNesting = 64

// declare records a type declaration and its nested types, to
// maxTypeNesting levels.
func (f *file) declare(n *sitter.Node, outer *class) {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if name == "" {
		return
	}
	depth := 0
	for o := outer; o != nil; o = o.outer {
		depth++
	}
	if depth >= maxTypeNesting {
		return
	}
	if outer != nil {
		name = outer.name + "." + name
	}
	c := &class{name: name, outer: outer, named: true, methods: map[string]bool{}, fields: map[string]*lang.Chain{}, tparams: typeParams(ts.Field(n, "type_parameters"), f.src)}
	c.superclass = ts.Field(n, "superclass") != nil
	c.hasBase = c.superclass || ts.Field(n, "interfaces") != nil
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if k := n.NamedChild(i); k != nil && ts.Kind(k) == "extends_interfaces" {
			c.hasBase = true
		}
	}
	f.classes[name] = c
	f.fr.Decl.Names[name] = graph.KindClass
	body := ts.Field(n, "body")
	if body == nil {
		return
	}
	f.members(body, c, func(k *sitter.Node) { f.declare(k, c) })
	if ts.Kind(n) == "record_declaration" {
		if ps := ts.Field(n, "parameters"); ps != nil {
			for _, p := range ts.Children(ps) {
				if ts.Kind(&p) == "formal_parameter" {
					pn := ts.Text(ts.Field(&p, "name"), f.src)
					c.fields[pn] = nil
				}
			}
		}
	}
}

// members records the methods and fields of a class body in c, calling
// nested for each nested type declaration.
func (f *file) members(body *sitter.Node, c *class, nested func(*sitter.Node)) {
	for _, m := range ts.Children(body) {
		switch ts.Kind(&m) {
		case "method_declaration", "annotation_type_element_declaration":
			mn := ts.Text(ts.Field(&m, "name"), f.src)
			c.methods[mn] = true
			if c.spans == nil {
				c.spans = map[string][2]int{}
			}
			sp, ok := c.spans[mn]
			if !ok {
				sp = [2]int{ts.Line(&m), ts.EndLine(&m)}
			}
			sp[0], sp[1] = min(sp[0], ts.Line(&m)), max(sp[1], ts.EndLine(&m))
			c.spans[mn] = sp
		case "field_declaration", "constant_declaration":
			for _, d := range ts.Children(&m) {
				if ts.Kind(&d) == "variable_declarator" {
					c.fields[ts.Text(ts.Field(&d, "name"), f.src)] = nil
				}
			}
		case "enum_body_declarations":
			f.members(&m, c, nested)
		case "enum_constant":
			c.fields[ts.Text(ts.Field(&m, "name"), f.src)] = nil
		default:
			if isTypeDecl(ts.Kind(&m)) {
				nested(&m)
			}
		}
	}
}

func typeParams(n *sitter.Node, src []byte) map[string]bool {
	if n == nil {
		return nil
	}
	out := map[string]bool{}
	for _, p := range ts.Children(n) {
		if ts.Kind(&p) == "type_parameter" {
			for _, k := range ts.Children(&p) {
				if ts.Kind(&k) == "type_identifier" || ts.Kind(&k) == "identifier" {
					out[ts.Text(&k, src)] = true
					break
				}
			}
		}
	}
	return out
}

// classChain is the chain of an instance of the named class c.
func (f *file) classChain(c *class) *lang.Chain {
	return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
}

// emit adds the nodes, edges and facts of a declared type and walks its
// members' bodies.
func (f *file) emit(n *sitter.Node, outer *class, parent string) {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if outer != nil {
		name = outer.name + "." + name
	}
	c := f.classes[name]
	if c == nil {
		return
	}
	uid := lang.CodeUID("class", f.fr.Path, name)
	line := ts.Line(n)
	meta := map[string]any{"language": "java", "type_kind": typeKind(ts.Kind(n))}
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
	f.fr.AddEdge(parent, uid, graph.EdgeContains, line)
	// Field types first: method bodies and other classes read them.
	body := ts.Field(n, "body")
	cx := &ctx{from: uid, cls: c, locals: map[string]*lang.Chain{}}
	var fieldNames []string
	if ts.Kind(n) == "record_declaration" {
		if ps := ts.Field(n, "parameters"); ps != nil {
			for _, p := range ts.Children(ps) {
				if ts.Kind(&p) == "formal_parameter" {
					pn := ts.Text(ts.Field(&p, "name"), f.src)
					t := f.typeChain(ts.Field(&p, "type"), cx)
					c.fields[pn] = t
					fieldNames = append(fieldNames, pn)
					if t != nil {
						f.fr.Decl.SetFact(lang.FactAttr+name+"."+fieldPrefix+pn, t)
					}
					if !c.methods[pn] && pn != "" {
						// The implicit accessor of a record component.
						full := name + "." + pn
						muid := lang.CodeUID("function", f.fr.Path, full)
						f.fr.Decl.Names[full] = graph.KindMethod
						f.fr.AddNode(graph.Node{UID: muid, Kind: graph.KindMethod, Label: full, Line: ts.Line(&p), EndLine: ts.EndLine(&p), Metadata: map[string]any{"language": "java", "implicit": true}})
						f.fr.AddEdge(uid, muid, graph.EdgeContains, ts.Line(&p))
						f.setReturn(full, t)
					}
				}
			}
		}
	}
	f.fieldTypes(body, c, cx, &fieldNames)
	if len(fieldNames) > 0 {
		meta["fields"] = fieldNames
	}
	// Bases.
	var bases []*lang.Chain
	baseRefs := func(list *sitter.Node, typ string) {
		if list == nil {
			return
		}
		for _, t := range typeNodes(list) {
			ch := f.typeChain(&t, &ctx{cls: c.outer})
			if ch == nil {
				continue
			}
			ch.Inst = false
			bases = append(bases, ch)
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: typ, From: uid, Line: ts.Line(&t), Scope: ch.Scope, Name: ch.Name, Stub: qualified(ch)})
		}
	}
	iface := ts.Kind(n) == "interface_declaration"
	baseRefs(ts.Field(n, "superclass"), graph.EdgeInheritsFrom)
	implType := graph.EdgeImplements
	if iface {
		implType = graph.EdgeInheritsFrom
	}
	baseRefs(ts.Field(n, "interfaces"), implType)
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if k := n.NamedChild(i); k != nil && ts.Kind(k) == "extends_interfaces" {
			baseRefs(k, graph.EdgeInheritsFrom)
		}
	}
	if len(bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+name, bases...)
	}
	if body == nil {
		return
	}
	f.classBody(body, c, uid)
}

// qualified is the stub label of a class chain.
func qualified(c *lang.Chain) string {
	p := strings.TrimPrefix(c.Scope, "java:")
	if p == "" {
		return c.Name
	}
	return p + "." + c.Name
}

// typeNodes returns the types of a superclass, super_interfaces or
// extends_interfaces node.
func typeNodes(n *sitter.Node) []sitter.Node {
	var out []sitter.Node
	for _, k := range ts.Children(n) {
		if ts.Kind(&k) == "type_list" {
			out = append(out, ts.Children(&k)...)
		} else {
			out = append(out, k)
		}
	}
	return out
}

// fieldTypes records the declared types of a class body's fields.
func (f *file) fieldTypes(body *sitter.Node, c *class, cx *ctx, names *[]string) {
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch ts.Kind(&m) {
		case "field_declaration", "constant_declaration":
			t := f.typeChain(ts.Field(&m, "type"), cx)
			for _, d := range ts.Children(&m) {
				if ts.Kind(&d) != "variable_declarator" {
					continue
				}
				fn := ts.Text(ts.Field(&d, "name"), f.src)
				*names = append(*names, fn)
				ft := t
				if ts.Field(&d, "dimensions") != nil {
					ft = nil
				}
				c.fields[fn] = ft
				if ft != nil && c.named {
					f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+fieldPrefix+fn, ft)
				}
			}
		case "enum_constant":
			fn := ts.Text(ts.Field(&m, "name"), f.src)
			*names = append(*names, fn)
			if c.named {
				t := f.classChain(c)
				c.fields[fn] = t
				f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+fieldPrefix+fn, t)
			}
		case "enum_body_declarations":
			f.fieldTypes(&m, c, cx, names)
		}
	}
}

// setReturn records what a method returns; overloads that disagree give
// nothing.
func (f *file) setReturn(key string, t *lang.Chain) {
	k := lang.FactReturn + key
	enc := ""
	if t != nil {
		enc = lang.EncodeChains(t)
	}
	if old, ok := f.returns[k]; ok && old != enc {
		f.returns[k] = ""
		return
	}
	f.returns[k] = enc
}

// classBody emits a named class's members and walks the code in it.
func (f *file) classBody(body *sitter.Node, c *class, uid string) {
	for _, m := range ts.Children(body) {
		m := m
		switch ts.Kind(&m) {
		case "method_declaration", "annotation_type_element_declaration":
			f.method(&m, c, uid)
		case "constructor_declaration", "compact_constructor_declaration":
			cx := &ctx{from: uid, cls: c, tparams: typeParams(ts.Field(&m, "type_parameters"), f.src), locals: map[string]*lang.Chain{}}
			f.params(ts.Field(&m, "parameters"), cx)
			f.walk(ts.Field(&m, "body"), cx)
		case "enum_body_declarations":
			f.classBody(&m, c, uid)
		case "enum_constant":
			cx := &ctx{from: uid, cls: c, locals: map[string]*lang.Chain{}}
			if a := ts.Field(&m, "arguments"); a != nil {
				f.walk(a, cx)
			}
			if b := ts.Field(&m, "body"); b != nil {
				f.anonymous(b, f.classChain(c), cx)
			}
		default:
			if isTypeDecl(ts.Kind(&m)) {
				f.emit(&m, c, uid)
				continue
			}
			// Fields, initializer blocks: code of the class.
			f.walk(&m, &ctx{from: uid, cls: c, locals: map[string]*lang.Chain{}})
		}
	}
}

// method emits one method (overloads share its node) and walks its body.
func (f *file) method(m *sitter.Node, c *class, cuid string) {
	name := ts.Text(ts.Field(m, "name"), f.src)
	if name == "" {
		return
	}
	full := c.name + "." + name
	uid := lang.CodeUID("function", f.fr.Path, full)
	line := ts.Line(m)
	if _, seen := f.fr.Decl.Names[full]; !seen {
		f.fr.Decl.Names[full] = graph.KindMethod
		sp := c.spans[name]
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: sp[0], EndLine: sp[1], Metadata: map[string]any{"language": "java"}})
		f.fr.AddEdge(cuid, uid, graph.EdgeContains, line)
	}
	cx := &ctx{from: uid, cls: c, tparams: typeParams(ts.Field(m, "type_parameters"), f.src), locals: map[string]*lang.Chain{}}
	var rt *lang.Chain
	if t := ts.Field(m, "type"); t != nil && ts.Field(m, "dimensions") == nil {
		rt = f.typeChain(t, cx)
	}
	f.setReturn(full, rt)
	f.params(ts.Field(m, "parameters"), cx)
	f.walk(ts.Field(m, "body"), cx)
}

// params types a method's, constructor's or lambda's parameters.
func (f *file) params(ps *sitter.Node, cx *ctx) {
	if ps == nil {
		return
	}
	for _, p := range ts.Children(ps) {
		switch ts.Kind(&p) {
		case "formal_parameter":
			f.local(ts.Field(&p, "name"), f.declType(&p, cx), cx)
		case "spread_parameter":
			for _, k := range ts.Children(&p) {
				if ts.Kind(&k) == "variable_declarator" {
					cx.locals[ts.Text(ts.Field(&k, "name"), f.src)] = nil
				}
			}
		case "identifier":
			cx.locals[ts.Text(&p, f.src)] = nil
		}
	}
}

// declType is the declared type of a parameter or variable node (nil for
// arrays and unknown types).
func (f *file) declType(n *sitter.Node, cx *ctx) *lang.Chain {
	if ts.Field(n, "dimensions") != nil {
		return nil
	}
	return f.typeChain(ts.Field(n, "type"), cx)
}

func (f *file) local(name *sitter.Node, t *lang.Chain, cx *ctx) {
	if name == nil {
		return
	}
	cx.locals[ts.Text(name, f.src)] = t
}

// typeChain is the chain of an instance of the type node t; nil for
// primitives, arrays, type parameters and var.
func (f *file) typeChain(t *sitter.Node, cx *ctx) *lang.Chain {
	if t == nil {
		return nil
	}
	switch ts.Kind(t) {
	case "generic_type":
		for _, k := range ts.Children(t) {
			if ts.Kind(&k) == "type_identifier" || ts.Kind(&k) == "scoped_type_identifier" {
				return f.typeChain(&k, cx)
			}
		}
		return nil
	case "type_identifier", "identifier":
		name := ts.Text(t, f.src)
		if name == "var" {
			return nil
		}
		return f.resolveType(name, cx)
	case "scoped_type_identifier", "scoped_identifier", "field_access":
		return f.resolveDotted(stripGenerics(ts.Text(t, f.src)), cx)
	case "annotated_type":
		for _, k := range ts.Children(t) {
			if ts.Kind(&k) != "marker_annotation" && ts.Kind(&k) != "annotation" {
				return f.typeChain(&k, cx)
			}
		}
	}
	return nil
}

// stripGenerics drops type arguments and whitespace from a type's text.
func stripGenerics(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>':
			depth--
		case depth == 0 && r != ' ' && r != '\n' && r != '\t' && r != '\r':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolveDotted resolves A.B.C: a class A (then its nested B.C) or a
// package-qualified name.
func (f *file) resolveDotted(q string, cx *ctx) *lang.Chain {
	head, rest, _ := strings.Cut(q, ".")
	if head != "" && head[0] >= 'A' && head[0] <= 'Z' {
		if h := f.resolveType(head, cx); h != nil {
			return &lang.Chain{Scope: h.Scope, Name: h.Name + "." + rest, Inst: true}
		}
		return nil
	}
	pkg, cls, _ := f.splitQualified(q)
	return &lang.Chain{Scope: "java:" + pkg, Name: cls, Inst: true}
}

// javaLang are the java.lang classes a name falls back to before the
// package's own (an in-tree class of the name wins through its file).
var javaLang = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`Object String Integer Long Short Byte Character Boolean Double Float Number Math StrictMath
	System Class ClassLoader Thread Runnable Iterable Comparable CharSequence StringBuilder StringBuffer Enum Record Void
	Exception RuntimeException Error Throwable IllegalArgumentException IllegalStateException NullPointerException
	UnsupportedOperationException IndexOutOfBoundsException ArrayIndexOutOfBoundsException ClassCastException
	NumberFormatException ArithmeticException CloneNotSupportedException InterruptedException AssertionError
	ReflectiveOperationException ClassNotFoundException NoSuchMethodException NoSuchFieldException
	InstantiationException IllegalAccessException SecurityException StackOverflowError OutOfMemoryError
	Override Deprecated SuppressWarnings FunctionalInterface SafeVarargs AutoCloseable Cloneable Process Runtime`) {
		javaLang[n] = true
	}
}

// resolveType resolves a simple type name seen in cx (see the package
// doc for the order).
func (f *file) resolveType(name string, cx *ctx) *lang.Chain {
	if cx != nil {
		if cx.tparams[name] {
			return nil
		}
		for c := cx.cls; c != nil; c = c.outer {
			if c.tparams[name] {
				return nil
			}
			if !c.named {
				continue
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
	if f.env.Files[path.Join(f.dir, name+".java")] {
		return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
	}
	for _, p := range f.stars {
		if _, ok := f.fileExists(p, name); ok {
			return &lang.Chain{Scope: "java:" + p, Name: name, Inst: true}
		}
	}
	for _, c := range f.cstars {
		return &lang.Chain{Scope: c.Scope, Name: c.Name + "." + name, Inst: true}
	}
	if javaLang[name] {
		return &lang.Chain{Scope: "java:java.lang", Name: name, Inst: true}
	}
	return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
}

// isType reports whether a simple name names a class known to the file
// (not a package-scope fallback).
func (f *file) isType(name string, cx *ctx) bool {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	return f.resolveType(name, cx) != nil
}

// anonymous walks the body of an anonymous class (or enum constant body)
// extending base.
func (f *file) anonymous(body *sitter.Node, base *lang.Chain, cx *ctx) {
	c := &class{outer: cx.cls, methods: map[string]bool{}, fields: map[string]*lang.Chain{}, base: base}
	f.members(body, c, func(*sitter.Node) {})
	inner := &ctx{from: cx.from, cls: c, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
	var names []string
	f.fieldTypes(body, c, inner, &names)
	for _, m := range ts.Children(body) {
		m := m
		switch ts.Kind(&m) {
		case "method_declaration", "constructor_declaration":
			mc := &ctx{from: cx.from, cls: c, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
			if ts.Kind(&m) == "method_declaration" && ts.Field(&m, "dimensions") == nil {
				if c.returns == nil {
					c.returns = map[string]*lang.Chain{}
				}
				mn := ts.Text(ts.Field(&m, "name"), f.src)
				rt := f.typeChain(ts.Field(&m, "type"), mc)
				if old, dup := c.returns[mn]; dup && (old == nil || rt == nil || lang.EncodeChains(old) != lang.EncodeChains(rt)) {
					rt = nil
				}
				c.returns[mn] = rt
			}
			f.params(ts.Field(&m, "parameters"), mc)
			f.walk(ts.Field(&m, "body"), mc)
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration":
			f.localClass(&m, inner)
		default:
			f.walk(&m, inner)
		}
	}
}

// localClass walks a class declared inside a body (or inside an
// anonymous class): its code belongs to the enclosing node.
func (f *file) localClass(n *sitter.Node, cx *ctx) {
	var base *lang.Chain
	if s := ts.Field(n, "superclass"); s != nil {
		if ts := typeNodes(s); len(ts) > 0 {
			base = f.typeChain(&ts[0], cx)
		}
	}
	if b := ts.Field(n, "body"); b != nil {
		f.anonymous(b, base, cx)
	}
}

func cloneLocals(m map[string]*lang.Chain) map[string]*lang.Chain {
	out := make(map[string]*lang.Chain, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Symbol ids of the node kinds visit switches on.
var (
	kLocalVariableDeclaration      = language.IdForNodeKind("local_variable_declaration", true)
	kResource                      = language.IdForNodeKind("resource", true)
	kEnhancedForStatement          = language.IdForNodeKind("enhanced_for_statement", true)
	kCatchFormalParameter          = language.IdForNodeKind("catch_formal_parameter", true)
	kLambdaExpression              = language.IdForNodeKind("lambda_expression", true)
	kInstanceofExpression          = language.IdForNodeKind("instanceof_expression", true)
	kTypePattern                   = language.IdForNodeKind("type_pattern", true)
	kRecordPattern                 = language.IdForNodeKind("record_pattern", true)
	kClassDeclaration              = language.IdForNodeKind("class_declaration", true)
	kInterfaceDeclaration          = language.IdForNodeKind("interface_declaration", true)
	kEnumDeclaration               = language.IdForNodeKind("enum_declaration", true)
	kRecordDeclaration             = language.IdForNodeKind("record_declaration", true)
	kMethodInvocation              = language.IdForNodeKind("method_invocation", true)
	kObjectCreationExpression      = language.IdForNodeKind("object_creation_expression", true)
	kMethodReference               = language.IdForNodeKind("method_reference", true)
	kExplicitConstructorInvocation = language.IdForNodeKind("explicit_constructor_invocation", true)
)

// walk visits the code under n in document order: declarations type
// locals, calls become references.
func (f *file) walk(n *sitter.Node, cx *ctx) {
	if n == nil {
		return
	}
	ts.WalkSym(n, func(k *sitter.Node, sym uint16) bool { return f.visit(k, sym, cx) })
}

// visit handles one node of walk; false when it walked the node's
// descendants itself (or they hold no code).
func (f *file) visit(n *sitter.Node, sym uint16, cx *ctx) bool {
	switch sym {
	case kLocalVariableDeclaration, kResource:
		t := f.declType(n, cx)
		isVar := false
		if tn := ts.Field(n, "type"); tn != nil && ts.Text(tn, f.src) == "var" {
			isVar = true
		}
		if ts.Kind(n) == "resource" {
			if v := ts.Field(n, "value"); v != nil {
				f.walk(v, cx)
				if isVar {
					t = f.exprChain(v, cx)
				}
			}
			f.local(ts.Field(n, "name"), t, cx)
			return false
		}
		for _, d := range ts.Children(n) {
			if ts.Kind(&d) != "variable_declarator" {
				continue
			}
			v := ts.Field(&d, "value")
			if v != nil {
				f.walk(v, cx)
			}
			dt := t
			if isVar && v != nil {
				dt = f.exprChain(v, cx)
			}
			if ts.Field(&d, "dimensions") != nil {
				dt = nil
			}
			f.local(ts.Field(&d, "name"), dt, cx)
		}
		return false
	case kEnhancedForStatement:
		if v := ts.Field(n, "value"); v != nil {
			f.walk(v, cx)
		}
		t := f.declType(n, cx)
		if tn := ts.Field(n, "type"); tn != nil && ts.Text(tn, f.src) == "var" {
			t = nil
		}
		f.local(ts.Field(n, "name"), t, cx)
		f.walk(ts.Field(n, "body"), cx)
		return false
	case kCatchFormalParameter:
		var t *lang.Chain
		for _, k := range ts.Children(n) {
			if ts.Kind(&k) == "catch_type" {
				if kids := ts.Children(&k); len(kids) == 1 {
					t = f.typeChain(&kids[0], cx)
				}
			}
		}
		f.local(ts.Field(n, "name"), t, cx)
		return false
	case kLambdaExpression:
		lc := &ctx{from: cx.from, cls: cx.cls, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
		if p := ts.Field(n, "parameters"); p != nil {
			if ts.Kind(p) == "identifier" {
				lc.locals[ts.Text(p, f.src)] = nil
			} else {
				f.params(p, lc)
			}
		}
		f.walk(ts.Field(n, "body"), lc)
		return false
	case kInstanceofExpression:
		f.walk(ts.Field(n, "left"), cx)
		if nm := ts.Field(n, "name"); nm != nil {
			f.local(nm, f.typeChain(ts.Field(n, "right"), cx), cx)
		}
		if p := ts.Field(n, "pattern"); p != nil {
			f.patterns(p, cx)
		}
		return false
	case kTypePattern, kRecordPattern:
		f.patterns(n, cx)
		return false
	case kClassDeclaration, kInterfaceDeclaration, kEnumDeclaration, kRecordDeclaration:
		f.localClass(n, cx)
		return false
	case kMethodInvocation:
		f.call(n, cx)
	case kObjectCreationExpression:
		f.newExpr(n, cx)
		return false
	case kMethodReference:
		f.methodRef(n, cx)
	case kExplicitConstructorInvocation:
		f.ctorCall(n, cx)
	}
	return true
}

// patterns types the variables of a type or record pattern.
func (f *file) patterns(n *sitter.Node, cx *ctx) {
	if ts.Kind(n) == "type_pattern" {
		kids := ts.Children(n)
		if len(kids) >= 2 {
			f.local(&kids[len(kids)-1], f.typeChain(&kids[0], cx), cx)
		}
		return
	}
	for _, k := range ts.Children(n) {
		if ts.Kind(&k) == "type_pattern" || ts.Kind(&k) == "record_pattern" || ts.Kind(&k) == "record_pattern_body" {
			f.patterns(&k, cx)
		}
	}
}

// ref appends a call reference from the walk's node.
func (f *file) ref(cx *ctx, line int, recv *lang.Chain, name string) {
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name, Stub: "*." + name})
}

// classRef appends a call of a class (a constructor).
func (f *file) classRef(cx *ctx, line int, t *lang.Chain) {
	if t == nil {
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: t.Scope, Name: t.Name})
}

// thisChain is what this names in cx: the innermost class (an anonymous
// class's base); nil when unknown.
func (f *file) thisChain(c *class) *lang.Chain {
	if c == nil {
		return nil
	}
	if c.named {
		return f.classChain(c)
	}
	if c.base != nil {
		b := *c.base
		b.Inst = true
		return &b
	}
	return nil
}

// ownerOf finds the receiver of an unqualified call of m: the innermost
// enclosing class declaring m in the file, a static import, else the
// innermost class (through its bases). skip is true when m is a method of
// an anonymous or local class (no node to call).
func (f *file) ownerOf(m string, cx *ctx) (recv *lang.Chain, skip bool) {
	for c := cx.cls; c != nil; c = c.outer {
		if c.methods[m] {
			if !c.named {
				return nil, true
			}
			return f.classChain(c), false
		}
	}
	if s, ok := f.statics[m]; ok {
		return s, false
	}
	inner := cx.cls
	if inner != nil && !inner.named && inner.base == nil {
		for inner != nil && !inner.named && inner.base == nil {
			inner = inner.outer
		}
	}
	if inner != nil && inner.named && !inner.hasBase && len(f.sstars) > 0 {
		return f.sstars[0], false
	}
	return f.thisChain(inner), false
}

// call handles a method invocation.
func (f *file) call(n *sitter.Node, cx *ctx) {
	nameNode := ts.Field(n, "name")
	name := ts.Text(nameNode, f.src)
	if name == "" {
		return
	}
	line := ts.Line(nameNode)
	obj := ts.Field(n, "object")
	superCall := false
	for i := uint(0); i < n.ChildCount(); i++ {
		if k := n.Child(i); k != nil && ts.Kind(k) == "super" && (obj == nil || k.StartByte() != obj.StartByte()) {
			superCall = true // X.super.m()
		}
	}
	if obj == nil {
		recv, skip := f.ownerOf(name, cx)
		if skip {
			return
		}
		f.ref(cx, line, recv, name)
		return
	}
	if superCall {
		f.ref(cx, line, nil, name)
		return
	}
	var recv *lang.Chain
	switch ts.Kind(obj) {
	case "super":
		if cx.cls != nil && cx.cls.named {
			recv = f.classChain(cx.cls)
			recv.Super = true
		} else if cx.cls != nil {
			recv = f.thisChain(cx.cls)
		}
	case "this":
		if cx.cls != nil && !cx.cls.named && cx.cls.methods[name] {
			return
		}
		recv = f.thisChain(cx.cls)
	default:
		recv = f.exprChain(obj, cx)
	}
	f.ref(cx, line, recv, name)
}

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *file) exprChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if n == nil {
		return nil
	}
	switch ts.Kind(n) {
	case "identifier", "type_identifier":
		name := ts.Text(n, f.src)
		if t, ok := cx.locals[name]; ok {
			return copyChain(t)
		}
		for c := cx.cls; c != nil; c = c.outer {
			if t, ok := c.fields[name]; ok {
				return copyChain(t)
			}
		}
		if f.isType(name, cx) {
			t := f.resolveType(name, cx)
			t.Inst = false
			return t
		}
		if this := f.thisChain(cx.cls); this != nil && this.Inst {
			return this.Then(fieldPrefix + name)
		}
		return nil
	case "this":
		return f.thisChain(cx.cls)
	case "parenthesized_expression":
		if kids := ts.Children(n); len(kids) == 1 {
			return f.exprChain(&kids[0], cx)
		}
	case "cast_expression":
		return f.typeChain(ts.Field(n, "type"), cx)
	case "object_creation_expression":
		return f.typeChain(ts.Field(n, "type"), cx)
	case "field_access":
		fld := ts.Field(n, "field")
		obj := ts.Field(n, "object")
		if fld == nil || obj == nil {
			return nil
		}
		fname := ts.Text(fld, f.src)
		if ts.Kind(fld) == "this" { // Outer.this
			return f.typeChain(obj, cx)
		}
		if ts.Kind(obj) == "super" {
			return nil
		}
		if oc := f.exprChain(obj, cx); oc != nil {
			if !oc.Inst && len(oc.Steps) == 0 {
				// A nested class, or a static field of a class.
				if _, ok := f.classes[oc.Name+"."+fname]; ok && oc.Scope == f.scope {
					return &lang.Chain{Scope: oc.Scope, Name: oc.Name + "." + fname}
				}
				if fname != "" && fname[0] >= 'A' && fname[0] <= 'Z' && !isConstant(fname) {
					return &lang.Chain{Scope: oc.Scope, Name: oc.Name + "." + fname}
				}
			}
			return oc.Then(fieldPrefix + fname)
		}
		// A package-qualified class.
		q := stripGenerics(ts.Text(n, f.src))
		if fname != "" && fname[0] >= 'A' && fname[0] <= 'Z' && !strings.Contains(strings.SplitN(q, ".", 2)[0], "(") {
			if t := f.resolveDotted(q, cx); t != nil {
				t.Inst = false
				return t
			}
		}
	case "scoped_identifier", "scoped_type_identifier":
		if t := f.resolveDotted(stripGenerics(ts.Text(n, f.src)), cx); t != nil {
			t.Inst = false
			return t
		}
	case "method_invocation":
		name := ts.Text(ts.Field(n, "name"), f.src)
		obj := ts.Field(n, "object")
		var recv *lang.Chain
		if obj == nil {
			var skip bool
			if recv, skip = f.ownerOf(name, cx); skip {
				for c := cx.cls; c != nil; c = c.outer {
					if c.methods[name] {
						return copyChain(c.returns[name])
					}
				}
				return nil
			}
		} else {
			switch ts.Kind(obj) {
			case "super":
				if cx.cls != nil && cx.cls.named {
					recv = f.classChain(cx.cls)
					recv.Super = true
				}
			default:
				recv = f.exprChain(obj, cx)
			}
		}
		if recv == nil || recv.Super {
			return nil
		}
		return recv.Then(name).Then(lang.CallStep)
	}
	return nil
}

// isConstant reports whether a name is written as a constant (FOO_BAR).
func isConstant(s string) bool {
	return strings.ToUpper(s) == s && len(s) > 1
}

func copyChain(c *lang.Chain) *lang.Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append([]string(nil), c.Steps...)
	return &n
}

// newExpr handles new X(…) and new X(…) {…}.
func (f *file) newExpr(n *sitter.Node, cx *ctx) {
	t := f.typeChain(ts.Field(n, "type"), cx)
	f.classRef(cx, ts.Line(n), t)
	for i := uint(0); i < n.NamedChildCount(); i++ {
		k := n.NamedChild(i)
		switch ts.Kind(k) {
		case "class_body":
			f.anonymous(k, t, cx)
		case "argument_list":
			f.walk(k, cx)
		default:
			if k.StartByte() < ts.Field(n, "type").StartByte() {
				f.walk(k, cx) // outer.new Inner()
			}
		}
	}
}

// methodRef handles X::new, X::m, expr::m, this::m and super::m.
func (f *file) methodRef(n *sitter.Node, cx *ctx) {
	if n.NamedChildCount() == 0 {
		return
	}
	first := n.NamedChild(0)
	last := n.Child(n.ChildCount() - 1)
	line := ts.Line(n)
	if last == nil {
		return
	}
	if ts.Kind(last) == "new" {
		t := f.typeChain(first, cx)
		if ts.Kind(first) == "field_access" || ts.Kind(first) == "scoped_identifier" {
			t = f.resolveDotted(stripGenerics(ts.Text(first, f.src)), cx)
		}
		f.classRef(cx, line, t)
		return
	}
	name := ts.Text(last, f.src)
	var recv *lang.Chain
	switch ts.Kind(first) {
	case "super":
		if cx.cls != nil && cx.cls.named {
			recv = f.classChain(cx.cls)
			recv.Super = true
		}
	case "this":
		recv = f.thisChain(cx.cls)
	case "generic_type", "scoped_type_identifier", "array_type":
		recv = f.typeChain(first, cx)
	default:
		recv = f.exprChain(first, cx)
	}
	f.ref(cx, line, recv, name)
}

// ctorCall handles this(…) and super(…) in a constructor.
func (f *file) ctorCall(n *sitter.Node, cx *ctx) {
	c := ts.Field(n, "constructor")
	if c == nil || ts.Kind(c) != "super" || cx.cls == nil || !cx.cls.named {
		return
	}
	bs := f.fr.Decl.Facts[lang.FactBase+cx.cls.name]
	if bs == "" {
		return
	}
	// The superclass is the first base of a class that extends one.
	if cs := lang.DecodeChains(bs); len(cs) > 0 && f.extendsClass(cx.cls) {
		f.classRef(cx, ts.Line(n), cs[0])
	}
}

// extendsClass reports whether c's declaration has an extends clause
// (its first base is then the superclass).
func (f *file) extendsClass(c *class) bool {
	return c.hasBase && c.superclass
}
