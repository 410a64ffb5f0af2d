package swift

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Symbol ids of the node kinds visit switches on.
var (
	kCallExpression      = language.IdForNodeKind("call_expression", true)
	kPropertyDeclaration = language.IdForNodeKind("property_declaration", true)
	kIfStatement         = language.IdForNodeKind("if_statement", true)
	kGuardStatement      = language.IdForNodeKind("guard_statement", true)
	kWhileStatement      = language.IdForNodeKind("while_statement", true)
	kForStatement        = language.IdForNodeKind("for_statement", true)
	kLambdaLiteral       = language.IdForNodeKind("lambda_literal", true)
	kFunctionDeclaration = language.IdForNodeKind("function_declaration", true)
	kClassDeclaration    = language.IdForNodeKind("class_declaration", true)
	kProtocolDeclaration = language.IdForNodeKind("protocol_declaration", true)
)

// barren marks the node kinds, by symbol id, that hold no code to visit
// below them: every anonymous node (a token) and named ones made of
// tokens or types. walk does not descend into them, saving a call into the
// parser's library per node.
var barren = func() []bool {
	out := make([]bool, language.NodeKindCount())
	for id := range out {
		out[id] = !language.NodeKindIsNamed(uint16(id))
	}
	for _, k := range []string{"simple_identifier", "type_identifier", "user_type", "integer_literal", "real_literal",
		"boolean_literal", "comment", "multiline_comment", "modifiers", "value_argument_label", "navigation_suffix",
		"type_annotation", "attribute", "self_expression", "super_expression", "value_binding_pattern"} {
		if id := language.IdForNodeKind(k, true); int(id) < len(out) && id != 0 {
			out[id] = true
		}
	}
	return out
}()

// walk visits the code under n in document order: declarations type
// locals, calls become references.
func (f *file) walk(n *sitter.Node, cx *ctx) {
	if n == nil {
		return
	}
	ts.WalkSkip(n, func(k *sitter.Node) bool { return f.visit(k, cx) })
}

// visit handles one node of walk; false when it walked the node's
// descendants itself.
func (f *file) visit(n *sitter.Node, cx *ctx) bool {
	id := n.KindId()
	if int(id) < len(barren) && barren[id] {
		return false
	}
	switch id {
	case kCallExpression:
		f.call(n, cx)
	case kPropertyDeclaration:
		for _, b := range f.bindings(n) {
			var t *lang.Chain
			if b.value != nil {
				f.walk(b.value, cx)
			}
			if b.typ != nil {
				t = f.typeChain(b.typ, cx)
			} else if b.value != nil {
				t = f.exprChain(b.value, cx)
			}
			for i := range b.other {
				f.walk(&b.other[i], cx)
			}
			if b.name != "" {
				cx.locals[b.name] = t
			}
		}
		return false
	case kIfStatement, kGuardStatement, kWhileStatement:
		f.conditions(n, cx)
		return false
	case kForStatement:
		for i := uint(0); i < n.ChildCount(); i++ {
			c := n.Child(i)
			if c == nil || !c.IsNamed() {
				continue
			}
			if n.FieldNameForChild(uint32(i)) == "item" {
				ts.WalkSkip(c, func(k *sitter.Node) bool {
					if k.Kind() == "simple_identifier" {
						cx.locals[ts.Text(k, f.src)] = nil
					}
					return true
				})
				continue
			}
			f.walk(c, cx)
		}
		return false
	case kLambdaLiteral:
		lc := &ctx{from: cx.from, cls: cx.cls, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
		for _, c := range ts.Children(n) {
			if c.Kind() == "lambda_function_type" {
				f.params(&c, lc)
				continue
			}
			f.walk(&c, lc)
		}
		return false
	case kFunctionDeclaration:
		// A nested function: its calls are the enclosing node's.
		if name := f.declName(n); name != "" {
			cx.locals[name] = nil
		}
		inner := &ctx{from: cx.from, cls: cx.cls, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
		f.params(n, inner)
		f.walk(n.ChildByFieldName("body"), inner)
		return false
	case kClassDeclaration, kProtocolDeclaration:
		// A local type: its code is the enclosing node's, self unknown.
		if b := n.ChildByFieldName("body"); b != nil {
			f.walk(b, &ctx{from: cx.from, tparams: cx.tparams, locals: cloneLocals(cx.locals)})
		}
		return false
	}
	return true
}

// conditions walks an if, guard or while statement, typing the names its
// let/var conditions bind (if let x = e, guard let x: T = e).
func (f *file) conditions(n *sitter.Node, cx *ctx) {
	var name string
	var typ *lang.Chain
	pending := false
	for i := uint(0); i < n.ChildCount(); i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		field := n.FieldNameForChild(uint32(i))
		switch {
		case c.Kind() == "value_binding_pattern":
			pending, name, typ = true, "", nil
		case field == "bound_identifier" && pending:
			name = ts.Text(c, f.src)
			cx.locals[name] = nil
		case c.Kind() == "type_annotation" && pending:
			typ = f.typeChain(typeOfAnnotation(c), cx)
			cx.locals[name] = typ
		case !c.IsNamed():
		case field == "condition" && pending && name != "":
			f.walk(c, cx)
			if typ == nil {
				typ = f.exprChain(c, cx)
			}
			cx.locals[name] = typ
			pending = false
		default:
			pending = false
			f.walk(c, cx)
		}
	}
}

func cloneLocals(m map[string]*lang.Chain) map[string]*lang.Chain {
	out := make(map[string]*lang.Chain, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ident is the text of an identifier without the ? or ! of optional
// chaining and forced unwrapping.
func (f *file) ident(n *sitter.Node) string {
	return strings.TrimRight(ts.Text(n, f.src), "?! \t\n")
}

// navigation splits a navigation_expression into its target and the
// member name of its suffix.
func (f *file) navigation(n *sitter.Node) (*sitter.Node, string) {
	target := n.ChildByFieldName("target")
	s := n.ChildByFieldName("suffix")
	if s == nil {
		return target, ""
	}
	if m := s.ChildByFieldName("suffix"); m != nil && m.Kind() == "simple_identifier" {
		return target, ts.Text(m, f.src)
	}
	return target, ""
}

// ref appends a call of member name on recv (nil: unknown, a "*.name"
// stub).
func (f *file) ref(cx *ctx, line int, recv *lang.Chain, name string) {
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name, Stub: "*." + name})
}

// classRef appends a call of a type (an initializer).
func (f *file) classRef(cx *ctx, line int, t *lang.Chain) {
	if t == nil {
		return
	}
	f.fr.Refs = append(f.fr.Refs, typeRef(lang.RefCall, cx.from, line, t, ""))
}

// typeRef is a reference of type typ to the type t names, looked up as a
// type: through the modules its scope imports when the module does not
// declare it.
func typeRef(typ, from string, line int, t *lang.Chain, stub string) lang.Ref {
	return lang.Ref{Type: typ, From: from, Line: line, Recv: &lang.Chain{Scope: t.Scope, Name: t.Name, Inst: true}, Name: lang.TypeRefName, Stub: stub}
}

// ownerOf is the receiver of an unqualified call of m: the innermost
// enclosing type declaring m in the file; nil with fn set when m is a
// free function of the file or the call is outside any type; else self.
func (f *file) ownerOf(m string, cx *ctx) (recv *lang.Chain, fn bool) {
	for c := cx.cls; c != nil; c = c.outer {
		if c.methods[m] {
			return f.classChain(c), false
		}
	}
	if f.funcs[m] || cx.cls == nil {
		return nil, true
	}
	return f.classChain(cx.cls), false
}

// isSubscript reports whether a call expression is a subscript, x[i]
// (the grammar reads it as a call whose arguments are in brackets).
func isSubscript(n *sitter.Node) bool {
	if n.NamedChildCount() < 2 {
		return false
	}
	s := n.NamedChild(n.NamedChildCount() - 1)
	if s.Kind() != "call_suffix" || s.NamedChildCount() == 0 {
		return false
	}
	a := s.NamedChild(0)
	if a.Kind() != "value_arguments" || a.ChildCount() == 0 {
		return false
	}
	return a.Child(0).Kind() == "["
}

// call handles a call expression.
func (f *file) call(n *sitter.Node, cx *ctx) {
	if n.NamedChildCount() == 0 || isSubscript(n) {
		return
	}
	callee := n.NamedChild(0)
	line := ts.Line(n)
	switch callee.Kind() {
	case "simple_identifier":
		name := f.ident(callee)
		if _, local := cx.locals[name]; local || name == "" {
			return // a closure held in a local or parameter
		}
		if f.isTypeName(name, cx) {
			f.classRef(cx, line, f.resolveType(name, cx))
			return
		}
		recv, fn := f.ownerOf(name, cx)
		if fn {
			// A free function: of the module or of a module it imports.
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: &lang.Chain{Scope: f.scope}, Name: name, Stub: name})
			return
		}
		f.ref(cx, line, recv, name)
	case "navigation_expression":
		target, name := f.navigation(callee)
		if target == nil || name == "" {
			return
		}
		line = ts.Line(callee.ChildByFieldName("suffix"))
		switch target.Kind() {
		case "super_expression":
			if cx.cls == nil {
				return
			}
			if name == "init" {
				if len(cx.cls.bases) > 0 && cx.cls.kind == "class" {
					f.classRef(cx, line, cx.cls.bases[0])
				}
				return
			}
			recv := f.classChain(cx.cls)
			recv.Super = true
			f.ref(cx, line, recv, name)
			return
		case "self_expression":
			if name == "init" {
				return
			}
			if cx.cls == nil {
				f.ref(cx, line, nil, name)
				return
			}
			f.ref(cx, line, f.classChain(cx.cls), name)
			return
		}
		recv := f.exprChain(target, cx)
		if recv != nil && !recv.Inst && len(recv.Steps) == 0 {
			// A type: T.init(…), T.Nested(…), T.staticF(); a module:
			// M.T(…), M.f().
			if name == "init" && recv.Name != "" {
				f.classRef(cx, line, recv)
				return
			}
			if name[0] >= 'A' && name[0] <= 'Z' {
				f.classRef(cx, line, &lang.Chain{Scope: recv.Scope, Name: dotted(recv.Name, name)})
				return
			}
		}
		if name == "init" {
			return
		}
		f.ref(cx, line, recv, name)
	}
}

// typeRef is the chain of the type a name names (not an instance).
func (f *file) typeRef(name string, cx *ctx) *lang.Chain {
	t := f.resolveType(name, cx)
	if t != nil {
		t.Inst = false
	}
	return t
}

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *file) exprChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "simple_identifier":
		name := f.ident(n)
		if t, ok := cx.locals[name]; ok {
			return copyChain(t)
		}
		for c := cx.cls; c != nil; c = c.outer {
			if t, ok := c.props[name]; ok {
				if t != nil {
					return copyChain(t)
				}
				return f.classChain(c).Then(name)
			}
		}
		if f.modules[name] && f.types[name] == nil {
			return &lang.Chain{Scope: "swift:" + name} // M.f(), M.T
		}
		if f.isTypeName(name, cx) {
			return f.typeRef(name, cx)
		}
		if t, ok := f.globals[name]; ok {
			return copyChain(t)
		}
		if cx.cls != nil {
			return f.classChain(cx.cls).Then(name)
		}
		return &lang.Chain{Scope: f.scope, Name: name}
	case "self_expression":
		if cx.cls != nil {
			return f.classChain(cx.cls)
		}
	case "try_expression", "await_expression":
		return f.exprChain(n.ChildByFieldName("expr"), cx)
	case "tuple_expression", "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return f.exprChain(n.NamedChild(0), cx)
		}
	case "postfix_expression":
		// x! and x?: the value itself.
		if t := n.ChildByFieldName("target"); t != nil {
			return f.exprChain(t, cx)
		}
	case "as_expression":
		if t := n.ChildByFieldName("type"); t != nil {
			return f.typeChain(t, cx)
		}
	case "navigation_expression":
		target, name := f.navigation(n)
		if target == nil || name == "" {
			return nil
		}
		if target.Kind() == "super_expression" {
			return nil
		}
		recv := f.exprChain(target, cx)
		if recv == nil {
			return nil
		}
		if !recv.Inst && len(recv.Steps) == 0 && name[0] >= 'A' && name[0] <= 'Z' {
			return &lang.Chain{Scope: recv.Scope, Name: dotted(recv.Name, name)}
		}
		return recv.Then(name)
	case "call_expression":
		if n.NamedChildCount() == 0 || isSubscript(n) {
			return nil
		}
		callee := n.NamedChild(0)
		switch callee.Kind() {
		case "simple_identifier":
			name := f.ident(callee)
			if _, local := cx.locals[name]; local {
				return nil
			}
			if f.isTypeName(name, cx) {
				return f.resolveType(name, cx)
			}
			recv, fn := f.ownerOf(name, cx)
			if fn {
				return &lang.Chain{Scope: f.scope, Name: name, Steps: []string{lang.CallStep}}
			}
			return recv.Then(name).Then(lang.CallStep)
		case "navigation_expression":
			target, name := f.navigation(callee)
			if target == nil || name == "" || target.Kind() == "super_expression" {
				return nil
			}
			recv := f.exprChain(target, cx)
			if recv == nil {
				return nil
			}
			if !recv.Inst && len(recv.Steps) == 0 {
				if name == "init" {
					recv.Inst = true
					return recv
				}
				if name[0] >= 'A' && name[0] <= 'Z' {
					return &lang.Chain{Scope: recv.Scope, Name: dotted(recv.Name, name), Inst: true}
				}
			}
			return recv.Then(name).Then(lang.CallStep)
		}
	}
	return nil
}

// dotted joins a type's (or a module's, "") name and a member's.
func dotted(outer, name string) string {
	if outer == "" {
		return name
	}
	return outer + "." + name
}

func copyChain(c *lang.Chain) *lang.Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append([]string(nil), c.Steps...)
	return &n
}
