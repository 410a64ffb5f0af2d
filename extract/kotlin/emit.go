package kotlin

import (
	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// classChain is the chain of an instance of the named class c.
func (f *file) classChain(c *class) *lang.Chain {
	return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
}

// emit adds the nodes, edges and facts of a declared class, object or
// companion and walks its members' code.
func (f *file) emit(n *sitter.Node, outer *class, parent string) {
	name := f.declName(n)
	if outer != nil {
		name = outer.name + "." + name
	}
	c := f.classes[name]
	if c == nil {
		return
	}
	uid := lang.CodeUID("class", f.fr.Path, name)
	line := ts.Line(n)
	meta := map[string]any{"language": "kotlin", "type_kind": c.kind}
	if mods := f.modifiers(n); len(mods) > 0 {
		meta["modifiers"] = mods
	}
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
	f.fr.AddEdge(parent, uid, graph.EdgeContains, line)
	// The primary constructor's parameters are in scope of property
	// initialisers and init blocks; its val/var ones are properties.
	cx := &ctx{from: uid, cls: c, locals: map[string]*lang.Chain{}}
	var fieldNames []string
	if pc := childOfKind(n, "primary_constructor"); pc != nil {
		for _, p := range ts.Children(childOfKind(pc, "class_parameters")) {
			if p.Kind() != "class_parameter" {
				continue
			}
			pn := ts.Text(childOfKind(&p, "identifier"), f.src)
			t := f.typeChain(firstType(&p), cx)
			cx.locals[pn] = t
			if isProperty(&p) {
				c.fields[pn] = t
				fieldNames = append(fieldNames, pn)
				if t != nil {
					f.fr.Decl.SetFact(lang.FactAttr+name+"."+fieldPrefix+pn, t)
				}
			}
			for i := uint(0); i < p.NamedChildCount(); i++ {
				if k := p.NamedChild(i); k.Kind() != "identifier" && k.Kind() != "modifiers" && !isTypeNode(k.Kind()) {
					f.walk(k, cx) // a default value
				}
			}
		}
	}
	body := bodyOf(n)
	f.propertyTypes(body, c, cx, &fieldNames)
	if len(fieldNames) > 0 {
		meta["fields"] = fieldNames
	}
	f.bases(n, c, uid, cx)
	f.classBody(body, c, uid, cx)
}

// isTypeNode reports whether a node kind is a type.
func isTypeNode(k string) bool {
	switch k {
	case "user_type", "nullable_type", "parenthesized_type", "function_type", "non_nullable_type":
		return true
	}
	return false
}

// firstType returns the first type child of n.
func firstType(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if c := n.NamedChild(i); isTypeNode(c.Kind()) {
			return c
		}
	}
	return nil
}

// bases emits the supertypes of a declaration: a constructor invocation
// (B()) names the superclass (inherits_from, and a call of its
// constructor from the class); a bare type of a class or object is an
// interface (implements) unless the file declares it as a class; an
// interface's supertypes are interfaces it extends (inherits_from).
func (f *file) bases(n *sitter.Node, c *class, uid string, cx *ctx) {
	specs := childOfKind(n, "delegation_specifiers")
	var bases []*lang.Chain
	if specs != nil {
		tcx := &ctx{cls: c.outer, tparams: c.tparams}
		for _, s := range ts.Children(specs) {
			if s.Kind() != "delegation_specifier" {
				continue
			}
			for _, k := range ts.Children(&s) {
				typ := graph.EdgeImplements
				var t *sitter.Node
				switch k.Kind() {
				case "constructor_invocation":
					typ, t = graph.EdgeInheritsFrom, firstType(&k)
					if a := childOfKind(&k, "value_arguments"); a != nil {
						f.walk(a, cx)
					}
				case "explicit_delegation":
					t = firstType(&k)
					for i := uint(0); i < k.NamedChildCount(); i++ {
						if e := k.NamedChild(i); !isTypeNode(e.Kind()) {
							f.walk(e, cx)
						}
					}
				default:
					if !isTypeNode(k.Kind()) {
						continue
					}
					t = &k
				}
				ch := f.typeChain(t, tcx)
				if ch == nil {
					continue
				}
				ch.Inst = false
				if c.kind == "interface" {
					typ = graph.EdgeInheritsFrom
				} else if bc, ok := f.classes[ch.Name]; ok && ch.Scope == f.scope && bc.kind != "interface" {
					typ = graph.EdgeInheritsFrom
				}
				bases = append(bases, ch)
				f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: typ, From: uid, Line: ts.Line(t), Scope: ch.Scope, Name: ch.Name, Stub: qualified(ch)})
				if k.Kind() == "constructor_invocation" {
					f.classRef(cx, ts.Line(t), ch)
				}
			}
		}
	}
	// The companion's members are the class's: Outer.m() finds them.
	if c.companion != nil {
		bases = append(bases, &lang.Chain{Scope: f.scope, Name: c.companion.name})
	}
	if len(bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+c.name, bases...)
	}
}

// qualified is the stub label of a class chain.
func qualified(c *lang.Chain) string {
	p := c.Scope[len(ScopePrefix):]
	if p == "" {
		return c.Name
	}
	return p + "." + c.Name
}

// propertyTypes records the types of a class body's properties: declared,
// else the type of the initialiser.
func (f *file) propertyTypes(body *sitter.Node, c *class, cx *ctx, names *[]string) {
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "property_declaration":
			v := childOfKind(&m, "variable_declaration")
			id := childOfKind(v, "identifier")
			if id == nil || receiverType(&m) != nil {
				continue
			}
			fn := ts.Text(id, f.src)
			*names = append(*names, fn)
			t := f.typeChain(firstType(v), cx)
			if t == nil && firstType(v) == nil {
				t = f.exprChain(initializer(&m), cx)
			}
			c.fields[fn] = t
			if t != nil && c.named {
				f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+fieldPrefix+fn, t)
			}
		case "enum_entry":
			fn := ts.Text(childOfKind(&m, "identifier"), f.src)
			*names = append(*names, fn)
			if c.named {
				t := f.classChain(c)
				c.fields[fn] = t
				f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+fieldPrefix+fn, t)
			}
		case "ERROR":
			f.propertyTypes(&m, c, cx, names)
		}
	}
}

// initializer returns the expression a property is initialised with
// (or delegated to), nil when none.
func initializer(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		switch c.Kind() {
		case "modifiers", "variable_declaration", "multi_variable_declaration", "getter", "setter", "type_parameters", "type_constraints", "property_delegate":
			continue
		}
		if isTypeNode(c.Kind()) {
			continue
		}
		return c
	}
	return nil
}

// classBody emits a named class's members and walks the code in it;
// cx holds the primary constructor's parameters.
func (f *file) classBody(body *sitter.Node, c *class, uid string, cx *ctx) {
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_declaration":
			f.method(&m, c, uid)
		case "secondary_constructor":
			sc := &ctx{from: uid, cls: c, locals: map[string]*lang.Chain{}}
			f.params(childOfKind(&m, "function_value_parameters"), sc)
			if d := childOfKind(&m, "constructor_delegation_call"); d != nil {
				f.delegationCall(d, sc)
			}
			f.walk(childOfKind(&m, "block"), sc)
		case "anonymous_initializer", "property_declaration":
			f.walk(&m, cx.child())
		case "enum_entry":
			if a := childOfKind(&m, "value_arguments"); a != nil {
				f.walk(a, cx)
			}
			if b := childOfKind(&m, "class_body"); b != nil {
				f.anonymous(b, f.classChain(c), cx)
			}
		case "class_declaration", "object_declaration", "companion_object":
			f.emit(&m, c, uid)
		case "ERROR":
			f.classBody(&m, c, uid, cx)
		}
	}
}

// delegationCall handles this(…) and super(…) after a secondary
// constructor: super(…) calls the superclass's constructor, this(…) the
// class's own (no edge).
func (f *file) delegationCall(d *sitter.Node, cx *ctx) {
	if a := childOfKind(d, "value_arguments"); a != nil {
		f.walk(a, cx)
	}
	if d.ChildCount() == 0 || d.Child(0).Kind() != "super" || cx.cls == nil {
		return
	}
	for _, b := range lang.DecodeChains(f.fr.Decl.Facts[lang.FactBase+cx.cls.name]) {
		if bc, ok := f.classes[b.Name]; ok && b.Scope == f.scope && (bc.kind == "interface" || bc == cx.cls.companion) {
			continue
		}
		f.classRef(cx, ts.Line(d), b)
		return
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

// method emits one member function (overloads share its node) and walks
// its body.
func (f *file) method(m *sitter.Node, c *class, cuid string) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	full := c.name + "." + name
	uid := lang.CodeUID("function", f.fr.Path, full)
	if _, seen := f.fr.Decl.Names[full]; !seen {
		f.fr.Decl.Names[full] = graph.KindMethod
		sp := c.spans[name]
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: sp[0], EndLine: sp[1], Metadata: map[string]any{"language": "kotlin"}})
		f.fr.AddEdge(cuid, uid, graph.EdgeContains, ts.Line(m))
	}
	cx := &ctx{from: uid, cls: c, tparams: f.typeParams(childOfKind(m, "type_parameters")), locals: map[string]*lang.Chain{}}
	f.function(m, full, cx)
}

// function types a function's parameters, records its return type and
// walks its body.
func (f *file) function(m *sitter.Node, full string, cx *ctx) {
	f.params(childOfKind(m, "function_value_parameters"), cx)
	body := childOfKind(m, "function_body")
	var rt *lang.Chain
	if t := returnType(m); t != nil {
		rt = f.typeChain(t, cx)
	} else if body != nil && childOfKind(body, "block") == nil && body.NamedChildCount() > 0 {
		rt = f.exprChain(body.NamedChild(0), cx) // fun f() = expr
	}
	f.setReturn(full, rt)
	f.walk(body, cx)
}

// topFunc emits a top-level function, an extension function of T as
// T.f (kind function, metadata receiver).
func (f *file) topFunc(m *sitter.Node) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	tparams := f.typeParams(childOfKind(m, "type_parameters"))
	cx := &ctx{from: "", tparams: tparams, locals: map[string]*lang.Chain{}}
	full := name
	meta := map[string]any{"language": "kotlin"}
	if rt := receiverType(m); rt != nil {
		full = f.typeName(rt, tparams) + "." + name
		cx.recv = f.typeChain(rt, cx)
		meta["receiver"] = typeText(rt, f.src)
	}
	uid := lang.CodeUID("function", f.fr.Path, full)
	cx.from = uid
	if !f.emitted(full) {
		sp := f.spans[full]
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: full, Line: sp[0], EndLine: sp[1], Metadata: meta})
		f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, ts.Line(m))
	}
	f.function(m, full, cx)
}

// emitted reports whether a top-level function's node was added, and
// marks it so.
func (f *file) emitted(full string) bool {
	k := "\x00" + full
	if _, ok := f.spans[k]; ok {
		return true
	}
	f.spans[k] = [2]int{}
	return false
}

// topProperty types a top-level property (fact v:<name>) and walks its
// initialiser and accessors from the file node; it returns the
// property's name ("" for an extension property or a destructuring).
func (f *file) topProperty(n *sitter.Node) string {
	v := childOfKind(n, "variable_declaration")
	id := childOfKind(v, "identifier")
	cx := &ctx{from: f.fileUID, locals: map[string]*lang.Chain{}}
	if rt := receiverType(n); rt != nil {
		cx.recv = f.typeChain(rt, cx)
		f.walk(n, cx)
		return ""
	}
	f.walk(n, cx)
	if id == nil {
		return ""
	}
	name := ts.Text(id, f.src)
	t := f.typeChain(firstType(v), cx)
	if t == nil && firstType(v) == nil {
		t = f.exprChain(initializer(n), cx)
	}
	f.props[name] = t
	if t != nil {
		f.fr.Decl.SetFact(lang.FactVar+name, t)
	}
	return name
}

// params types a function's parameters.
func (f *file) params(ps *sitter.Node, cx *ctx) {
	for _, p := range ts.Children(ps) {
		if p.Kind() == "parameter" {
			cx.locals[ts.Text(childOfKind(&p, "identifier"), f.src)] = f.typeChain(firstType(&p), cx)
		} else if p.Kind() != "parameter_modifiers" {
			f.walk(&p, cx) // default values
		}
	}
}
