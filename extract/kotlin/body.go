package kotlin

import (
	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Symbol ids of the node kinds visit switches on.
var (
	kPropertyDeclaration = language.IdForNodeKind("property_declaration", true)
	kForStatement        = language.IdForNodeKind("for_statement", true)
	kCatchBlock          = language.IdForNodeKind("catch_block", true)
	kLambdaLiteral       = language.IdForNodeKind("lambda_literal", true)
	kWhenSubject         = language.IdForNodeKind("when_subject", true)
	kObjectLiteral       = language.IdForNodeKind("object_literal", true)
	kClassDeclaration    = language.IdForNodeKind("class_declaration", true)
	kObjectDeclaration   = language.IdForNodeKind("object_declaration", true)
	kFunctionDeclaration = language.IdForNodeKind("function_declaration", true)
	kCallExpression      = language.IdForNodeKind("call_expression", true)
	kCallableReference   = language.IdForNodeKind("callable_reference", true)
)

// leaf marks the node kinds whose descendants hold no call: tokens,
// names, literals, types, modifiers (not descending into them saves the
// walk cgo calls per node).
var leaf []bool

func init() {
	leaf = make([]bool, language.NodeKindCount())
	for id := range leaf {
		leaf[id] = !language.NodeKindIsNamed(uint16(id))
	}
	for _, k := range []string{"identifier", "number_literal", "character_literal", "boolean_literal", "null_literal",
		"user_type", "nullable_type", "function_type", "type_arguments", "type_parameters", "type_constraints",
		"modifiers", "line_comment", "block_comment", "string_content", "label", "this_expression"} {
		if id := language.IdForNodeKind(k, true); int(id) < len(leaf) && id != 0 {
			leaf[id] = true
		}
	}
}

// walk visits the code under n in document order: declarations type
// locals, calls become references.
func (f *file) walk(n *sitter.Node, cx *ctx) {
	if n == nil {
		return
	}
	ts.WalkSkip(n, func(k *sitter.Node) bool { return f.visit(k, cx) })
}

// visit handles one node of walk; false when it walked the node's
// descendants itself (or they hold no code).
func (f *file) visit(n *sitter.Node, cx *ctx) bool {
	id := n.KindId()
	if int(id) < len(leaf) && leaf[id] {
		return false
	}
	switch id {
	case kPropertyDeclaration:
		init := initializer(n)
		f.walk(init, cx)
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if k := n.NamedChild(i); k.Kind() == "getter" || k.Kind() == "setter" || k.Kind() == "property_delegate" {
				f.walk(k, cx)
			}
		}
		if v := childOfKind(n, "variable_declaration"); v != nil {
			t := f.typeChain(firstType(v), cx)
			if t == nil && firstType(v) == nil {
				t = f.exprChain(init, cx)
			}
			f.local(childOfKind(v, "identifier"), t, cx)
		} else if m := childOfKind(n, "multi_variable_declaration"); m != nil {
			f.destructure(m, cx)
		}
		return false
	case kForStatement:
		if v := childOfKind(n, "variable_declaration"); v != nil {
			f.local(childOfKind(v, "identifier"), f.typeChain(firstType(v), cx), cx)
		} else if m := childOfKind(n, "multi_variable_declaration"); m != nil {
			f.destructure(m, cx)
		}
	case kCatchBlock:
		f.local(childOfKind(n, "identifier"), f.typeChain(firstType(n), cx), cx)
	case kWhenSubject:
		if v := childOfKind(n, "variable_declaration"); v != nil {
			t := f.typeChain(firstType(v), cx)
			var e *sitter.Node
			for i := uint(0); i < n.NamedChildCount(); i++ {
				if k := n.NamedChild(i); k.Kind() != "variable_declaration" && k.Kind() != "annotation" {
					e = k
				}
			}
			f.walk(e, cx)
			if t == nil && firstType(v) == nil {
				t = f.exprChain(e, cx)
			}
			f.local(childOfKind(v, "identifier"), t, cx)
			return false
		}
	case kLambdaLiteral:
		lc := cx.child()
		if ps := childOfKind(n, "lambda_parameters"); ps != nil {
			for _, p := range ts.Children(ps) {
				switch p.Kind() {
				case "variable_declaration":
					f.local(childOfKind(&p, "identifier"), f.typeChain(firstType(&p), lc), lc)
				case "multi_variable_declaration":
					f.destructure(&p, lc)
				}
			}
		} else {
			lc.locals["it"] = nil
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if k := n.NamedChild(i); k.Kind() != "lambda_parameters" {
				f.walk(k, lc)
			}
		}
		return false
	case kObjectLiteral:
		var base *lang.Chain
		if specs := childOfKind(n, "delegation_specifiers"); specs != nil {
			for _, s := range ts.Children(specs) {
				for _, k := range ts.Children(&s) {
					if k.Kind() == "constructor_invocation" {
						f.walk(childOfKind(&k, "value_arguments"), cx)
						if t := f.typeChain(firstType(&k), cx); t != nil {
							f.classRef(cx, ts.Line(&k), t)
							if base == nil {
								base = t
							}
						}
					} else if base == nil && isTypeNode(k.Kind()) {
						base = f.typeChain(&k, cx)
					}
				}
			}
		}
		f.anonymous(childOfKind(n, "class_body"), base, cx)
		return false
	case kClassDeclaration, kObjectDeclaration:
		// A local class: its code belongs to the enclosing node.
		f.anonymous(bodyOf(n), nil, cx)
		return false
	case kFunctionDeclaration:
		// A local function: its code belongs to the enclosing node.
		f.local(n.ChildByFieldName("name"), nil, cx)
		lc := cx.child()
		f.params(childOfKind(n, "function_value_parameters"), lc)
		f.walk(childOfKind(n, "function_body"), lc)
		return false
	case kCallExpression:
		f.call(n, cx)
	case kCallableReference:
		f.callableRef(n, cx)
	}
	return true
}

// destructure declares the variables of (a, b) as locals of unknown type.
func (f *file) destructure(m *sitter.Node, cx *ctx) {
	for _, v := range ts.Children(m) {
		if v.Kind() == "variable_declaration" {
			f.local(childOfKind(&v, "identifier"), nil, cx)
		}
	}
}

func (f *file) local(name *sitter.Node, t *lang.Chain, cx *ctx) {
	if name == nil {
		return
	}
	cx.locals[ts.Text(name, f.src)] = t
}

// anonymous walks the body of an object literal, a local class or an
// enum entry's body, extending base: its code belongs to the enclosing
// node.
func (f *file) anonymous(body *sitter.Node, base *lang.Chain, cx *ctx) {
	if body == nil {
		return
	}
	c := &class{outer: cx.cls, methods: map[string]bool{}, fields: map[string]*lang.Chain{}, base: base}
	f.members(body, c, func(*sitter.Node) {})
	inner := &ctx{from: cx.from, cls: c, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
	var names []string
	f.propertyTypes(body, c, inner, &names)
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_declaration":
			mc := inner.child()
			mc.recv = nil
			f.params(childOfKind(&m, "function_value_parameters"), mc)
			f.walk(childOfKind(&m, "function_body"), mc)
		case "class_declaration", "object_declaration", "companion_object":
			f.anonymous(bodyOf(&m), nil, inner)
		default:
			f.walk(&m, inner.child())
		}
	}
}

// ref appends a call reference of the member name of recv.
func (f *file) ref(cx *ctx, line int, recv *lang.Chain, name string) {
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name, Stub: "*." + name})
}

// scopeRef appends a call reference of a name declared in a package's
// scope; stub says whether an unresolved one becomes a "*.name" stub.
func (f *file) scopeRef(cx *ctx, line int, scope, name string, stub bool) {
	r := lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: scope, Name: name}
	if stub {
		r.Stub = "*." + name[lastDot(name)+1:]
	}
	f.fr.Refs = append(f.fr.Refs, r)
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

// classRef appends a call of a class (its constructor).
func (f *file) classRef(cx *ctx, line int, t *lang.Chain) {
	if t == nil {
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: t.Scope, Name: t.Name})
}

// thisChain is what this names in cx: an extension function's receiver,
// the innermost named class, an object literal's base; nil when unknown.
func (f *file) thisChain(cx *ctx) *lang.Chain {
	if cx.recv != nil {
		r := copyChain(cx.recv)
		r.Inst = true
		return r
	}
	c := cx.cls
	if c == nil {
		return nil
	}
	if c.named {
		return f.classChain(c)
	}
	if c.base != nil {
		b := copyChain(c.base)
		b.Inst = true
		return b
	}
	return nil
}

// labelled resolves this@Label: the enclosing class of that name.
func (f *file) labelled(n *sitter.Node, cx *ctx) *lang.Chain {
	id := childOfKind(n, "identifier")
	if id == nil {
		return f.thisChain(cx)
	}
	label := ts.Text(id, f.src)
	for c := cx.cls; c != nil; c = c.outer {
		if c.named && (c.name == label || hasSuffixDot(c.name, label)) {
			return f.classChain(c)
		}
	}
	return nil // a lambda's or function's label
}

func hasSuffixDot(s, suffix string) bool {
	return len(s) > len(suffix) && s[len(s)-len(suffix)-1] == '.' && s[len(s)-len(suffix):] == suffix
}

// superChain is what super (or super<T>) names in cx.
func (f *file) superChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if t := firstType(n); t != nil {
		return f.typeChain(t, cx)
	}
	if cx.cls == nil || !cx.cls.named {
		if cx.cls != nil {
			return f.thisChain(cx)
		}
		return nil
	}
	r := f.classChain(cx.cls)
	r.Super = true
	return r
}

// calleeOf splits a call's callee into its receiver (nil for an
// unqualified call) and the called name; name is "" when the callee is no
// name (a lambda invoked, a call's result invoked).
func (f *file) calleeOf(n *sitter.Node) (recv *sitter.Node, name *sitter.Node) {
	if n.NamedChildCount() == 0 {
		return nil, nil
	}
	callee := n.NamedChild(0)
	switch callee.Kind() {
	case "identifier":
		return nil, callee
	case "navigation_expression":
		cnt := callee.NamedChildCount()
		if cnt < 2 {
			return nil, nil
		}
		last := callee.NamedChild(cnt - 1)
		if last.Kind() != "identifier" {
			return nil, nil
		}
		return callee.NamedChild(0), last
	}
	return nil, nil
}

// call handles a call expression.
func (f *file) call(n *sitter.Node, cx *ctx) {
	recvNode, nameNode := f.calleeOf(n)
	if nameNode == nil {
		return
	}
	name := ts.Text(nameNode, f.src)
	line := ts.Line(nameNode)
	if recvNode == nil {
		f.unqualified(name, line, cx)
		return
	}
	var recv *lang.Chain
	switch recvNode.Kind() {
	case "super_expression":
		recv = f.superChain(recvNode, cx)
	case "this_expression":
		recv = f.labelled(recvNode, cx)
	default:
		if isType(name) {
			if t := f.nestedOrQualified(recvNode, name, cx); t != nil {
				f.classRef(cx, line, t)
				return
			}
		}
		recv = f.exprChain(recvNode, cx)
		if imp, ok := f.imports[name]; ok && !isType(imp.Name) {
			// A member of the receiver, else the imported extension
			// function (declared T.name in its package, found through
			// its bare name).
			start := len(f.fr.Refs)
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name})
			f.importedExtension(cx, line, imp, recv, name)
			f.alternatives(start, name)
			return
		}
	}
	f.ref(cx, line, recv, name)
}

// nestedOrQualified resolves Outer.Inner or pkg.Class used as a callee:
// the class, or nil when recvNode is a value.
func (f *file) nestedOrQualified(recvNode *sitter.Node, name string, cx *ctx) *lang.Chain {
	if p := f.packagePath(recvNode, cx); p != "" {
		return f.resolveDotted(p+"."+name, cx)
	}
	rc := f.exprChain(recvNode, cx)
	if rc != nil && !rc.Inst && len(rc.Steps) == 0 {
		return &lang.Chain{Scope: rc.Scope, Name: rc.Name + "." + name, Inst: true}
	}
	return nil
}

// packagePath returns the dotted text of an expression that can only be
// a package name (a.b.c, its head no local, property, import or class),
// "" otherwise.
func (f *file) packagePath(n *sitter.Node, cx *ctx) string {
	switch n.Kind() {
	case "identifier":
		s := ts.Text(n, f.src)
		if s == "" || s[0] < 'a' || s[0] > 'z' {
			return ""
		}
		if _, ok := cx.locals[s]; ok {
			return ""
		}
		for c := cx.cls; c != nil; c = c.outer {
			if _, ok := c.fields[s]; ok {
				return ""
			}
		}
		if _, ok := f.props[s]; ok {
			return ""
		}
		if _, ok := f.imports[s]; ok {
			return ""
		}
		return s
	case "navigation_expression":
		if n.NamedChildCount() != 2 || n.NamedChild(1).Kind() != "identifier" {
			return ""
		}
		head := f.packagePath(n.NamedChild(0), cx)
		last := ts.Text(n.NamedChild(1), f.src)
		if head == "" || last == "" || last[0] < 'a' || last[0] > 'z' {
			return ""
		}
		return head + "." + last
	}
	return ""
}

// unqualified handles a call of a bare name: a local function or lambda
// (no edge), a member function of an enclosing class or its companion, a
// class (its constructor), a top-level function of the file or an
// imported one, else a member of this (an extension's receiver, the bases
// of the class) or a function of the package.
func (f *file) unqualified(name string, line int, cx *ctx) {
	if _, ok := cx.locals[name]; ok {
		return
	}
	for c := cx.cls; c != nil; c = c.outer {
		if c.methods[name] {
			if c.named {
				f.ref(cx, line, f.classChain(c), name)
			}
			return
		}
		if c.companion != nil && c.companion.methods[name] {
			f.ref(cx, line, f.classChain(c.companion), name)
			return
		}
	}
	if isType(name) {
		f.classRef(cx, line, f.resolveType(name, cx))
		return
	}
	if full, ok := f.funcs[name]; ok && (full == name || cx.recv != nil || cx.cls != nil) {
		f.scopeRef(cx, line, f.scope, full, true)
		return
	}
	if imp, ok := f.imports[name]; ok {
		start := len(f.fr.Refs)
		if !isType(imp.Name) {
			f.importedExtension(cx, line, imp, f.thisChain(cx), name)
		} else {
			f.scopeRef(cx, line, imp.Scope, imp.Name, false)
		}
		f.alternatives(start, name)
		return
	}
	this := cx.recv
	if this == nil {
		inner := cx.cls
		for inner != nil && !inner.named && inner.base == nil {
			inner = inner.outer
		}
		if inner != nil && (inner.hasBase || inner.base != nil) {
			this = f.thisChain(&ctx{cls: inner})
		}
	}
	// A member of this (inherited, or of an extension's receiver), else a
	// function of the package, else of a star-imported package.
	start := len(f.fr.Refs)
	if this != nil {
		t := copyChain(this)
		t.Inst = true
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: t, Name: name})
	}
	f.scopeRef(cx, line, f.scope, name, false)
	for _, p := range f.stars {
		f.scopeRef(cx, line, ScopePrefix+p, name, false)
	}
	f.alternatives(start, name)
}

// importedExtension refers to an imported function name called on recv:
// the extension function of recv's type in the imported package when
// recv is a typed value (T.name), else whatever the bare name stands for
// there (a plain function, or an extension function of its name).
func (f *file) importedExtension(cx *ctx, line int, imp, recv *lang.Chain, name string) {
	if recv != nil && recv.Inst && !recv.Super && len(recv.Steps) == 0 {
		f.scopeRef(cx, line, imp.Scope, recv.Name+"."+imp.Name, false)
	}
	f.scopeRef(cx, line, imp.Scope, imp.Name, false)
}

// alternatives makes the references from start on one run of
// alternatives (lang.Ref.Else), the last one stubbed "*.name".
func (f *file) alternatives(start int, name string) {
	refs := f.fr.Refs[start:]
	for i := range refs {
		refs[i].Else = i > 0
	}
	if len(refs) > 0 {
		refs[len(refs)-1].Stub = "*." + name
	}
}

// callableRef handles ::f, ::Class (its constructor), Class::m and x::m.
func (f *file) callableRef(n *sitter.Node, cx *ctx) {
	cnt := n.NamedChildCount()
	if cnt == 0 {
		return
	}
	last := n.NamedChild(cnt - 1)
	if last.Kind() != "identifier" {
		return
	}
	name := ts.Text(last, f.src)
	line := ts.Line(n)
	if cnt == 1 {
		if isType(name) {
			f.classRef(cx, line, f.resolveType(name, cx))
			return
		}
		f.unqualified(name, line, cx)
		return
	}
	first := n.NamedChild(0)
	var recv *lang.Chain
	if isTypeNode(first.Kind()) {
		recv = f.typeChain(first, cx)
	} else {
		recv = f.exprChain(first, cx)
	}
	f.ref(cx, line, recv, name)
}

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *file) exprChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		return f.nameChain(ts.Text(n, f.src), cx)
	case "this_expression":
		return f.labelled(n, cx)
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return f.exprChain(n.NamedChild(0), cx)
		}
	case "as_expression":
		return f.typeChain(n.ChildByFieldName("right"), cx)
	case "unary_expression":
		if op := n.ChildByFieldName("operator"); op != nil && op.Kind() == "!!" {
			return f.exprChain(n.ChildByFieldName("argument"), cx)
		}
	case "object_literal":
		if specs := childOfKind(n, "delegation_specifiers"); specs != nil {
			for _, s := range ts.Children(specs) {
				for _, k := range ts.Children(&s) {
					if k.Kind() == "constructor_invocation" {
						return f.typeChain(firstType(&k), cx)
					}
					if isTypeNode(k.Kind()) {
						return f.typeChain(&k, cx)
					}
				}
			}
		}
	case "navigation_expression":
		if n.NamedChildCount() != 2 || n.NamedChild(1).Kind() != "identifier" {
			return nil
		}
		obj, fld := n.NamedChild(0), n.NamedChild(1)
		name := ts.Text(fld, f.src)
		if obj.Kind() == "super_expression" {
			return nil
		}
		if isType(name) {
			if t := f.nestedOrQualified(obj, name, cx); t != nil {
				t.Inst = false
				return t
			}
		}
		if oc := f.exprChain(obj, cx); oc != nil {
			return oc.Then(fieldPrefix + name)
		}
	case "call_expression":
		return f.callChain(n, cx)
	}
	return nil
}

// nameChain is the value a bare name stands for in cx.
func (f *file) nameChain(name string, cx *ctx) *lang.Chain {
	if t, ok := cx.locals[name]; ok {
		return copyChain(t)
	}
	for c := cx.cls; c != nil; c = c.outer {
		if t, ok := c.fields[name]; ok {
			if t == nil && c.named {
				return f.classChain(c).Then(fieldPrefix + name)
			}
			return copyChain(t)
		}
	}
	if t, ok := f.props[name]; ok {
		return copyChain(t)
	}
	if isType(name) {
		t := f.resolveType(name, cx)
		if t != nil {
			t.Inst = false
		}
		return t
	}
	if imp, ok := f.imports[name]; ok {
		return &lang.Chain{Scope: imp.Scope, Name: imp.Name}
	}
	if this := f.thisChain(cx); this != nil && (cx.recv != nil || (cx.cls != nil && cx.cls.hasBase)) {
		return this.Then(fieldPrefix + name)
	}
	return &lang.Chain{Scope: f.scope, Name: name}
}

// callChain is the value a call returns.
func (f *file) callChain(n *sitter.Node, cx *ctx) *lang.Chain {
	recvNode, nameNode := f.calleeOf(n)
	if nameNode == nil {
		return nil
	}
	name := ts.Text(nameNode, f.src)
	if recvNode == nil {
		if _, ok := cx.locals[name]; ok {
			return nil
		}
		for c := cx.cls; c != nil; c = c.outer {
			if c.methods[name] {
				if !c.named {
					return nil
				}
				return f.classChain(c).Then(name).Then(lang.CallStep)
			}
			if c.companion != nil && c.companion.methods[name] {
				return f.classChain(c.companion).Then(name).Then(lang.CallStep)
			}
		}
		if isType(name) {
			return f.resolveType(name, cx)
		}
		if full, ok := f.funcs[name]; ok {
			return &lang.Chain{Scope: f.scope, Name: full, Steps: []string{lang.CallStep}}
		}
		if imp, ok := f.imports[name]; ok {
			return &lang.Chain{Scope: imp.Scope, Name: imp.Name, Steps: []string{lang.CallStep}}
		}
		if this := f.thisChain(cx); this != nil && (cx.recv != nil || (cx.cls != nil && cx.cls.hasBase)) {
			return this.Then(name).Then(lang.CallStep)
		}
		return &lang.Chain{Scope: f.scope, Name: name, Steps: []string{lang.CallStep}}
	}
	var recv *lang.Chain
	switch recvNode.Kind() {
	case "super_expression":
		recv = f.superChain(recvNode, cx)
	case "this_expression":
		recv = f.labelled(recvNode, cx)
	default:
		if isType(name) {
			if t := f.nestedOrQualified(recvNode, name, cx); t != nil {
				return t
			}
		}
		recv = f.exprChain(recvNode, cx)
	}
	if recv == nil || recv.Super {
		return nil
	}
	switch name {
	case "apply", "also":
		return recv // the receiver itself
	}
	return recv.Then(name).Then(lang.CallStep)
}
