package scala

import (
	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Symbol ids of the node kinds visit switches on.
var (
	kValDefinition      = language.IdForNodeKind("val_definition", true)
	kVarDefinition      = language.IdForNodeKind("var_definition", true)
	kFunctionDefinition = language.IdForNodeKind("function_definition", true)
	kLambdaExpression   = language.IdForNodeKind("lambda_expression", true)
	kCaseClause         = language.IdForNodeKind("case_clause", true)
	kEnumerator         = language.IdForNodeKind("enumerator", true)
	kCallExpression     = language.IdForNodeKind("call_expression", true)
	kInstanceExpression = language.IdForNodeKind("instance_expression", true)
	kInfixExpression    = language.IdForNodeKind("infix_expression", true)
	kPostfixExpression  = language.IdForNodeKind("postfix_expression", true)
	kClassDefinition    = language.IdForNodeKind("class_definition", true)
	kObjectDefinition   = language.IdForNodeKind("object_definition", true)
	kTraitDefinition    = language.IdForNodeKind("trait_definition", true)
)

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
	switch n.KindId() {
	case kValDefinition, kVarDefinition:
		v := n.ChildByFieldName("value")
		f.walk(v, cx)
		names := patternNames(n, f.src)
		var t *lang.Chain
		if len(names) == 1 {
			if tn := n.ChildByFieldName("type"); tn != nil {
				t = f.typeChain(tn, cx)
			} else {
				t = f.exprChain(v, cx)
			}
		}
		for _, nm := range names {
			cx.locals[nm] = t
		}
		return false
	case kFunctionDefinition:
		// A local def: its calls belong to the enclosing node; calling
		// it calls no node.
		if nm := n.ChildByFieldName("name"); nm != nil {
			cx.locals[ts.Text(nm, f.src)] = nil
		}
		inner := f.inner(cx)
		f.params(n, inner)
		f.walk(n.ChildByFieldName("body"), inner)
		return false
	case kLambdaExpression:
		inner := f.inner(cx)
		if p := n.ChildByFieldName("parameters"); p != nil {
			switch p.Kind() {
			case "identifier":
				inner.locals[ts.Text(p, f.src)] = nil
			case "bindings":
				for _, b := range ts.Children(p) {
					if b.Kind() == "binding" {
						f.local(b.ChildByFieldName("name"), f.typeChain(b.ChildByFieldName("type"), cx), inner)
					}
				}
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if k := n.NamedChild(i); k != nil && k.Kind() != "bindings" && k.Kind() != "type_parameters" {
				if p := n.ChildByFieldName("parameters"); p == nil || k.StartByte() != p.StartByte() {
					f.walk(k, inner)
				}
			}
		}
		return false
	case kCaseClause:
		inner := f.inner(cx)
		f.bindPattern(n.ChildByFieldName("pattern"), inner)
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if k := n.NamedChild(i); k != nil {
				if p := n.ChildByFieldName("pattern"); p == nil || k.StartByte() != p.StartByte() {
					f.walk(k, inner)
				}
			}
		}
		return false
	case kEnumerator:
		kids := ts.Children(n)
		for i := range kids {
			if i == 0 && len(kids) > 1 {
				f.bindPattern(&kids[0], cx)
				continue
			}
			f.walk(&kids[i], cx)
		}
		return false
	case kClassDefinition, kObjectDefinition, kTraitDefinition:
		// A local type: its code belongs to the enclosing node.
		inner := f.inner(cx)
		for _, p := range classParams(n) {
			f.local(p.ChildByFieldName("name"), f.typeChain(p.ChildByFieldName("type"), cx), inner)
		}
		f.walk(n.ChildByFieldName("body"), inner)
		return false
	case kCallExpression:
		f.call(n, cx)
	case kInstanceExpression:
		f.classRef(cx, ts.Line(n), f.newType(n, cx))
	case kInfixExpression:
		op := n.ChildByFieldName("operator")
		if op != nil && op.Kind() == "identifier" {
			f.ref(cx, ts.Line(op), f.exprChain(n.ChildByFieldName("left"), cx), ts.Text(op, f.src))
		}
	case kPostfixExpression:
		if n.NamedChildCount() == 2 {
			if op := n.NamedChild(1); op != nil && op.Kind() == "identifier" {
				f.ref(cx, ts.Line(op), f.exprChain(n.NamedChild(0), cx), ts.Text(op, f.src))
			}
		}
	}
	return true
}

// inner is a nested scope of cx: same node and class, its own locals.
func (f *file) inner(cx *ctx) *ctx {
	locals := make(map[string]*lang.Chain, len(cx.locals)+2)
	for k, v := range cx.locals {
		locals[k] = v
	}
	return &ctx{from: cx.from, cls: cx.cls, tparams: cx.tparams, locals: locals}
}

// bindPattern makes the names a pattern binds locals: x: T typed, the
// others unknown.
func (f *file) bindPattern(p *sitter.Node, cx *ctx) {
	if p == nil {
		return
	}
	switch p.Kind() {
	case "identifier":
		cx.locals[ts.Text(p, f.src)] = nil
		return
	case "typed_pattern":
		if in := p.ChildByFieldName("pattern"); in != nil && in.Kind() == "identifier" {
			cx.locals[ts.Text(in, f.src)] = f.typeChain(p.ChildByFieldName("type"), cx)
			return
		}
	case "case_class_pattern":
		for i := uint(0); i < p.NamedChildCount(); i++ {
			if k := p.NamedChild(i); k != nil && p.FieldNameForNamedChild(uint32(i)) == "pattern" {
				f.bindPattern(k, cx)
			}
		}
		return
	}
	for i := uint(0); i < p.NamedChildCount(); i++ {
		if k := p.NamedChild(i); k != nil {
			f.bindPattern(k, cx)
		}
	}
}

// ref appends a call reference from the walk's node.
func (f *file) ref(cx *ctx, line int, recv *lang.Chain, name string) {
	if name == "" {
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Recv: recv, Name: name, Stub: "*." + name})
}

// classRef appends a call of a class (a constructor or an apply).
func (f *file) classRef(cx *ctx, line int, t *lang.Chain) {
	if t == nil {
		return
	}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: t.Scope, Name: t.Name})
}

// newType is the type new T(…) constructs.
func (f *file) newType(n *sitter.Node, cx *ctx) *lang.Chain {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		k := n.NamedChild(i)
		if k == nil || k.Kind() == "arguments" || k.Kind() == "template_body" {
			continue
		}
		return f.typeChain(k, cx)
	}
	return nil
}

// thisChain is what this names in cx; nil outside a type.
func (f *file) thisChain(cx *ctx) *lang.Chain {
	if cx.cls == nil {
		return nil
	}
	return f.classChain(cx.cls)
}

// superChain is what super names in cx.
func (f *file) superChain(cx *ctx) *lang.Chain {
	if cx.cls == nil {
		return nil
	}
	c := f.classChain(cx.cls)
	c.Super = true
	return c
}

// ownerOf finds the receiver of an unqualified call of m: the innermost
// enclosing type declaring m, a top-level def of the file (top true), a
// member imported from an object, else the innermost type (its bases).
func (f *file) ownerOf(m string, cx *ctx) (recv *lang.Chain, top bool) {
	for c := cx.cls; c != nil; c = c.outer {
		if c.methods[m] {
			return f.classChain(c), false
		}
	}
	if f.defs[m] {
		return nil, true
	}
	if _, ok := f.tops[m]; ok {
		return nil, true
	}
	if o, ok := f.imported[m]; ok {
		return &lang.Chain{Scope: o.Scope, Name: o.Name}, false
	}
	if cx.cls == nil {
		if len(f.ostars) > 0 {
			return &lang.Chain{Scope: f.ostars[0].Scope, Name: f.ostars[0].Name}, false
		}
		return nil, true
	}
	return f.thisChain(cx), false
}

// topScope is the scope a top-level def called unqualified is looked up
// in: the file's own, the package it was imported from, else the search
// scope.
func (f *file) topScope(name string) string {
	if f.defs[name] {
		return f.scope
	}
	if s, ok := f.tops[name]; ok {
		return s
	}
	return f.search
}

// call handles a call expression f(…), x.m(…), T(…), f[T](…).
func (f *file) call(n *sitter.Node, cx *ctx) {
	fn := n.ChildByFieldName("function")
	if fn != nil && fn.Kind() == "generic_function" {
		fn = fn.ChildByFieldName("function")
	}
	if fn == nil {
		return
	}
	switch fn.Kind() {
	case "identifier":
		name := ts.Text(fn, f.src)
		line := ts.Line(fn)
		if _, local := cx.locals[name]; local {
			return // a function value (x.apply)
		}
		if isUpper(name) {
			if !f.isField(name, cx) {
				f.classRef(cx, line, f.resolveType(name, cx)) // T(…): the companion's apply
				return
			}
		}
		recv, top := f.ownerOf(name, cx)
		if top {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: cx.from, Line: line, Scope: f.topScope(name), Name: name, Stub: "*." + name})
			return
		}
		f.ref(cx, line, recv, name)
	case "field_expression":
		name := ts.Text(fn.ChildByFieldName("field"), f.src)
		line := ts.Line(fn.ChildByFieldName("field"))
		f.ref(cx, line, f.valueChain(fn.ChildByFieldName("value"), cx), name)
	}
}

// isField reports whether name is a field of an enclosing type.
func (f *file) isField(name string, cx *ctx) bool {
	for c := cx.cls; c != nil; c = c.outer {
		if _, ok := c.fields[name]; ok {
			return true
		}
	}
	return false
}

// valueChain is the receiver of a member access: this, super, or an
// expression.
func (f *file) valueChain(v *sitter.Node, cx *ctx) *lang.Chain {
	if v == nil {
		return nil
	}
	if v.Kind() == "identifier" {
		switch ts.Text(v, f.src) {
		case "this":
			return f.thisChain(cx)
		case "super":
			return f.superChain(cx)
		}
	}
	return f.exprChain(v, cx)
}

// maxSteps bounds the steps of a receiver chain: each step copies the
// chain, so a.b.c… n long would cost n² (a hostile file of 20,000 steps).
const maxSteps = 32

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *file) exprChain(n *sitter.Node, cx *ctx) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		name := ts.Text(n, f.src)
		if name == "this" {
			return f.thisChain(cx)
		}
		if t, ok := cx.locals[name]; ok {
			return copyChain(t)
		}
		for c := cx.cls; c != nil; c = c.outer {
			if t, ok := c.fields[name]; ok {
				return copyChain(t)
			}
		}
		if isUpper(name) {
			if t := f.resolveType(name, cx); t != nil {
				t.Inst = false // an object, or a companion
				return t
			}
			return nil
		}
		if this := f.thisChain(cx); this != nil && !f.defs[name] {
			return this.Then(name) // an inherited field or a parameterless def
		}
		return nil
	case "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return f.exprChain(n.NamedChild(0), cx)
		}
	case "instance_expression":
		return f.newType(n, cx)
	case "field_expression":
		fld := ts.Text(n.ChildByFieldName("field"), f.src)
		oc := f.valueChain(n.ChildByFieldName("value"), cx)
		if oc == nil || oc.Super || len(oc.Steps) >= maxSteps {
			return nil
		}
		if !oc.Inst && len(oc.Steps) == 0 && isUpper(fld) {
			return &lang.Chain{Scope: oc.Scope, Name: oc.Name + "." + fld} // a nested object
		}
		return oc.Then(fld)
	case "call_expression":
		fn := n.ChildByFieldName("function")
		if fn != nil && fn.Kind() == "generic_function" {
			fn = fn.ChildByFieldName("function")
		}
		if fn == nil {
			return nil
		}
		switch fn.Kind() {
		case "identifier":
			name := ts.Text(fn, f.src)
			if _, local := cx.locals[name]; local {
				return nil
			}
			if isUpper(name) && !f.isField(name, cx) {
				return f.resolveType(name, cx) // T(…): an instance of T
			}
			recv, top := f.ownerOf(name, cx)
			if top {
				return &lang.Chain{Scope: f.topScope(name), Name: name, Steps: []string{lang.CallStep}}
			}
			if recv == nil {
				return nil
			}
			return recv.Then(name).Then(lang.CallStep)
		case "field_expression":
			recv := f.valueChain(fn.ChildByFieldName("value"), cx)
			if recv == nil || recv.Super || len(recv.Steps) >= maxSteps {
				return nil
			}
			return recv.Then(ts.Text(fn.ChildByFieldName("field"), f.src)).Then(lang.CallStep)
		}
	}
	return nil
}

func copyChain(c *lang.Chain) *lang.Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append([]string(nil), c.Steps...)
	return &n
}
