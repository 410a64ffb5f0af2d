package jsts

import (
	"bytes"
	"strconv"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// Reading JavaScript and TypeScript code for calls. A function is read in
// one walk that does not enter the functions nested in it: it declares
// the function's locals (parameters, variables, nested declarations, with
// the chains of their values), collects its return values, calls and
// nested functions; the calls are then resolved against the complete
// scope (hoisting: a local declared below its use still shadows), and
// each nested function is read the same way with this scope as parent.
// Every node is visited once whatever the nesting.

// jsFunc describes a function about to be read: its node, the node its
// calls are attributed to, and the key of its return fact ("" for none).
type jsFunc struct {
	node   *sitter.Node
	ctx    jsCtx
	retKey string
	// arg, for a function passed as an argument, types its untyped
	// parameters from the declaration of the function it is passed to.
	arg *jsArg
}

// jsArg is a function passed as argument index of a call of callee, or
// a callback whose first parameter is first (an array's element).
type jsArg struct {
	callee *lang.Chain
	index  int
	first  *lang.Chain
}

// param is the value of parameter i of a function passed as a (nil when
// unknown).
func (a *jsArg) param(i int) *lang.Chain {
	switch {
	case a == nil:
		return nil
	case a.first != nil:
		if i == 0 {
			return a.first
		}
		return nil
	}
	return a.callee.Then(lang.ParamStep + strconv.Itoa(a.index) + "." + strconv.Itoa(i))
}

// function reads a function-like node (declaration, expression, arrow,
// method): its parameters and locals in a new scope, its declared or
// inferred return value, its calls.
func (js *jsFile) function(f jsFunc) {
	n := f.node
	sc := &jsScope{parent: f.ctx.scope}
	ctx := f.ctx
	ctx.scope = sc
	js.typeParams(n, sc, false)
	if p := js.field(n, "parameter"); p != nil { // x => …
		sc.declare(ts.Text(p, js.src), f.arg.param(0))
	}
	if f.arg != nil && f.arg.callee != nil && n.KindId() != js.grammar.arrow { // this: a callback's this parameter
		ctx.this, ctx.thisPrefix = f.arg.callee.Then(lang.ParamStep+strconv.Itoa(f.arg.index)+".this"), ""
	}
	ctor := js.kind(n) == "method_definition" && ts.Text(js.field(n, "name"), js.src) == "constructor"
	// sig holds the signature's types and default values, for its
	// references.
	var sig jsSignature
	i := 0
	for _, p := range ts.Children(js.field(n, "parameters")) {
		if js.thisParam(&p) { // function (this: C, …)
			if t := js.field(&p, "type"); t != nil {
				ctx.this, ctx.thisPrefix = js.typeChain(t, &ctx), ""
				sig.types = append(sig.types, t)
			}
			continue
		}
		c, t, v := js.param(&p, &ctx, ctor, f.arg.param(i))
		if f.retKey != "" && c == nil {
			js.callbackFacts(f.retKey, i, &p, &ctx)
		}
		if t != nil {
			sig.types = append(sig.types, t)
		}
		if v != nil {
			sig.values = append(sig.values, v)
		}
		i++
	}
	rt, tp := js.field(n, "return_type"), js.field(n, "type_parameters")
	sig.types = append(sig.types, rt, tp)
	if js.reading {
		js.signatureRefs(&sig, ctx)
	} else { // an interface's method signature, read with its declaration
		js.later(func() { js.signatureRefs(&sig, ctx) })
	}
	body := js.field(n, "body")
	if body == nil {
		if f.retKey != "" {
			js.fact(lang.FactReturn+f.retKey, js.typeChain(rt, js.outside(&ctx)))
		}
		return
	}
	var b jsBody
	if js.kind(body) == "statement_block" {
		b = js.read(body, &ctx, true)
	} else {
		b = js.read(body, &ctx, false)
		b.returns = []*sitter.Node{body} // an arrow's expression body
	}
	if f.retKey != "" {
		var c *lang.Chain
		if rt != nil {
			c = js.typeChain(rt, js.outside(&ctx))
		} else if tp == nil { // a generic's return depends on its caller
			c = js.sameReturn(b.returns, &ctx)
		}
		js.fact(lang.FactReturn+f.retKey, c)
		if js.kind(n) == "method_definition" && js.hasToken(n, "get") {
			js.fr.Decl.SetFact(lang.FactAttr+f.retKey, c) // reading a getter is its value
		}
	}
	js.finish(&b, ctx)
}

// fact records a fact that every declaration of a name must agree on
// (the signatures of an overloaded function): a second, different value
// removes it for good. A nil value (unknown) is no vote.
func (js *jsFile) fact(key string, c *lang.Chain) {
	if c == nil || js.conflict[key] {
		return
	}
	if old, ok := js.fr.Decl.Facts[key]; ok {
		if old != lang.EncodeChains(c) {
			delete(js.fr.Decl.Facts, key)
			js.conflict[key] = true
		}
		return
	}
	js.fr.Decl.SetFact(key, c)
}

// thisParam reports whether a parameter is TypeScript's this
// parameter, which takes no argument.
func (js *jsFile) thisParam(p *sitter.Node) bool {
	pat := js.field(p, "pattern")
	return pat != nil && js.kind(pat) == "this"
}

// callbackFacts records, for a parameter i of the function key whose type
// is a function type, the types of that function's parameters
// (factParam): a function passed there gets them.
func (js *jsFile) callbackFacts(key string, i int, p *sitter.Node, ctx *jsCtx) {
	ft := js.functionType(js.field(p, "type"))
	if ft == nil {
		return
	}
	j := 0
	for _, q := range ts.Children(js.field(ft, "parameters")) {
		if js.thisParam(&q) {
			if t := js.field(&q, "type"); t != nil {
				js.fact(lang.FactParam+key+lang.ParamStep+strconv.Itoa(i)+".this", js.typeChain(t, js.outside(ctx)))
			}
			continue
		}
		if t := js.field(&q, "type"); t != nil {
			js.fact(lang.FactParam+key+lang.ParamStep+strconv.Itoa(i)+"."+strconv.Itoa(j), js.typeChain(t, js.outside(ctx)))
		}
		j++
	}
}

// sameReturn is the value every return statement of a function returns,
// when they agree and it is known.
func (js *jsFile) sameReturn(returns []*sitter.Node, ctx *jsCtx) *lang.Chain {
	var out *lang.Chain
	for _, r := range returns {
		c := js.valueChain(r, ctx)
		if c == nil || (out != nil && lang.EncodeChains(out) != lang.EncodeChains(c)) {
			return nil
		}
		out = c
	}
	return out
}

// typeParams declares a declaration's type parameters, which shadow the
// types they spell: inside, a T extends C is a C; to the callers of a
// class or interface (defaults), a T = D is a D.
func (js *jsFile) typeParams(n *sitter.Node, sc *jsScope, defaults bool) {
	for _, tp := range ts.Children(js.field(n, "type_parameters")) {
		name := ts.Text(js.field(&tp, "name"), js.src)
		if name == "" {
			continue
		}
		var c, d *lang.Chain
		if con := js.field(&tp, "constraint"); con != nil && con.NamedChildCount() == 1 {
			c = js.typeChain(con.NamedChild(0), &jsCtx{scope: sc})
		}
		if def := js.field(&tp, "value"); defaults && def != nil && def.NamedChildCount() == 1 {
			d = js.typeChain(def.NamedChild(0), &jsCtx{scope: sc, outside: true})
		}
		if sc.types == nil {
			sc.types, sc.outer = map[string]*lang.Chain{}, map[string]*lang.Chain{}
		}
		sc.types[name], sc.outer[name] = c, d
	}
}

// param declares a formal parameter (given is its value when it has no
// annotation or default) and returns the chain of its declared type, its
// type annotation and its default value; in a constructor, a TypeScript
// parameter property (private x: C) is also an attribute of the class.
func (js *jsFile) param(p *sitter.Node, ctx *jsCtx, ctor bool, given *lang.Chain) (typed *lang.Chain, typ, def *sitter.Node) {
	var c *lang.Chain
	pat := p
	switch js.kind(p) {
	case "required_parameter", "optional_parameter":
		pat = js.field(p, "pattern")
		typ = js.field(p, "type")
		if bytes.IndexByte(js.bytes(p), '=') >= 0 {
			def = js.field(p, "value")
		}
		if t := typ; t != nil {
			c = js.typeChain(t, ctx)
			typed = c
			if elem := js.elemType(t, ctx); elem != nil && pat != nil && js.kind(pat) == "identifier" {
				ctx.scope.declare(ts.Text(pat, js.src)+elemSuffix, elem)
				if ctor && ctx.class != "" && js.paramProperty(p) {
					js.fr.Decl.SetFact(lang.FactAttr+ctx.class+"."+ts.Text(pat, js.src)+elemSuffix, js.elemType(t, js.outside(ctx)))
				}
			}
		} else if def != nil {
			c = js.valueChain(def, ctx)
		} else {
			c = given
		}
		if t := typ; ctor && ctx.class != "" && t != nil && pat != nil && js.kind(pat) == "identifier" && js.paramProperty(p) {
			js.fr.Decl.SetFact(lang.FactAttr+ctx.class+"."+ts.Text(pat, js.src), js.typeChain(t, js.outside(ctx)))
		}
	case "assignment_pattern":
		pat = js.field(p, "left")
		def = js.field(p, "right")
		c = js.valueChain(def, ctx)
	case "identifier":
		c = given
	}
	js.declarePattern(pat, c, ctx.scope)
	return typed, typ, def
}

// paramProperty reports whether a constructor parameter is also a
// property (private x: C, readonly x: C).
func (js *jsFile) paramProperty(p *sitter.Node) bool {
	for i := uint(0); i < p.ChildCount(); i++ {
		if k := js.kind(p.Child(i)); k == "accessibility_modifier" || k == "readonly" || k == "override_modifier" {
			return true
		}
	}
	return false
}

// forOf reports whether a for_in_statement is for … of.
func (js *jsFile) forOf(n *sitter.Node) bool {
	for i := uint(0); i < n.ChildCount(); i++ {
		if c := n.Child(i); c != nil && !c.IsNamed() && js.kind(c) == "of" {
			return true
		}
	}
	return false
}

// declarePattern declares the names of a binding pattern whose value is
// c: an identifier gets c, a property of an object pattern (const {a, b:
// x} = c) the attribute of c, anything deeper nothing known.
func (js *jsFile) declarePattern(pat *sitter.Node, c *lang.Chain, sc *jsScope) {
	if pat == nil {
		return
	}
	switch js.kind(pat) {
	case "identifier":
		sc.declare(ts.Text(pat, js.src), c)
	case "object_pattern":
		for _, p := range ts.Children(pat) {
			switch js.kind(&p) {
			case "shorthand_property_identifier_pattern":
				name := ts.Text(&p, js.src)
				sc.declare(name, c.Then(name))
				if c != nil {
					sc.declare(name+elemSuffix, c.Then(name+elemSuffix))
				}
			case "pair_pattern":
				key := js.field(&p, "key")
				if v := js.field(&p, "value"); key != nil && js.kind(key) == "property_identifier" && v != nil && js.kind(v) == "identifier" {
					sc.declare(ts.Text(v, js.src), c.Then(ts.Text(key, js.src)))
					continue
				}
				js.patternNames(&p, func(name string) { sc.declare(name, nil) })
			default:
				js.patternNames(&p, func(name string) { sc.declare(name, nil) })
			}
		}
	default:
		js.patternNames(pat, func(name string) { sc.declare(name, nil) })
	}
}

// patternNames calls fn with every name a binding pattern declares.
func (js *jsFile) patternNames(n *sitter.Node, fn func(string)) {
	if n == nil {
		return
	}
	switch js.kind(n) {
	case "identifier", "shorthand_property_identifier_pattern":
		fn(ts.Text(n, js.src))
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, c := range ts.Children(n) {
			js.patternNames(&c, fn)
		}
	case "pair_pattern":
		js.patternNames(js.field(n, "value"), fn)
	case "assignment_pattern", "object_assignment_pattern":
		js.patternNames(js.field(n, "left"), fn)
	case "required_parameter", "optional_parameter":
		js.patternNames(js.field(n, "pattern"), fn)
	}
}

// jsBody is what one walk over a function body (or module-level code)
// found, not entering nested functions.
type jsBody struct {
	calls   []*sitter.Node // call_expression and new_expression
	assigns []*sitter.Node // assignment_expression, for this.x = …
	nested  []*sitter.Node // functions, arrows and methods
	returns []*sitter.Node // return values (nil for a bare return)
	// uses are the names and member expressions read as values, not
	// called (identifier, shorthand property, member_expression); types
	// the type syntax, not entered by the walk (see typeRefs).
	uses  []*sitter.Node
	types []*sitter.Node
}

// read walks n once, not entering nested functions: with declare, it
// declares the locals of a function body in ctx.scope (variables with the
// chains of their values, nested function and class names, catch and
// loop bindings) and collects its return values; it collects the calls,
// assignments and nested functions for finish.
func (js *jsFile) read(n *sitter.Node, ctx *jsCtx, declare bool) jsBody {
	var b jsBody
	if n == nil {
		return b
	}
	g := &js.grammar
	sc := ctx.scope
	thisAttrs := ctx.class != "" && ctx.this != nil && ctx.this.Inst
	// callee is the node just collected as a call's callee or an
	// assignment's target, visited next: not a use.
	var callee uintptr
	ts.WalkSkip(n, func(x *sitter.Node) bool {
		id := x.KindId()
		if int(id) < len(g.types) && g.types[id] {
			if declare && (id == g.typeAlias || id == g.iface) { // a local type shadows the module's
				sc.declareType(ts.Text(js.field(x, "name"), js.src))
			}
			b.types = append(b.types, x)
			return false
		}
		switch id {
		case g.ident, g.shorthand:
			if x.Id() != callee && js.knownBytes(js.bytes(x)) {
				b.uses = append(b.uses, x)
			}
			return false
		case g.member:
			if x.Id() != callee {
				b.uses = append(b.uses, x)
			}
		case g.typeIdent: // x as C, a local class's name
			b.types = append(b.types, x)
			return false
		case g.call, g.new:
			b.calls = append(b.calls, x)
			field := g.fieldFunction
			if id == g.new {
				field = g.fieldConstructor
			}
			if f := x.ChildByFieldId(field); f != nil {
				callee = f.Id()
			}
		case g.assign:
			if thisAttrs {
				b.assigns = append(b.assigns, x)
			}
			if l := x.ChildByFieldId(g.fieldLeft); l != nil && l.KindId() == g.ident {
				callee = l.Id() // x = …: a write, not a use
			}
		case g.funcDecl, g.generatorDecl:
			if declare {
				sc.declare(ts.Text(js.field(x, "name"), js.src), nil)
			}
			b.nested = append(b.nested, x)
			return false
		case g.arrow, g.function, g.generator, g.method:
			b.nested = append(b.nested, x)
			return false
		case g.classDecl, g.abstractClassDecl:
			if declare {
				sc.declare(ts.Text(js.field(x, "name"), js.src), nil)
			}
		case g.declarator:
			if declare {
				var c, elem *lang.Chain
				name := js.field(x, "name")
				if t := js.field(x, "type"); t != nil {
					c, elem = js.typeChain(t, ctx), js.elemType(t, ctx)
				} else if v := js.field(x, "value"); v != nil {
					c = js.valueChain(v, ctx)
					if k := js.kind(v); k == "identifier" || k == "member_expression" {
						elem, _ = js.elemChain(v, ctx) // const xs = this.items
					}
				}
				js.declarePattern(name, c, sc)
				if elem != nil && js.kind(name) == "identifier" {
					sc.declare(ts.Text(name, js.src)+elemSuffix, elem)
				}
			}
		case g.catch:
			if declare {
				js.patternNames(js.field(x, "parameter"), func(s string) { sc.declare(s, nil) })
			}
		case g.forIn:
			if l := js.field(x, "left"); declare && l != nil && js.kind(l) != "member_expression" {
				if js.kind(l) == "identifier" && js.forOf(x) { // for (const x of xs)
					c, _ := js.elemChain(js.field(x, "right"), ctx)
					sc.declare(ts.Text(l, js.src), c)
				} else {
					js.patternNames(l, func(s string) { sc.declare(s, nil) })
				}
			}
		case g.ret:
			if declare {
				var v *sitter.Node
				if x.NamedChildCount() > 0 {
					v = x.NamedChild(0)
				}
				b.returns = append(b.returns, v)
			}
		}
		return true
	})
	return b
}

// calls records the calls and news under n, reading nested functions in
// their own scopes.
func (js *jsFile) calls(n *sitter.Node, ctx jsCtx) {
	b := js.read(n, &ctx, false)
	js.finish(&b, ctx)
}

// finish adds the references of the calls a walk found, records this.x
// = … attributes, then reads the nested functions (a function passed as
// an argument typed by what it is passed to).
func (js *jsFile) finish(b *jsBody, ctx jsCtx) {
	g := &js.grammar
	for _, x := range b.calls {
		field := g.fieldFunction
		if x.KindId() == g.new {
			field = g.fieldConstructor
		}
		if f := x.ChildByFieldId(field); f != nil {
			js.callee(f, &ctx)
		}
	}
	for _, u := range b.uses {
		js.use(u, &ctx)
	}
	for _, t := range b.types {
		js.typeRefs(t, &ctx)
	}
	for _, a := range b.assigns {
		js.thisAttr(a, &ctx)
	}
	for _, x := range b.nested {
		fctx := ctx
		if x.KindId() != g.arrow {
			fctx = ctx.thisCleared()
		}
		js.function(jsFunc{node: x, ctx: fctx, arg: js.argument(x, &ctx)})
	}
}

// argument returns, for a function passed as an argument of a call or
// new, the callee and the argument's position; nil otherwise.
func (js *jsFile) argument(fn *sitter.Node, ctx *jsCtx) *jsArg {
	arg := fn
	args := fn.Parent()
	for args != nil {
		switch js.kind(args) {
		case "parenthesized_expression", "ternary_expression", "as_expression", "satisfies_expression", "non_null_expression":
			arg, args = args, args.Parent() // f(cond ? (x) => … : (x) => …)
			continue
		}
		break
	}
	if args == nil || js.kind(args) != "arguments" {
		return nil
	}
	call := args.Parent()
	if call == nil {
		return nil
	}
	var f *sitter.Node
	switch call.KindId() {
	case js.grammar.call:
		f = call.ChildByFieldId(js.grammar.fieldFunction)
	case js.grammar.new:
		f = call.ChildByFieldId(js.grammar.fieldConstructor)
	}
	i := 0
	for p := arg.PrevNamedSibling(); p != nil; p = p.PrevNamedSibling() {
		i++
	}
	if i == 0 && f != nil && js.kind(f) == "member_expression" && jsElementCallbacks[ts.Text(js.field(f, "property"), js.src)] {
		if elem, sure := js.elemChain(js.field(f, "object"), ctx); sure { // xs.forEach((x) => …)
			return &jsArg{first: elem}
		}
	}
	callee := js.valueChain(f, ctx)
	if callee == nil {
		return nil
	}
	return &jsArg{callee: callee, index: i}
}

// thisAttr records this.x = value, in a method of a class, as the value
// of the attribute x (the first assignment read wins; constructors are
// read first).
func (js *jsFile) thisAttr(a *sitter.Node, ctx *jsCtx) {
	l := js.field(a, "left")
	if l == nil || js.kind(l) != "member_expression" {
		return
	}
	obj := js.field(l, "object")
	prop := js.field(l, "property")
	if obj == nil || js.kind(obj) != "this" || prop == nil || js.kind(prop) != "property_identifier" {
		return
	}
	if c := js.valueChain(js.field(a, "right"), ctx); c != nil {
		js.fr.Decl.SetFact(lang.FactAttr+ctx.class+"."+ts.Text(prop, js.src), c)
	}
}

// callee adds the calls reference of a called or constructed expression
// n.
func (js *jsFile) callee(n *sitter.Node, ctx *jsCtx) { js.reference(n, ctx, lang.RefCall) }

// reference adds the reference of type typ (calls, or references for a
// name or member read without a call) to what the expression n, a name
// or a member access, stands for. A references one has no stub: when
// the target is not found it is dropped.
func (js *jsFile) reference(n *sitter.Node, ctx *jsCtx, typ string) {
	line := ts.Line(n)
	add := func(r lang.Ref) {
		r.Type, r.From, r.Line = typ, ctx.from, line
		if typ == graph.EdgeReferences {
			if r.Recv == nil && r.Scope == "" {
				return // only a stub to point at
			}
			r.Stub = ""
		}
		js.fr.Refs = append(js.fr.Refs, r)
	}
	switch js.kind(n) {
	case "identifier", "shorthand_property_identifier":
		name := ts.Text(n, js.src)
		if name == "require" {
			return
		}
		if _, local := ctx.scope.lookup(name); local {
			return // a local function or value: no declaration of ours
		}
		if b, ok := js.bindings[name]; ok {
			js.boundRef(b, b.name, name, add)
			return
		}
		add(lang.Ref{Recv: &lang.Chain{Scope: js.scope}, Name: name, Stub: name})
	case "member_expression":
		obj := js.field(n, "object")
		propNode := js.field(n, "property")
		if obj == nil || propNode == nil || js.kind(propNode) != "property_identifier" {
			return
		}
		prop := ts.Text(propNode, js.src)
		stub := lang.Ref{Stub: "*." + prop}
		switch js.kind(obj) {
		case "this":
			switch {
			case ctx.this != nil:
				add(lang.Ref{Recv: ctx.this, Name: prop, Stub: stub.Stub})
			case ctx.thisPrefix != "":
				add(lang.Ref{Recv: &lang.Chain{Scope: js.scope}, Name: ctx.thisPrefix + "." + prop, Stub: stub.Stub})
			default:
				add(stub)
			}
			return
		case "super":
			if ctx.class == "" {
				add(stub)
				return
			}
			add(lang.Ref{Recv: &lang.Chain{Scope: js.scope, Name: ctx.class, Inst: ctx.this == nil || ctx.this.Inst, Super: true}, Name: prop, Stub: stub.Stub})
			return
		case "identifier":
			otext := ts.Text(obj, js.src)
			if _, local := ctx.scope.lookup(otext); !local {
				if js.isModuleAlias(otext) {
					name := otext + "." + prop
					if otext == "exports" {
						name = prop
					}
					add(lang.Ref{Recv: &lang.Chain{Scope: js.scope}, Name: name, Stub: stub.Stub})
					return
				}
				if b, ok := js.bindings[otext]; ok && b.pkg != "" {
					name := prop
					if b.name != "" {
						name = b.name + "." + prop
					}
					js.boundRef(b, name, otext+"."+prop, add)
					return
				}
			}
		}
		if recv := js.valueChain(obj, ctx); recv != nil {
			add(lang.Ref{Recv: recv, Name: prop, Stub: stub.Stub})
			return
		}
		add(stub)
	}
}

// boundRef adds the reference to name reached through an import binding:
// a declaration of a repository file, or an npm package's stub.
func (js *jsFile) boundRef(b jsBinding, name, stubName string, add func(lang.Ref)) {
	switch {
	case b.path != "":
		if name == "" {
			name = "default" // calling what require() returned
		}
		add(lang.Ref{Recv: &lang.Chain{Scope: "js:" + b.path}, Name: name, Stub: stubName})
	case b.pkg != "":
		if name == "" || name == "default" {
			add(lang.Ref{Stub: b.pkg})
		} else {
			add(lang.Ref{Stub: b.pkg + "." + name})
		}
	}
}

// heritage adds the inherits_from or implements reference of a base
// expression and returns its chain (nil when it is not a name).
func (js *jsFile) heritage(n *sitter.Node, from, typ string, sc *jsScope) *lang.Chain {
	for n != nil && js.kind(n) == "generic_type" {
		n = js.field(n, "name")
	}
	c := js.exprChain(n, sc)
	if c == nil {
		return nil
	}
	if len(c.Steps) == 0 {
		if b, ok := js.bindings[c.Name]; ok {
			js.boundRef(b, b.name, c.Name, func(r lang.Ref) {
				r.Type, r.From, r.Line = typ, from, ts.Line(n)
				js.fr.Refs = append(js.fr.Refs, r)
			})
			return c
		}
		js.fr.Refs = append(js.fr.Refs, lang.Ref{Type: typ, From: from, Line: ts.Line(n), Scope: js.scope, Name: c.Name, Stub: c.Name})
		return c
	}
	js.fr.Refs = append(js.fr.Refs, lang.Ref{Type: typ, From: from, Line: ts.Line(n), Recv: &lang.Chain{Scope: c.Scope, Name: c.Name, Steps: c.Steps[:len(c.Steps)-1]},
		Name: c.Steps[len(c.Steps)-1], Stub: ts.Text(n, js.src)})
	return c
}
