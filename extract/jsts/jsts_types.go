package jsts

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// What a JavaScript or TypeScript expression or type annotation says about
// the value it stands for, as an inference chain (infer.go). Chains are
// closed over the module: a name that is not a local of the function being
// read is looked up in the file's scope, where the resolver follows
// imports, re-exports and base classes. Anything the model cannot express
// — arrays, unions of two types, any, function types, computed members —
// is nil: the call stays a "*.m" stub rather than a guess.

// jsScope is one function's local names (parameters, variables, nested
// function and class declarations, type parameters), each with the chain
// of its value when known. A local with a nil chain still shadows the
// module-level name it spells.
type jsScope struct {
	parent *jsScope
	vars   map[string]*lang.Chain
	// types are the type parameters, with the chain of their constraint
	// (T extends C is a C) when known; outer holds what they are to the
	// declaration's callers: nothing known for a function's, the default
	// (T = C) for a class's or an interface's, which is what a reference
	// without type arguments gets.
	types, outer map[string]*lang.Chain
}

// lookupType finds the name of a type in s or an enclosing scope: a type
// parameter (with its constraint's chain, or outside its declaration
// the outer one), or a local value that shadows the module's (nil).
func (s *jsScope) lookupType(name string, outside bool) (c *lang.Chain, local bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.types[name]; ok {
			if outside {
				return s.outer[name], true
			}
			return c, true
		}
		if _, ok := s.vars[name]; ok {
			return nil, true
		}
	}
	return nil, false
}

// lookup finds name in s or an enclosing scope; local is false for a name
// of the module.
func (s *jsScope) lookup(name string) (c *lang.Chain, local bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.vars[name]; ok {
			return c, true
		}
	}
	return nil, false
}

// declare adds a local; declaring a name twice with different values
// (block-scoped twins, reassigned var) leaves it unknown.
func (s *jsScope) declare(name string, c *lang.Chain) {
	if name == "" {
		return
	}
	if s.vars == nil {
		s.vars = map[string]*lang.Chain{}
	}
	if old, ok := s.vars[name]; ok && (old == nil || c == nil || lang.EncodeChains(old) != lang.EncodeChains(c)) {
		s.vars[name] = nil
		return
	}
	s.vars[name] = c
}

// declareType adds a local type (an interface or type alias declared in
// a function body), which shadows the module's type of that name.
func (s *jsScope) declareType(name string) {
	if name == "" {
		return
	}
	if s.types == nil {
		s.types, s.outer = map[string]*lang.Chain{}, map[string]*lang.Chain{}
	}
	s.types[name], s.outer[name] = nil, nil
}

// lookupElem finds the element value of a local array (declared as
// name+"[]" beside name); local is false for a module-level name.
func (s *jsScope) lookupElem(name string) (c *lang.Chain, local bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.vars[name+elemSuffix]; ok {
			return c, true
		}
		if _, ok := s.vars[name]; ok {
			return nil, true
		}
	}
	return nil, false
}

// elemSuffix marks the element of an array: a local or module variable
// xs of type E[] has the value of an E recorded as xs[] (factVar, scope),
// an attribute x of class C as C.x[] (factAttr), so that an element read
// (for … of, xs[i], xs.pop(), xs.forEach(e => …)) is the attribute step
// x[] of the instance.
const elemSuffix = "[]"

// jsElementMethods return an element of the array they are called on
// (undefined aside).
var jsElementMethods = map[string]bool{"pop": true, "shift": true, "at": true, "find": true, "findLast": true}

// jsElementCallbacks pass the array's elements as the first parameter of
// their callback.
var jsElementCallbacks = map[string]bool{"forEach": true, "map": true, "filter": true, "some": true, "every": true,
	"find": true, "findIndex": true, "findLast": true, "findLastIndex": true, "flatMap": true}

// elemType returns the chain of an element of the array type a type
// annotation names (E[], Array<E>, ReadonlyArray<E>, readonly E[], with
// null and undefined looked through), nil for anything else.
func (js *jsFile) elemType(t *sitter.Node, ctx *jsCtx) *lang.Chain {
	for t != nil {
		switch js.kind(t) {
		case "type_annotation", "parenthesized_type", "readonly_type":
			t = t.NamedChild(t.NamedChildCount() - 1)
			continue
		case "array_type":
			return js.typeChain(t.NamedChild(0), ctx)
		case "generic_type":
			name := ts.Text(js.field(t, "name"), js.src)
			args := js.field(t, "type_arguments")
			if (name == "Array" || name == "ReadonlyArray") && args != nil && args.NamedChildCount() == 1 {
				return js.typeChain(args.NamedChild(0), ctx)
			}
			return nil
		case "union_type":
			t = js.onlyNonNullish(t)
			continue
		}
		return nil
	}
	return nil
}

// elemChain returns the chain of an element of the array expression n
// evaluates to, nil when unknown. sure is set when the expression is
// known here to be an array of that element (a local, a module variable
// or an attribute of this class declared with an array type): a method
// like find or forEach is then the array's, not one of the code's own.
func (js *jsFile) elemChain(n *sitter.Node, ctx *jsCtx) (c *lang.Chain, sure bool) {
	for n != nil {
		switch js.kind(n) {
		case "parenthesized_expression", "non_null_expression":
			n = n.NamedChild(0)
			continue
		case "identifier":
			name := ts.Text(n, js.src)
			if c, local := ctx.scope.lookupElem(name); local {
				return c, c != nil
			}
			_, sure := js.fr.Decl.Facts[lang.FactVar+name+elemSuffix]
			return &lang.Chain{Scope: js.scope, Name: name + elemSuffix}, sure
		case "member_expression":
			prop := js.field(n, "property")
			if prop == nil || js.kind(prop) != "property_identifier" {
				return nil, false
			}
			obj := js.field(n, "object")
			name := ts.Text(prop, js.src)
			sure := false
			if js.kind(obj) == "this" && ctx.class != "" {
				_, sure = js.fr.Decl.Facts[lang.FactAttr+ctx.class+"."+name+elemSuffix]
			}
			return js.valueChain(obj, ctx).Then(name + elemSuffix), sure
		}
		return nil, false
	}
	return nil, false
}

// jsCtx is where code is being read: the node its calls come from, the
// scope of its locals and what `this` is.
type jsCtx struct {
	from  string
	scope *jsScope
	// this is the value of `this` as a chain (an instance of the class
	// whose method this is, or the class itself in a static member); nil
	// when unknown.
	this *lang.Chain
	// thisPrefix, for a function whose `this` is no class the inference
	// knows (X.prototype.m = function, object-literal methods), makes
	// this.m() the declared name thisPrefix+"."+m.
	thisPrefix string
	// class names the class of `this` for super.m() and for recording
	// this.x = … as an attribute of the class ("" outside a class).
	class string
	// outside is set when a type is read for the callers of a
	// declaration (a return, a field, a callback's parameter): a type
	// parameter is then whatever the caller instantiates, unknown, while
	// inside the declaration it is its constraint (T extends C is a C).
	outside bool
}

// outside returns ctx for reading a type seen by the declaration's
// callers.
func (js *jsFile) outside(ctx *jsCtx) *jsCtx {
	c := *ctx
	c.outside = true
	return &c
}

// thisCleared is ctx for a nested `function` (not an arrow): `this` is
// rebound by the call.
func (ctx jsCtx) thisCleared() jsCtx {
	ctx.this, ctx.thisPrefix, ctx.class = nil, "", ""
	return ctx
}

// typeChain returns the chain of a value of the type a type annotation
// (or type node) names: an instance of a class or interface. Generics are
// dropped (Foo<T> is Foo), Foo | undefined | null is Foo, readonly and
// parentheses are looked through; `typeof C` is the class itself.
func (js *jsFile) typeChain(t *sitter.Node, ctx *jsCtx) *lang.Chain {
	for t != nil {
		switch js.kind(t) {
		case "type_annotation", "parenthesized_type", "readonly_type", "opting_type_annotation", "omitting_type_annotation":
			t = t.NamedChild(t.NamedChildCount() - 1)
			continue
		case "generic_type":
			t = js.field(t, "name")
			continue
		case "this_type":
			if ctx.class == "" {
				return nil
			}
			return &lang.Chain{Scope: js.scope, Name: ctx.class, Inst: true}
		case "type_identifier", "nested_type_identifier":
			name := ts.Text(t, js.src)
			head, _, dotted := strings.Cut(name, ".")
			if c, local := ctx.scope.lookupType(head, ctx.outside); local {
				if dotted {
					return nil
				}
				return c // a type parameter's constraint or default, nil for a local class
			}
			return &lang.Chain{Scope: js.scope, Name: name, Inst: true}
		case "type_query":
			return js.exprChain(t.NamedChild(0), ctx.scope)
		case "union_type":
			t = js.onlyNonNullish(t)
			continue
		}
		return nil
	}
	return nil
}

// nullish reports whether a union member is undefined or null.
func (js *jsFile) nullish(t *sitter.Node) bool {
	switch js.kind(t) {
	case "literal_type", "predefined_type", "undefined", "null":
		s := ts.Text(t, js.src)
		return s == "undefined" || s == "null"
	}
	return false
}

// exprChain is the chain of an expression made of names and member
// accesses only (a typeof operand, a base class expression).
func (js *jsFile) exprChain(n *sitter.Node, sc *jsScope) *lang.Chain {
	if n == nil {
		return nil
	}
	switch js.kind(n) {
	case "identifier", "type_identifier":
		name := ts.Text(n, js.src)
		if c, local := sc.lookup(name); local {
			return c
		}
		return &lang.Chain{Scope: js.scope, Name: name}
	case "member_expression", "nested_identifier", "nested_type_identifier":
		obj := js.field(n, "object")
		if obj == nil {
			obj = js.field(n, "module")
		}
		prop := js.field(n, "property")
		if prop == nil {
			prop = js.field(n, "name")
		}
		if prop == nil || (js.kind(prop) != "property_identifier" && js.kind(prop) != "identifier" && js.kind(prop) != "type_identifier") {
			return nil
		}
		return js.exprChain(obj, sc).Then(ts.Text(prop, js.src))
	}
	return nil
}

// valueChain returns the chain of the value an expression evaluates to in
// ctx, nil when unknown.
func (js *jsFile) valueChain(n *sitter.Node, ctx *jsCtx) *lang.Chain {
	for n != nil {
		switch js.kind(n) {
		case "parenthesized_expression", "non_null_expression", "satisfies_expression":
			n = n.NamedChild(0)
			continue
		case "as_expression":
			if n.NamedChildCount() < 2 {
				return nil
			}
			t := n.NamedChild(1)
			if js.kind(t) == "predefined_type" || ts.Text(t, js.src) == "const" {
				return nil // as any, as unknown, as const
			}
			return js.typeChain(t, ctx)
		case "type_assertion":
			if n.NamedChildCount() < 2 {
				return nil
			}
			return js.typeChain(n.NamedChild(0).NamedChild(0), ctx)
		case "identifier":
			name := ts.Text(n, js.src)
			if c, local := ctx.scope.lookup(name); local {
				return c
			}
			if name == "undefined" {
				return nil
			}
			return &lang.Chain{Scope: js.scope, Name: name}
		case "this":
			return ctx.this
		case "new_expression":
			return js.valueChain(js.field(n, "constructor"), ctx).Then(lang.NewStep)
		case "call_expression":
			if spec, ok := js.requireSpec(n); ok { // require('./x') in a body
				if file, _ := js.resolveSpec(spec); file != "" {
					return &lang.Chain{Scope: "js:" + file}
				}
				return nil
			}
			f := js.field(n, "function")
			if f == nil || js.kind(f) == "import" {
				return nil
			}
			if js.kind(f) == "member_expression" && jsElementMethods[ts.Text(js.field(f, "property"), js.src)] {
				if c, sure := js.elemChain(js.field(f, "object"), ctx); sure { // xs.pop()
					return c
				}
			}
			return js.valueChain(f, ctx).Then(lang.CallStep)
		case "member_expression":
			prop := js.field(n, "property")
			if prop == nil || js.kind(prop) != "property_identifier" {
				return nil
			}
			name := ts.Text(prop, js.src)
			if name == "prototype" { // X.prototype has the members of an X
				return js.valueChain(js.field(n, "object"), ctx).Then(lang.NewStep)
			}
			return js.valueChain(js.field(n, "object"), ctx).Then(name)
		case "subscript_expression": // xs[i]
			if idx := js.field(n, "index"); idx != nil && js.kind(idx) == "number" {
				c, _ := js.elemChain(js.field(n, "object"), ctx)
				return c
			}
			return nil
		}
		return nil
	}
	return nil
}

// onlyNonNullish returns the one member of a union type that is not null,
// undefined or void (T | undefined is T), nil when there are several.
func (js *jsFile) onlyNonNullish(union *sitter.Node) *sitter.Node {
	var only *sitter.Node
	for _, m := range ts.Children(union) {
		if js.nullish(&m) {
			continue
		}
		if only != nil {
			return nil
		}
		m := m
		only = &m
	}
	return only
}
