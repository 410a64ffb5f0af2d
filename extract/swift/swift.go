package swift

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/grammar/swift"
	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// language is the Swift grammar, loaded once.
var language = sitter.NewLanguage(swift.Language())

// maxTypeNesting is how deep type declarations nest before the deeper
// ones are left out: a nested type's name holds every enclosing name, so
// without a bound n nested types cost n² (see package java).
const maxTypeNesting = 64

// typeDecl is a type of the file (class, struct, enum, actor, protocol)
// or the type an extension extends.
type typeDecl struct {
	name    string // Outer.Inner
	outer   *typeDecl
	kind    string // class, struct, enum, actor, protocol, extension
	here    bool   // declared in this file: it has a node here
	methods map[string]bool
	props   map[string]*lang.Chain // property → its type (nil: unknown)
	tparams map[string]bool
	bases   []*lang.Chain // the inheritance clauses' entries, in order
}

// file is the state of one extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	scope   string
	fileUID string
	types   map[string]*typeDecl // by name (Outer.Inner)
	funcs   map[string]bool      // free functions of the file
	globals map[string]*lang.Chain
	returns map[string]string // FactReturn key → encoded chain, "" on disagreement
	nodes   map[string]bool   // function uids emitted (overloads share one)
	modules map[string]bool   // in-tree modules the file imports
}

// ctx is where code is walked: the node its calls come from, the type
// self names, and the locals in scope.
type ctx struct {
	from    string
	cls     *typeDecl
	tparams map[string]bool
	locals  map[string]*lang.Chain // nil value: a local of unknown type
}

func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "swift"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	if env == nil {
		env = &lang.Env{}
	}
	mod, _ := moduleOf(fr.Path)
	f := &file{fr: fr, env: env, src: src, scope: "swift:" + mod, fileUID: fileUID,
		types: map[string]*typeDecl{}, funcs: map[string]bool{}, globals: map[string]*lang.Chain{}, returns: map[string]string{}, nodes: map[string]bool{}, modules: map[string]bool{}}
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	kids := ts.Children(root)
	// Declarations first, so that bodies see every type of the file.
	for i := range kids {
		switch kids[i].Kind() {
		case "import_declaration":
			f.importDecl(&kids[i])
		case "class_declaration", "protocol_declaration":
			f.declare(&kids[i], nil, 0)
		case "function_declaration":
			if name := f.declName(&kids[i]); name != "" {
				f.funcs[name] = true
				fr.Decl.Names[name] = graph.KindFunction
			}
		}
	}
	top := &ctx{from: fileUID, locals: map[string]*lang.Chain{}}
	for i := range kids {
		if kids[i].Kind() == "property_declaration" {
			f.globalVars(&kids[i], top)
		}
	}
	for i := range kids {
		k := &kids[i]
		switch k.Kind() {
		case "import_declaration", "property_declaration":
		case "class_declaration", "protocol_declaration":
			f.emit(k, nil, fileUID, 0)
		case "function_declaration":
			f.function(k, nil, fileUID)
		default:
			// Top-level statements (main.swift, scripts).
			f.walk(k, top)
		}
	}
	for _, t := range f.types {
		if t.here && len(t.bases) > 0 {
			fr.Decl.SetFact(lang.FactBase+t.name, t.bases...)
		}
	}
	for k, v := range f.returns {
		if v != "" {
			if cs := lang.DecodeChains(v); len(cs) == 1 {
				fr.Decl.SetFact(k, cs[0])
			}
		}
	}
}

// declName is the text of a declaration's name field, "" when absent.
func (f *file) declName(n *sitter.Node) string {
	return ts.Text(n.ChildByFieldName("name"), f.src)
}

// importDecl handles import M and import kind M.Decl: an imports edge to
// the folder of an in-tree module, whose names the file then sees, else
// to the module's external stub.
func (f *file) importDecl(n *sitter.Node) {
	var mod string
	for _, c := range ts.Children(n) {
		if c.Kind() == "identifier" {
			if kids := ts.Children(&c); len(kids) > 0 {
				mod = ts.Text(&kids[0], f.src)
			}
		}
	}
	if mod == "" {
		return
	}
	line := ts.Line(n)
	self, _ := moduleOf(f.fr.Path)
	if mod == self && self != "" {
		return
	}
	if dir, ok := modules(f.env)[mod]; ok {
		f.fr.Decl.AddStar("swift:" + mod)
		f.modules[mod] = true
		f.fr.AddEdge(f.fileUID, lang.ClampUID("folder:"+lang.UIDPart(dir)), graph.EdgeImports, line)
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: missingScope + mod})
	uid := lang.ExternalUID(mod)
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindExternal, Label: lang.CleanString(mod), Metadata: map[string]any{"stub": true}})
	f.fr.AddEdge(f.fileUID, uid, graph.EdgeImports, line)
}

// declKind is the kind of a class_declaration (class, struct, enum,
// actor, extension) or "protocol".
func (f *file) declKind(n *sitter.Node) string {
	if n.Kind() == "protocol_declaration" {
		return "protocol"
	}
	if k := n.ChildByFieldName("declaration_kind"); k != nil {
		return k.Kind()
	}
	return "class"
}

// typeName is the declared name of a type declaration, or the extended
// type of an extension (dotted, without generic arguments).
func (f *file) typeName(n *sitter.Node) string {
	nm := n.ChildByFieldName("name")
	if nm == nil {
		return ""
	}
	if nm.Kind() == "user_type" {
		return userTypeName(nm, f.src)
	}
	return ts.Text(nm, f.src)
}

// userTypeName is the dotted name of a user_type (A.B.C), generic
// arguments left out.
func userTypeName(n *sitter.Node, src []byte) string {
	var parts []string
	for _, k := range ts.Children(n) {
		if k.Kind() == "type_identifier" {
			parts = append(parts, ts.Text(&k, src))
		}
	}
	return strings.Join(parts, ".")
}

// declare records a type declaration (or an extension) and its nested
// types, to maxTypeNesting levels.
func (f *file) declare(n *sitter.Node, outer *typeDecl, depth int) {
	if depth >= maxTypeNesting {
		return
	}
	kind := f.declKind(n)
	name := f.typeName(n)
	if name == "" {
		return
	}
	var t *typeDecl
	if kind == "extension" {
		// An extension of a type of the file adds to it; of another
		// type, stands for it (no node).
		if outer != nil {
			name = outer.name + "." + name
		}
		if r := f.resolveType(strings.SplitN(name, ".", 2)[0], &ctx{cls: outer}); r != nil && r.Scope == f.scope {
			if _, rest, dotted := strings.Cut(name, "."); dotted {
				name = r.Name + "." + rest
			} else {
				name = r.Name
			}
		}
		t = f.types[name]
		if t == nil {
			t = &typeDecl{name: name, kind: kind, methods: map[string]bool{}, props: map[string]*lang.Chain{}}
			f.types[name] = t
		}
	} else {
		if outer != nil {
			name = outer.name + "." + name
		}
		t = f.types[name]
		if t == nil || !t.here {
			old := t
			t = &typeDecl{name: name, outer: outer, kind: kind, here: true, methods: map[string]bool{}, props: map[string]*lang.Chain{}}
			if old != nil { // an extension read first
				t.methods, t.props = old.methods, old.props
			}
			f.types[name] = t
		}
		t.tparams = typeParams(n, f.src)
		f.fr.Decl.Names[name] = graph.KindClass
		if kind == "protocol" {
			f.fr.Decl.SetFact(lang.FactSwiftProtocol+name, &lang.Chain{Scope: f.scope, Name: name})
		}
	}
	body := n.ChildByFieldName("body")
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_declaration", "protocol_function_declaration":
			if mn := f.declName(&m); mn != "" {
				t.methods[mn] = true
			}
		case "subscript_declaration":
			t.methods["subscript"] = true
		case "property_declaration", "protocol_property_declaration":
			for _, pn := range f.boundNames(&m) {
				if _, ok := t.props[pn]; !ok {
					t.props[pn] = nil
				}
			}
		case "enum_entry":
			for i := uint(0); i < m.ChildCount(); i++ {
				if c := m.Child(i); c != nil && m.FieldNameForChild(uint32(i)) == "name" {
					t.props[ts.Text(c, f.src)] = &lang.Chain{Scope: f.scope, Name: t.name, Inst: true}
				}
			}
		case "class_declaration", "protocol_declaration":
			f.declare(&m, t, depth+1)
		}
	}
}

// typeParams returns the names of a declaration's generic parameters.
func typeParams(n *sitter.Node, src []byte) map[string]bool {
	var out map[string]bool
	for _, k := range ts.Children(n) {
		if k.Kind() != "type_parameters" {
			continue
		}
		for _, p := range ts.Children(&k) {
			if p.Kind() != "type_parameter" {
				continue
			}
			for _, c := range ts.Children(&p) {
				if c.Kind() == "type_identifier" {
					if out == nil {
						out = map[string]bool{}
					}
					out[ts.Text(&c, src)] = true
					break
				}
			}
		}
	}
	return out
}

// boundNames returns the names a property declaration binds.
func (f *file) boundNames(n *sitter.Node) []string {
	var out []string
	for _, c := range ts.Children(n) {
		if c.Kind() == "pattern" {
			if b := c.ChildByFieldName("bound_identifier"); b != nil {
				out = append(out, ts.Text(b, f.src))
			}
		}
	}
	return out
}

// binding is one name a property declaration binds, with its declared
// type and its initial value.
type binding struct {
	name  string
	line  int
	typ   *sitter.Node
	value *sitter.Node
	other []sitter.Node // computed bodies, observers: code to walk
}

// bindings splits a property declaration into its bindings.
func (f *file) bindings(n *sitter.Node) []binding {
	var out []binding
	for i := uint(0); i < n.ChildCount(); i++ {
		c := n.Child(i)
		if c == nil || !c.IsNamed() {
			continue
		}
		switch c.Kind() {
		case "pattern":
			b := binding{line: ts.Line(c)}
			if id := c.ChildByFieldName("bound_identifier"); id != nil {
				b.name = ts.Text(id, f.src)
			}
			out = append(out, b)
		case "type_annotation":
			if len(out) > 0 {
				out[len(out)-1].typ = typeOfAnnotation(c)
			}
		case "modifiers", "value_binding_pattern", "attribute":
		default:
			if len(out) == 0 {
				continue
			}
			b := &out[len(out)-1]
			if b.value == nil && n.FieldNameForChild(uint32(i)) == "value" {
				b.value = c
			} else {
				b.other = append(b.other, *c)
			}
		}
	}
	return out
}

// typeOfAnnotation is the type node of a type_annotation.
func typeOfAnnotation(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		if c.Kind() != "type_modifiers" {
			return c
		}
	}
	return nil
}

// globalVars records the types of top-level variables and walks their
// initial values from the file.
func (f *file) globalVars(n *sitter.Node, cx *ctx) {
	for _, b := range f.bindings(n) {
		var t *lang.Chain
		if b.typ != nil {
			t = f.typeChain(b.typ, cx)
		} else if b.value != nil {
			t = f.exprChain(b.value, cx)
		}
		if b.value != nil {
			f.walk(b.value, cx)
		}
		for i := range b.other {
			f.walk(&b.other[i], cx)
		}
		if b.name == "" {
			continue
		}
		f.globals[b.name] = t
		if t != nil {
			f.fr.Decl.SetFact(lang.FactVar+b.name, t)
		}
	}
}

// classUID is the uid of a type declared in the file.
func (f *file) classUID(t *typeDecl) string { return lang.CodeUID("class", f.fr.Path, t.name) }

// emit adds the nodes, edges and facts of a type declaration or an
// extension and walks its members' code.
func (f *file) emit(n *sitter.Node, outer *typeDecl, parent string, depth int) {
	if depth >= maxTypeNesting {
		return
	}
	kind := f.declKind(n)
	name := f.typeName(n)
	if name == "" {
		return
	}
	if outer != nil {
		name = outer.name + "." + name
	}
	if kind == "extension" {
		if r := f.resolveType(strings.SplitN(name, ".", 2)[0], &ctx{cls: outer}); r != nil && r.Scope == f.scope {
			if _, rest, dotted := strings.Cut(name, "."); dotted {
				name = r.Name + "." + rest
			} else {
				name = r.Name
			}
		}
	}
	t := f.types[name]
	if t == nil {
		return
	}
	line := ts.Line(n)
	var uid string // the node members are contained by; "" for another file's type
	if kind != "extension" {
		uid = f.classUID(t)
		meta := map[string]any{"language": "swift", "type_kind": kind}
		if props := f.propNames(n); len(props) > 0 {
			meta["properties"] = props
		}
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
		f.fr.AddEdge(parent, uid, graph.EdgeContains, line)
	} else if t.here {
		uid = f.classUID(t)
	}
	cx := &ctx{from: uid, cls: t, tparams: t.tparams, locals: map[string]*lang.Chain{}}
	if uid == "" {
		cx.from = f.fileUID
	}
	f.bases(n, t, kind, uid)
	body := n.ChildByFieldName("body")
	if body == nil {
		return
	}
	// Property types first: method bodies read them.
	for _, m := range ts.Children(body) {
		if m.Kind() == "property_declaration" || m.Kind() == "protocol_property_declaration" {
			for _, b := range f.bindings(&m) {
				if b.name == "" {
					continue
				}
				var pt *lang.Chain
				if b.typ != nil {
					pt = f.typeChain(b.typ, cx)
				} else if b.value != nil {
					pt = f.exprChain(b.value, cx)
				}
				if pt != nil {
					t.props[b.name] = pt
					f.fr.Decl.SetFact(lang.FactAttr+t.name+"."+b.name, pt)
				}
			}
		}
		if m.Kind() == "enum_entry" {
			for pn, pt := range t.props {
				if pt != nil && pt.Name == t.name {
					f.fr.Decl.SetFact(lang.FactAttr+t.name+"."+pn, pt)
				}
			}
		}
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_declaration", "protocol_function_declaration":
			f.function(&m, t, uid)
		case "subscript_declaration":
			f.member(&m, t, uid, "subscript")
		case "init_declaration", "deinit_declaration":
			mc := &ctx{from: cx.from, cls: t, tparams: t.tparams, locals: map[string]*lang.Chain{}}
			f.params(&m, mc)
			f.walk(m.ChildByFieldName("body"), mc)
		case "class_declaration", "protocol_declaration":
			p := uid
			if p == "" {
				p = f.fileUID
			}
			f.emit(&m, t, p, depth+1)
		case "property_declaration":
			for _, b := range f.bindings(&m) {
				if b.value != nil {
					f.walk(b.value, cx)
				}
				for i := range b.other {
					f.walk(&b.other[i], &ctx{from: cx.from, cls: t, tparams: t.tparams, locals: map[string]*lang.Chain{}})
				}
			}
		default:
			f.walk(&m, cx)
		}
	}
}

// propNames lists the properties a type body declares, in order.
func (f *file) propNames(n *sitter.Node) []string {
	body := n.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	var out []string
	for _, m := range ts.Children(body) {
		if m.Kind() == "property_declaration" || m.Kind() == "protocol_property_declaration" {
			out = append(out, f.boundNames(&m)...)
		}
	}
	return out
}

// rawTypes are the types an enum's first inheritance entry may name as
// its raw value type: no base.
var rawTypes = map[string]bool{"String": true, "Int": true, "Int8": true, "Int16": true, "Int32": true, "Int64": true,
	"UInt": true, "UInt8": true, "UInt16": true, "UInt32": true, "UInt64": true, "Double": true, "Float": true, "Character": true}

// bases reads the inheritance clause: inherits_from and implements
// references from uid (none for an extension of another file's type) and
// the type's bases fact.
func (f *file) bases(n *sitter.Node, t *typeDecl, kind, uid string) {
	first := true
	for _, k := range ts.Children(n) {
		if k.Kind() != "inheritance_specifier" {
			continue
		}
		tn := k.ChildByFieldName("inherits_from")
		isFirst := first
		first = false
		if tn == nil || tn.Kind() != "user_type" {
			continue
		}
		tname := userTypeName(tn, f.src)
		if tname == "AnyObject" || (kind == "enum" && isFirst && rawTypes[tname]) {
			continue
		}
		ch := f.typeChain(tn, &ctx{cls: t.outer, tparams: t.tparams})
		if ch == nil {
			continue
		}
		ch.Inst = false
		if uid == "" {
			continue // another file's type: its own file says its bases
		}
		t.bases = append(t.bases, ch)
		typ := graph.EdgeImplements
		switch {
		case kind == "protocol":
			typ = graph.EdgeInheritsFrom
		case kind == "class" && isFirst:
			typ = lang.RefSwiftBase
		}
		f.fr.Refs = append(f.fr.Refs, typeRef(typ, uid, ts.Line(tn), ch, ch.Name))
	}
}

// setReturn records what a function returns; overloads that disagree
// give nothing.
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

// function emits a free function (t nil) or a method of t and walks its
// body.
func (f *file) function(n *sitter.Node, t *typeDecl, cuid string) {
	name := f.declName(n)
	if name == "" {
		return
	}
	f.member(n, t, cuid, name)
}

// member emits a function, method or subscript named name and walks its
// body; overloads share one node, with the lines of the first.
func (f *file) member(n *sitter.Node, t *typeDecl, cuid, name string) {
	full, kind := name, graph.KindFunction
	var tparams map[string]bool
	if t != nil {
		full, kind, tparams = t.name+"."+name, graph.KindMethod, t.tparams
	}
	uid := lang.CodeUID("function", f.fr.Path, full)
	line := ts.Line(n)
	if !f.nodes[uid] {
		f.nodes[uid] = true
		f.fr.Decl.Names[full] = kind
		meta := map[string]any{"language": "swift"}
		if n.Kind() == "protocol_function_declaration" {
			meta["interface"] = true
		}
		f.fr.AddNode(graph.Node{UID: uid, Kind: kind, Label: full, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
		switch {
		case t == nil:
			f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, line)
		case cuid != "":
			f.fr.AddEdge(cuid, uid, graph.EdgeContains, line)
		default:
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefContainedBy, From: uid, Line: line, Scope: f.scope, Name: t.name})
		}
	}
	if fp := typeParams(n, f.src); fp != nil {
		merged := map[string]bool{}
		for k := range tparams {
			merged[k] = true
		}
		for k := range fp {
			merged[k] = true
		}
		tparams = merged
	}
	cx := &ctx{from: uid, cls: t, tparams: tparams, locals: map[string]*lang.Chain{}}
	f.setReturn(full, f.typeChain(returnType(n), cx))
	f.params(n, cx)
	f.walk(n.ChildByFieldName("body"), cx)
	for _, c := range ts.Children(n) {
		if c.Kind() == "computed_property" {
			f.walk(&c, cx)
		}
	}
}

// returnType is the declared result type of a function or subscript: the
// node after "->".
func returnType(n *sitter.Node) *sitter.Node {
	arrow := false
	for i := uint(0); i < n.ChildCount(); i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		if !c.IsNamed() {
			arrow = arrow || c.Kind() == "->"
			continue
		}
		if arrow {
			return c
		}
	}
	return nil
}

// params types a function's, initializer's or closure's parameters.
func (f *file) params(n *sitter.Node, cx *ctx) {
	for _, p := range ts.Children(n) {
		switch p.Kind() {
		case "parameter", "lambda_parameter":
			f.param(&p, cx)
		case "lambda_function_type_parameters":
			f.params(&p, cx)
		case "simple_identifier":
			if n.Kind() == "lambda_function_type" {
				cx.locals[ts.Text(&p, f.src)] = nil
			}
		}
	}
}

// param types one parameter: its internal name (the last name before the
// type) and its declared type.
func (f *file) param(p *sitter.Node, cx *ctx) {
	var name string
	var typ *sitter.Node
	for i := uint(0); i < p.ChildCount(); i++ {
		c := p.Child(i)
		if c == nil || !c.IsNamed() {
			continue
		}
		switch {
		case c.Kind() == "simple_identifier" && p.FieldNameForChild(uint32(i)) == "name":
			name = ts.Text(c, f.src)
		case c.Kind() == "simple_identifier", c.Kind() == "parameter_modifiers", c.Kind() == "attribute":
		default:
			if typ == nil {
				typ = c
			}
		}
	}
	if name == "" {
		return
	}
	cx.locals[name] = f.typeChain(typ, cx)
}

// typeChain is the chain of an instance of the type node t (T, T?, T!,
// M.T, T<U>, any P, some P, (T)); nil for tuples, functions, collections and generic
// parameters.
func (f *file) typeChain(t *sitter.Node, cx *ctx) *lang.Chain {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case "user_type":
		name := userTypeName(t, f.src)
		if name == "" || name == "Self" {
			if name == "Self" && cx != nil && cx.cls != nil {
				return f.classChain(cx.cls)
			}
			return nil
		}
		head, rest, dotted := strings.Cut(name, ".")
		h := f.resolveType(head, cx)
		if h == nil {
			return nil
		}
		if dotted {
			h.Name += "." + rest
		}
		return h
	case "optional_type", "implicitly_unwrapped_type":
		if w := t.ChildByFieldName("wrapped"); w != nil {
			return f.typeChain(w, cx)
		}
		for _, c := range ts.Children(t) {
			return f.typeChain(&c, cx)
		}
	case "type_identifier":
		return f.resolveType(ts.Text(t, f.src), cx)
	case "existential_type", "opaque_type", "tuple_type", "tuple_type_item":
		// any P, some P, (P): a one-element tuple type is its element.
		if t.NamedChildCount() == 1 {
			return f.typeChain(t.NamedChild(0), cx)
		}
		if t.Kind() == "tuple_type_item" {
			return f.typeChain(t.ChildByFieldName("element"), cx)
		}
	}
	return nil
}

// classChain is the chain of an instance of the file's type t.
func (f *file) classChain(t *typeDecl) *lang.Chain {
	return &lang.Chain{Scope: f.scope, Name: t.name, Inst: true}
}

// resolveType resolves a simple type name seen in cx: a generic
// parameter is unknown (nil); a nested type of an enclosing type, a type
// of the file, else the module's name (which the module's other files,
// or an imported in-tree module, declare).
func (f *file) resolveType(name string, cx *ctx) *lang.Chain {
	if name == "" {
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
			if _, ok := f.types[c.name+"."+name]; ok {
				return &lang.Chain{Scope: f.scope, Name: c.name + "." + name, Inst: true}
			}
			if c.name == name || strings.HasSuffix(c.name, "."+name) {
				return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
			}
		}
	}
	return &lang.Chain{Scope: f.scope, Name: name, Inst: true}
}

// isTypeName reports whether an identifier is written as a type (an
// upper-case first letter) and is no generic parameter of cx.
func (f *file) isTypeName(name string, cx *ctx) bool {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	return f.resolveType(name, cx) != nil
}
