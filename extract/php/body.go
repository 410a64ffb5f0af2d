package php

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// body is the scope of one function, method or file body: the values of
// its variables as far as they can be told.
type body struct {
	f     *file
	from  string // uid the calls come from
	class string // enclosing class, "" outside one
	// vars maps a variable ("$x") to its value; a nil value is a variable
	// whose assignments disagree (unknown).
	vars map[string]*lang.Chain
}

func (f *file) newBody(from, class string, params *sitter.Node) *body {
	b := &body{f: f, from: from, class: class, vars: map[string]*lang.Chain{}}
	b.params(params)
	return b
}

// params types the variables of typed parameters (promoted ones too).
func (b *body) params(params *sitter.Node) {
	for _, p := range ts.Children(params) {
		switch ts.Kind(&p) {
		case "simple_parameter", "property_promotion_parameter":
			name := ts.Text(ts.Field(&p, "name"), b.f.src)
			if name != "" {
				b.vars[name] = b.f.typeChain(ts.Field(&p, "type"), b.class)
			}
		}
	}
}

// body reads a function or method: its parameters, variables and calls.
func (f *file) body(n *sitter.Node, uid, class string) {
	b := f.newBody(uid, class, ts.Field(n, "parameters"))
	bd := ts.Field(n, "body")
	b.read(b.scan(bd))
}

// scan walks n once and returns, in document order, the nodes the body
// reads: assignments, closures, calls, news and includes. Nested class
// declarations are not entered.
func (b *body) scan(n *sitter.Node) []sitter.Node {
	var items []sitter.Node
	ts.WalkSym(n, func(x *sitter.Node, sym uint16) bool {
		switch sym {
		case idAssignment, idAnonFunction, idArrowFunction, idMemberCall, idNullsafeMemberCall, idScopedCall, idFunctionCall,
			idNew, idRequire, idRequireOnce, idInclude, idIncludeOnce:
			items = append(items, *x)
		case idAnonClass, idClassDecl, idInterfaceDecl, idTraitDecl, idEnumDecl:
			return false
		}
		return true
	})
	return items
}

// read types the variables from the assignments and closures of items,
// then reads their calls.
func (b *body) read(items []sitter.Node) {
	for i := range items {
		b.collect(&items[i])
	}
	for i := range items {
		b.use(&items[i])
	}
}

// collect reads one assignment (a variable whose assignments agree has
// their value) or closure (its typed parameters are variables too: PHP
// variables are function-wide).
func (b *body) collect(x *sitter.Node) {
	switch x.KindId() {
	case idAssignment:
		left := ts.Field(x, "left")
		if left == nil || left.KindId() != idVariableName {
			return
		}
		name := ts.Text(left, b.f.src)
		if name == "$this" {
			return
		}
		v := b.chainOf(ts.Field(x, "right"))
		if old, seen := b.vars[name]; seen && (old == nil || v == nil || lang.EncodeChains(old) != lang.EncodeChains(v)) {
			v = nil
		}
		b.vars[name] = v
	case idAnonFunction, idArrowFunction:
		b.params(ts.Field(x, "parameters"))
	}
}

// thisChain is the value of $this: an instance of the enclosing class.
func (b *body) thisChain() *lang.Chain {
	if b.class == "" {
		return nil
	}
	return &lang.Chain{Scope: b.f.scope, Name: b.class, Inst: true}
}

// classRef returns the class a static receiver (self, static, parent, a
// class name) names, as a chain to the class itself; super marks parent.
func (b *body) classRef(scope *sitter.Node) (c *lang.Chain, fqn string) {
	if scope == nil {
		return nil, ""
	}
	text := ts.Text(scope, b.f.src)
	switch strings.ToLower(text) {
	case "self", "static":
		if b.class == "" {
			return nil, ""
		}
		return &lang.Chain{Scope: b.f.scope, Name: b.class}, ""
	case "parent":
		if b.class == "" {
			return nil, ""
		}
		return &lang.Chain{Scope: b.f.scope, Name: b.class, Super: true}, ""
	}
	if ts.Kind(scope) != "name" && ts.Kind(scope) != "qualified_name" {
		return nil, ""
	}
	fqn = b.f.className(text)
	if fqn == "" {
		return nil, ""
	}
	s, short := splitFQN(fqn)
	return &lang.Chain{Scope: s, Name: short}, fqn
}

// chainOf returns the value of an expression, nil when unknown.
func (b *body) chainOf(n *sitter.Node) *lang.Chain {
	if n == nil {
		return nil
	}
	switch ts.Kind(n) {
	case "variable_name":
		name := ts.Text(n, b.f.src)
		if name == "$this" {
			return b.thisChain()
		}
		return b.vars[name]
	case "parenthesized_expression":
		for _, c := range ts.Children(n) {
			return b.chainOf(&c)
		}
	case "object_creation_expression":
		c, _ := b.newClass(n)
		if c == nil {
			return nil
		}
		c.Inst = true
		return c
	case "member_access_expression", "nullsafe_member_access_expression":
		name := ts.Field(n, "name")
		if name == nil || ts.Kind(name) != "name" {
			return nil
		}
		return b.chainOf(ts.Field(n, "object")).Then(ts.Text(name, b.f.src))
	case "member_call_expression", "nullsafe_member_call_expression":
		name := ts.Field(n, "name")
		if name == nil || ts.Kind(name) != "name" {
			return nil
		}
		return b.chainOf(ts.Field(n, "object")).Then(ts.Text(name, b.f.src)).Then(lang.CallStep)
	case "scoped_call_expression":
		name := ts.Field(n, "name")
		c, _ := b.classRef(ts.Field(n, "scope"))
		if c == nil || c.Super || name == nil || ts.Kind(name) != "name" {
			return nil
		}
		return c.Then(ts.Text(name, b.f.src)).Then(lang.CallStep)
	case "function_call_expression":
		fn := ts.Field(n, "function")
		if fn == nil || (ts.Kind(fn) != "name" && ts.Kind(fn) != "qualified_name") {
			return nil
		}
		scope, name, _ := b.f.functionName(ts.Text(fn, b.f.src))
		return &lang.Chain{Scope: scope, Name: name, Steps: []string{lang.CallStep}}
	}
	return nil
}

// newClass returns the class new X(…) constructs (a chain to the class)
// and its fully qualified name ("" for new self/static).
func (b *body) newClass(n *sitter.Node) (*lang.Chain, string) {
	kids := ts.Children(n)
	if len(kids) == 0 {
		return nil, ""
	}
	switch c := &kids[0]; ts.Kind(c) {
	case "name", "qualified_name", "relative_scope":
		ch, fqn := b.classRef(c)
		if ch == nil || ch.Super {
			return nil, ""
		}
		return ch, fqn
	}
	return nil, ""
}

// use reads one call, new or include.
func (b *body) use(x *sitter.Node) {
	f := b.f
	switch x.KindId() {
	case idMemberCall, idNullsafeMemberCall:
		name := ts.Field(x, "name")
		if name == nil || name.KindId() != idName {
			return
		}
		m := ts.Text(name, f.src)
		b.call(x, b.chainOf(ts.Field(x, "object")), m, "*."+m)
	case idScopedCall:
		name := ts.Field(x, "name")
		if name == nil || name.KindId() != idName {
			return
		}
		m := ts.Text(name, f.src)
		recv, fqn := b.classRef(ts.Field(x, "scope"))
		stub := "*." + m
		if fqn != "" {
			stub = fqn + "::" + m
		}
		b.call(x, recv, m, stub)
	case idFunctionCall:
		fn := ts.Field(x, "function")
		if fn == nil || (fn.KindId() != idName && fn.KindId() != idQualifiedName) {
			return
		}
		scope, name, stub := f.functionName(ts.Text(fn, f.src))
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Scope: scope, Name: name, Stub: stub})
	case idNew:
		c, fqn := b.newClass(x)
		if c == nil {
			return
		}
		stub := fqn
		if stub == "" {
			stub = c.Name
		}
		f.fr.Refs = append(f.fr.Refs,
			lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Scope: c.Scope, Name: c.Name, Stub: stub},
			lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Recv: c, Name: "__construct"})
	case idRequire, idRequireOnce, idInclude, idIncludeOnce:
		f.include(x)
	}
}

// call adds a call of the member m on recv (nil: unknown, the stub).
func (b *body) call(x *sitter.Node, recv *lang.Chain, m, stub string) {
	r := lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Name: m, Stub: stub}
	if recv == nil {
		r.Name = ""
	} else {
		r.Recv = recv
	}
	b.f.fr.Refs = append(b.f.fr.Refs, r)
}
