package csharp

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// ctx is where code is read: the node calls come from, the type this
// names, the namespace, the member's type parameters and locals.
type ctx struct {
	from    string
	cls     *class
	ns      string
	tparams map[string]bool
	locals  map[string]*lang.Chain // nil value: a local of unknown type
	member  *member
}

// member is what one member's code shares across its lambdas and local
// functions: the local functions declared, and the unqualified calls made
// (indexes into Result.Refs), dropped at the end when they name a local
// function (which may be declared after the call).
type member struct {
	localFn map[string]bool
	unq     []int
}

func (c *ctx) with(locals map[string]*lang.Chain) *ctx {
	n := *c
	n.locals = locals
	return &n
}

func cloneLocals(m map[string]*lang.Chain) map[string]*lang.Chain {
	out := make(map[string]*lang.Chain, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// initialiser is the value of a variable declarator (nil without one).
func initialiser(d *sitter.Node) *sitter.Node {
	name := d.ChildByFieldName("name")
	for i := d.NamedChildCount(); i > 0; i-- {
		k := d.NamedChild(i - 1)
		if name != nil && k.StartByte() == name.StartByte() {
			return nil
		}
		switch k.Kind() {
		case "bracketed_argument_list", "tuple_pattern":
			continue
		}
		return k
	}
	return nil
}

// params types a method's, lambda's or local function's parameters.
func (f *file) params(ps *sitter.Node, cx *ctx) {
	if ps == nil {
		return
	}
	for _, p := range ts.Children(ps) {
		if p.Kind() == "parameter" {
			f.local(p.ChildByFieldName("name"), f.typeChain(p.ChildByFieldName("type"), cx), cx)
		}
	}
}

func (f *file) local(name *sitter.Node, t *lang.Chain, cx *ctx) {
	if name == nil || cx.locals == nil {
		return
	}
	cx.locals[ts.Text(name, f.src)] = t
}

// ref appends a call reference from the context's node.
func (f *file) ref(cx *ctx, line int, recv *lang.Chain, name string) {
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name, Stub: "*." + name})
}

// classRef appends a call of a type (a constructor).
func (f *file) classRef(cx *ctx, line int, t *lang.Chain) {
	if t == nil {
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: t.Scope, Name: t.Name})
}

// thisChain is what this names in cx; nil outside a type.
func (f *file) thisChain(c *class) *lang.Chain {
	if c == nil {
		return nil
	}
	return f.classChain(c)
}

// ownerOf finds the receiver of an unqualified call of m: the innermost
// enclosing type declaring m in the file, else the first using static
// type of a type without bases, else the innermost type (through its
// bases).
func (f *file) ownerOf(m string, cx *ctx) *lang.Chain {
	for c := cx.cls; c != nil; c = c.outer {
		if c.methods[m] {
			return f.classChain(c)
		}
	}
	if len(f.statics) > 0 && (cx.cls == nil || !cx.cls.hasBase) {
		return copyChain(f.statics[0])
	}
	return f.thisChain(cx.cls)
}

// memberName is the identifier of a member access's name (M of M<T>).
func (f *file) memberName(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind() == "generic_name" {
		for _, k := range ts.Children(n) {
			if k.Kind() == "identifier" {
				return ts.Text(&k, f.src)
			}
		}
		return ""
	}
	return ts.Text(n, f.src)
}

// isValue reports whether an unqualified name is a local, a parameter or
// a field of an enclosing type (a delegate when called).
func (f *file) isValue(name string, cx *ctx) bool {
	if _, ok := cx.locals[name]; ok {
		return true
	}
	for c := cx.cls; c != nil; c = c.outer {
		if _, ok := c.fields[name]; ok && !c.methods[name] {
			return true
		}
	}
	return false
}

// call handles an invocation.
func (f *file) call(n *sitter.Node, cx *ctx) {
	fn := n.ChildByFieldName("function")
	if fn == nil {
		return
	}
	switch fn.Kind() {
	case "identifier", "generic_name":
		name := f.memberName(fn)
		if name == "" || f.isValue(name, cx) || name == "nameof" {
			return
		}
		if cx.member != nil {
			cx.member.unq = append(cx.member.unq, len(f.fr.Refs))
		}
		f.ref(cx, ts.Line(fn), f.ownerOf(name, cx), name)
	case "member_access_expression":
		nameNode := fn.ChildByFieldName("name")
		name := f.memberName(nameNode)
		if name == "" {
			return
		}
		f.ref(cx, ts.Line(nameNode), f.receiver(fn.ChildByFieldName("expression"), cx), name)
	case "conditional_access_expression": // a?.M()
		if nameNode, recv := f.conditional(fn, cx); nameNode != nil {
			f.ref(cx, ts.Line(nameNode), recv, f.memberName(nameNode))
		}
	}
}

// conditional reads a?.M: the name node of M and the chain of a; a nil
// name when the access is no member binding (a?[i]).
func (f *file) conditional(n *sitter.Node, cx *ctx) (*sitter.Node, *lang.Chain) {
	for i := n.NamedChildCount(); i > 0; i-- {
		k := n.NamedChild(i - 1)
		if k.Kind() == "member_binding_expression" {
			nameNode := k.ChildByFieldName("name")
			if f.memberName(nameNode) == "" {
				return nil, nil
			}
			return nameNode, f.exprChain(n.ChildByFieldName("condition"), cx)
		}
	}
	return nil, nil
}

// receiver is the chain of a member access's object: this, base (the
// type's bases) or an expression.
func (f *file) receiver(obj *sitter.Node, cx *ctx) *lang.Chain {
	if obj == nil {
		return nil
	}
	switch obj.Kind() {
	case "this":
		return f.thisChain(cx.cls)
	case "base":
		if cx.cls == nil {
			return nil
		}
		r := f.classChain(cx.cls)
		r.Super = true
		return r
	}
	return f.exprChain(obj, cx)
}

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *file) exprChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		name := ts.Text(n, f.src)
		if t, ok := cx.locals[name]; ok {
			return copyChain(t)
		}
		for c := cx.cls; c != nil; c = c.outer {
			if t, ok := c.fields[name]; ok {
				return copyChain(t)
			}
		}
		if c := f.fileClass(name, cx); c != nil {
			t := f.classChain(c)
			t.Inst = false
			return t
		}
		if t, ok := f.aliases[name]; ok {
			t = copyChain(t)
			t.Inst = false
			return t
		}
		if isUpper(name) {
			// A type of another file (or an inherited property).
			if cx.tparams[name] {
				return nil
			}
			return &lang.Chain{Scope: f.list(cx.ns), Name: name}
		}
		if this := f.thisChain(cx.cls); this != nil {
			return this.Then(name)
		}
		return nil
	case "this":
		return f.thisChain(cx.cls)
	case "generic_name", "qualified_name", "alias_qualified_name":
		t := f.typeChain(n, cx)
		if t != nil {
			t.Inst = false
		}
		return t
	case "parenthesized_expression":
		if kids := ts.Children(n); len(kids) == 1 {
			return f.exprChain(&kids[0], cx)
		}
	case "cast_expression":
		return f.typeChain(n.ChildByFieldName("type"), cx)
	case "as_expression":
		return f.typeChain(n.ChildByFieldName("right"), cx)
	case "object_creation_expression":
		return f.typeChain(n.ChildByFieldName("type"), cx)
	case "member_access_expression":
		obj := n.ChildByFieldName("expression")
		name := f.memberName(n.ChildByFieldName("name"))
		if obj == nil || name == "" {
			return nil
		}
		if obj.Kind() == "base" {
			return nil
		}
		oc := f.receiver(obj, cx)
		if oc == nil {
			return nil
		}
		if !oc.Inst && len(oc.Steps) == 0 && strings.HasPrefix(oc.Scope, scopeListPrefix) && isUpper(name) {
			// A dotted name of another file: a namespace-qualified
			// type, a nested type or a static member, decided by
			// resolve's lookup.
			return &lang.Chain{Scope: oc.Scope, Name: oc.Name + "." + name}
		}
		return oc.Then(name)
	case "invocation_expression":
		fn := n.ChildByFieldName("function")
		if fn == nil {
			return nil
		}
		var recv *lang.Chain
		var name string
		switch fn.Kind() {
		case "identifier", "generic_name":
			name = f.memberName(fn)
			if f.isValue(name, cx) || (cx.member != nil && cx.member.localFn[name]) {
				return nil
			}
			recv = f.ownerOf(name, cx)
		case "member_access_expression":
			name = f.memberName(fn.ChildByFieldName("name"))
			recv = f.receiver(fn.ChildByFieldName("expression"), cx)
		case "conditional_access_expression":
			var nameNode *sitter.Node
			if nameNode, recv = f.conditional(fn, cx); nameNode != nil {
				name = f.memberName(nameNode)
			}
		}
		if recv == nil || name == "" || recv.Super {
			return nil
		}
		return recv.Then(name).Then(lang.CallStep)
	}
	return nil
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

func copyChain(c *lang.Chain) *lang.Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append([]string(nil), c.Steps...)
	return &n
}

// typeChain is the chain of an instance of the type node t; nil for
// predefined types, arrays, tuples, pointers, type parameters and var.
func (f *file) typeChain(t *sitter.Node, cx *ctx) *lang.Chain {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case "identifier":
		return f.resolveType(ts.Text(t, f.src), cx)
	case "generic_name":
		for _, k := range ts.Children(t) {
			if k.Kind() == "identifier" {
				return f.resolveType(ts.Text(&k, f.src), cx)
			}
		}
	case "qualified_name", "alias_qualified_name":
		return f.resolveDotted(strings.TrimPrefix(stripGenerics(ts.Text(t, f.src)), "global::"), cx)
	case "nullable_type", "ref_type", "scoped_type":
		return f.typeChain(t.ChildByFieldName("type"), cx)
	}
	return nil
}

// stripGenerics drops type arguments and whitespace from a type's text.
func stripGenerics(s string) string {
	if !strings.ContainsAny(s, "< \t\r\n") {
		return s
	}
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

// fileClass finds a type of the file by a simple or dotted name seen in
// cx: a nested type of an enclosing type, an enclosing type, a type of
// the namespace or of a parent namespace.
func (f *file) fileClass(name string, cx *ctx) *class {
	if cx == nil || name == "" {
		return nil
	}
	if cx.tparams[name] {
		return nil
	}
	for c := cx.cls; c != nil; c = c.outer {
		if c.tparams[name] {
			return nil
		}
		if k, ok := f.classes[c.fq+"."+name]; ok {
			return k
		}
		if c.simple == name {
			return c
		}
	}
	for ns := cx.ns; ; {
		if k, ok := f.classes[join(ns, name)]; ok {
			return k
		}
		if ns == "" {
			return nil
		}
		if i := strings.LastIndexByte(ns, '.'); i >= 0 {
			ns = ns[:i]
		} else {
			ns = ""
		}
	}
}

// resolveType resolves a simple type name seen in cx: a type of the
// file, a using alias, else the name in the namespace's scope list.
func (f *file) resolveType(name string, cx *ctx) *lang.Chain {
	if name == "" || name == "var" || name == "dynamic" {
		return nil
	}
	if cx.tparams[name] {
		return nil
	}
	for c := cx.cls; c != nil; c = c.outer {
		if c.tparams[name] {
			return nil
		}
	}
	if c := f.fileClass(name, cx); c != nil {
		return f.classChain(c)
	}
	if t, ok := f.aliases[name]; ok {
		t = copyChain(t)
		t.Inst = true
		return t
	}
	return &lang.Chain{Scope: f.list(cx.ns), Name: name, Inst: true}
}

// resolveDotted resolves A.B.C: a type A of the file or an alias (then
// its nested B.C), else the dotted name in the namespace's scope list
// (a namespace-qualified type, decided by resolve).
func (f *file) resolveDotted(q string, cx *ctx) *lang.Chain {
	head, rest, dotted := strings.Cut(q, ".")
	if !dotted {
		return f.resolveType(q, cx)
	}
	if c := f.fileClass(head, cx); c != nil {
		t := f.classChain(c)
		t.Name += "." + rest
		return t
	}
	if t, ok := f.aliases[head]; ok {
		return &lang.Chain{Scope: t.Scope, Name: t.Name + "." + rest, Inst: true}
	}
	if c := f.fileClass(q, cx); c != nil {
		return f.classChain(c)
	}
	return &lang.Chain{Scope: f.list(cx.ns), Name: q, Inst: true}
}
