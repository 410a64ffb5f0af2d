package cfamily

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// maxMacroDepth bounds the expansion of a file's own macros.
const maxMacroDepth = 4

// fn is the state of one function body being read for calls.
type fn struct {
	b      body
	locals map[string]*lang.Chain // nil value: a local of unknown type
	seen   map[string]bool
	// called are the names whose references plainCall already added for
	// this body: a later call of one adds the same references at another
	// line, and the resolver keeps an edge once (graph.Edge.Key has no
	// line), so it would drop all they resolve to. Held until the emit
	// phase for every file of a tree, they were most of a kernel index's
	// live heap.
	called map[string]bool
}

// macroRecv is the receiver of the references to a macro's calls
// (macroKey): one value for all of them, as the resolver never changes a
// reference's chain.
var macroRecv = &lang.Chain{Scope: Scope}

// calls reads the calls of one function or method body.
func (f *file) calls(b body) {
	x := &fn{b: b, locals: map[string]*lang.Chain{}, seen: map[string]bool{}, called: map[string]bool{}}
	_, params, _ := declName(ts.Field(b.def, "declarator"))
	for _, p := range ts.Children(params) {
		f.local(x, &p)
	}
	bd := ts.Field(b.def, "body")
	if bd == nil {
		return
	}
	for _, k := range ts.Children(b.def) {
		if ts.Kind(&k) == "field_initializer_list" && f.isCPP() {
			for _, fi := range ts.Children(&k) {
				if ts.Kind(&fi) != "field_initializer" || fi.NamedChildCount() == 0 {
					continue
				}
				// A base's or a member's initialiser: only a class has
				// a constructor to find.
				head := fi.NamedChild(0)
				segs := f.segments(head)
				f.construct(x, segs[len(segs)-1], ts.Line(head))
			}
			f.walkCalls(x, &k)
		}
	}
	f.walkCalls(x, bd)
}

// walkCalls reads the calls, constructions and constructing declarations
// under n, in document order, binding locals as their declarations come.
func (f *file) walkCalls(x *fn, n *sitter.Node) {
	ts.WalkKinds(n, callKinds, func(n *sitter.Node, kind string) {
		switch kind {
		case "call_expression":
			f.call(x, n)
		case "new_expression":
			if t := f.typeName(ts.Field(n, "type")); t != "" {
				f.construct(x, t, ts.Line(n))
			}
		case "declaration":
			f.local(x, n)
			if f.isCPP() {
				f.declConstruct(x, n)
			}
		case "for_range_loop", "parameter_declaration", "optional_parameter_declaration", "condition_clause":
			f.local(x, n)
		}
	})
}

// callKinds are the kinds walkCalls reads; it does not look inside the
// leaf kinds (leafKind), error nodes included. The walk hands only these
// nodes to Go, not every token of a body.
var callKinds = ts.NewKinds([]string{"call_expression", "new_expression", "declaration",
	"for_range_loop", "parameter_declaration", "optional_parameter_declaration", "condition_clause"}, leafKind)

func (f *file) isCPP() bool { return f.lang == "c++" }

// local records the names a parameter, declaration or range loop binds,
// with the class their type names (auto: the initialiser's).
func (f *file) local(x *fn, n *sitter.Node) {
	typ := ts.Field(n, "type")
	tc := f.typeChain(typ)
	auto := typ != nil && (ts.Kind(typ) == "placeholder_type_specifier" || f.text(typ) == "auto")
	var decls []sitter.Node
	if ts.Kind(n) == "condition_clause" {
		if v := ts.Field(n, "value"); v != nil && ts.Kind(v) == "declaration" {
			f.local(x, v)
		}
		return
	}
	cur := n.Walk()
	decls = n.ChildrenByFieldName("declarator", cur)
	cur.Close()
	for i := range decls {
		d := &decls[i]
		c := tc
		if auto && ts.Kind(d) == "init_declarator" {
			c = f.exprChain(x, ts.Field(d, "value"))
		}
		nameNode, _, isFunc := declName(d)
		if nameNode == nil || isFunc {
			continue
		}
		name := f.text(nameNode)
		if old, ok := x.locals[name]; ok && !sameChain(old, c) {
			c = nil
		}
		x.locals[name] = c
	}
}

func sameChain(a, b *lang.Chain) bool {
	if a == nil || b == nil {
		return a == b
	}
	return lang.EncodeChains(a) == lang.EncodeChains(b)
}

// exprChain is the chain of the value of an expression, nil when unknown.
func (f *file) exprChain(x *fn, e *sitter.Node) *lang.Chain {
	if e == nil {
		return nil
	}
	switch ts.Kind(e) {
	case "this":
		if x.b.class != "" {
			return &lang.Chain{Scope: Scope, Name: x.b.class, Inst: true}
		}
	case "identifier":
		id := f.text(e)
		if c, ok := x.locals[id]; ok {
			return c
		}
		if c, ok := f.globals[id]; ok {
			return c
		}
		if x.b.class != "" {
			return &lang.Chain{Scope: Scope, Name: x.b.class, Inst: true, Steps: []string{id}}
		}
		return &lang.Chain{Scope: Scope, Name: id}
	case "field_expression":
		return f.exprChain(x, ts.Field(e, "argument")).Then(f.text(ts.Field(e, "field")))
	case "call_expression":
		fun := ts.Field(e, "function")
		if fun == nil {
			return nil
		}
		switch ts.Kind(fun) {
		case "field_expression":
			return f.exprChain(x, fun).Then(lang.CallStep)
		case "identifier":
			id := f.text(fun)
			if x.b.class != "" {
				if _, ok := f.members[x.b.class+"."+id]; ok {
					return &lang.Chain{Scope: Scope, Name: x.b.class, Inst: true, Steps: []string{id, lang.CallStep}}
				}
			}
			return &lang.Chain{Scope: Scope, Name: id, Steps: []string{lang.CallStep}}
		case "qualified_identifier":
			segs := f.segments(fun)
			if owner := f.typePath(segs[:len(segs)-1]); owner != "" && segs[0] != "std" {
				return &lang.Chain{Scope: Scope, Name: owner, Steps: []string{segs[len(segs)-1], lang.CallStep}}
			}
		}
	case "parenthesized_expression":
		if e.NamedChildCount() > 0 {
			return f.exprChain(x, e.NamedChild(0))
		}
	case "pointer_expression":
		return f.exprChain(x, ts.Field(e, "argument"))
	case "new_expression":
		return f.typeChain(ts.Field(e, "type"))
	case "cast_expression":
		if t := ts.Field(e, "type"); t != nil {
			return f.typeChain(ts.Field(t, "type"))
		}
	}
	return nil
}

// edge adds a calls edge from the body to a node of this file, once (to
// itself when it recurses).
func (f *file) edge(x *fn, to string, line int) {
	if to == "" || x.seen[to] {
		return
	}
	x.seen[to] = true
	f.fr.AddEdge(x.b.uid, to, graph.EdgeCalls, line)
}

func (f *file) ref(x *fn, r lang.Ref) {
	r.Type, r.From = lang.RefCall, x.b.uid
	f.fr.Refs = append(f.fr.Refs, r)
}

// call reads one call expression.
func (f *file) call(x *fn, n *sitter.Node) {
	fun := ts.Field(n, "function")
	if fun == nil {
		return
	}
	line := ts.Line(n)
	switch ts.Kind(fun) {
	case "identifier":
		f.plainCall(x, f.text(fun), line, 0)
	case "template_function":
		f.plainCall(x, f.text(ts.Field(fun, "name")), line, 0)
	case "field_expression":
		name := f.baseName(ts.Field(fun, "field"))
		if name == "" {
			return
		}
		recv := f.exprChain(x, ts.Field(fun, "argument"))
		if recv == nil {
			f.ref(x, lang.Ref{Line: line, Name: name, Stub: "*." + name})
			return
		}
		f.ref(x, lang.Ref{Line: line, Recv: recv, Name: name, Stub: "*." + name})
	case "qualified_identifier":
		segs := f.segments(fun)
		name := segs[len(segs)-1]
		if len(segs) < 2 || segs[len(segs)-2] == "" {
			f.plainCall(x, name, line, 0)
			return
		}
		if segs[0] == "std" || name == "" {
			return
		}
		owner := f.typePath(segs[:len(segs)-1])
		if owner == "" {
			f.plainCall(x, name, line, 0)
			return
		}
		f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope, Name: owner}, Name: name})
		if !f.classes[owner] && !f.typeUsed(owner) {
			f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope}, Name: name + "." + name, Stub: name})
		}
	}
}

// typeUsed reports whether the file names t as a type in a way the
// extractor recorded (a class it declares or a member it defines).
func (f *file) typeUsed(t string) bool {
	if f.classes[t] {
		return true
	}
	for k := range f.members {
		if len(k) > len(t) && k[:len(t)] == t && k[len(t)] == '.' {
			return true
		}
	}
	return false
}

// plainCall reads a call of an unqualified name.
func (f *file) plainCall(x *fn, name string, line, depth int) {
	if name == "" || notCallees[name] {
		return
	}
	if _, isLocal := x.locals[name]; isLocal && depth == 0 {
		return // a function pointer or functor
	}
	if x.b.class != "" {
		if uid, ok := f.members[x.b.class+"."+name]; ok {
			if uid != "" {
				f.edge(x, uid, line)
				return
			}
			f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope, Name: x.b.class, Inst: true}, Name: name})
			return
		}
	}
	if uid, ok := f.funcs[name]; ok {
		f.edge(x, uid, line)
		return
	}
	if body, ok := f.macros[name]; ok && depth < maxMacroDepth {
		for _, callee := range body {
			f.plainCall(x, callee, line, depth+1)
		}
		return
	}
	if f.isCPP() && (f.classes[name] || f.typeUsed(name)) {
		f.construct(x, name, line)
		return
	}
	if x.called[name] {
		return
	}
	x.called[name] = true
	// The stub names a call that found nothing; none for a method's
	// unqualified call (the member or the function may answer) nor for a
	// name in capitals (a macro, by convention).
	stub := name
	if x.b.class != "" {
		f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope, Name: x.b.class, Inst: true}, Name: name})
		stub = ""
	}
	if strings.ToUpper(name) == name {
		stub = ""
	}
	if f.isCPP() {
		// N.N is the constructor of a class N (else the class), the
		// function N otherwise: T(args) constructs.
		f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope}, Name: name + "." + name, Stub: stub})
	} else {
		f.ref(x, lang.Ref{Line: line, Scope: Scope, Name: name, Stub: stub})
	}
	keys := f.macroKeys(name)
	for i := range keys {
		f.ref(x, lang.Ref{Line: line, Recv: macroRecv, Name: keys[i]})
	}
}

// construct reads a construction of the class t: its constructor t.t,
// else the class.
func (f *file) construct(x *fn, t string, line int) {
	ctor := t + "." + t[strings.LastIndexByte(t, '.')+1:]
	if uid := f.members[ctor]; uid != "" {
		f.edge(x, uid, line)
		return
	}
	f.ref(x, lang.Ref{Line: line, Recv: &lang.Chain{Scope: Scope}, Name: ctor})
}

// declConstruct reads T x(args); T x{args}; and T x; of a class T.
func (f *file) declConstruct(x *fn, n *sitter.Node) {
	t := f.typeName(ts.Field(n, "type"))
	if t == "" {
		return
	}
	cur := n.Walk()
	decls := n.ChildrenByFieldName("declarator", cur)
	cur.Close()
	for i := range decls {
		d := &decls[i]
		switch ts.Kind(d) {
		case "identifier":
			f.construct(x, t, ts.Line(d))
		case "init_declarator":
			v := ts.Field(d, "value")
			if v != nil && (ts.Kind(v) == "argument_list" || ts.Kind(v) == "initializer_list") {
				f.construct(x, t, ts.Line(d))
			}
		}
	}
}

// leafKind reports whether nodes of kind k hold no call: tokens,
// names, literals and comments; and error nodes, whose insides are not
// read (callKinds).
func leafKind(k string) bool {
	if k == "" || !(k[0] >= 'a' && k[0] <= 'z') {
		return true // punctuation and operators
	}
	switch k {
	case "identifier", "field_identifier", "type_identifier", "number_literal", "string_literal", "char_literal",
		"comment", "primitive_type", "true", "false", "null", "nullptr", "this", "namespace_identifier",
		"statement_identifier", "escape_sequence", "string_content", "raw_string_literal", "system_lib_string":
		return true
	}
	return false
}

// macroKeys returns macroKey(name, i) for i < macroCalls, made once per
// file and name (a name is called from many bodies of a file).
func (f *file) macroKeys(name string) *[macroCalls]string {
	if k, ok := f.macroKeyOf[name]; ok {
		return k
	}
	k := new([macroCalls]string)
	for i := range k {
		k[i] = macroKey(name, i)
	}
	f.macroKeyOf[name] = k
	return k
}
