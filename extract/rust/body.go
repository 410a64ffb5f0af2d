package rust

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// wrappers are the generic types whose value is used through their first
// type argument (Option<T>, Result<T, E>, Box<T>, Rc<T>, Arc<T>, …): x?,
// x.unwrap() and auto-deref reach the T.
var wrappers = map[string]bool{"Option": true, "Result": true, "Box": true, "Rc": true, "Arc": true, "Cow": true, "Pin": true}

// transparent are methods whose result is taken for their receiver
// (x.unwrap().m() calls m on x's type).
var transparent = map[string]bool{"unwrap": true, "expect": true, "clone": true, "to_owned": true, "as_ref": true, "as_mut": true,
	"borrow": true, "borrow_mut": true, "unwrap_or_default": true, "as_deref": true, "as_deref_mut": true}

// wrapperCtors are calls whose value is their first argument's.
var wrapperCtors = map[string]bool{"Some": true, "Ok": true, "Box::new": true, "Rc::new": true, "Arc::new": true, "Pin::new": true}

// preludeCalls are bare calls that name no declaration of the tree
// unless the file binds them: no stub is made for them.
var preludeCalls = map[string]bool{"drop": true, "panic": true, "identity": true}

// Symbol ids of the node kinds visit looks for (KindId is cheaper than
// Kind, which copies the name out of C on every node).
var (
	idMacroInvocation   = language.IdForNodeKind("macro_invocation", true)
	idAttributeItem     = language.IdForNodeKind("attribute_item", true)
	idMacroDefinition   = language.IdForNodeKind("macro_definition", true)
	idLetDeclaration    = language.IdForNodeKind("let_declaration", true)
	idClosureExpression = language.IdForNodeKind("closure_expression", true)
	idForExpression     = language.IdForNodeKind("for_expression", true)
	idLetCondition      = language.IdForNodeKind("let_condition", true)
	idMatchArm          = language.IdForNodeKind("match_arm", true)
	idFunctionItem      = language.IdForNodeKind("function_item", true)
	idCallExpression    = language.IdForNodeKind("call_expression", true)
)

// leaf marks the symbols visit need not descend into: tokens and kinds
// that hold no call (names, literals, types, comments); skipping them
// spares a cgo call per node.
var leaf = func() []bool {
	n := language.NodeKindCount()
	l := make([]bool, n)
	for id := range uint16(n) {
		if !language.NodeKindIsNamed(id) {
			l[id] = true
		}
	}
	for _, k := range []string{"identifier", "field_identifier", "type_identifier", "primitive_type", "self", "super", "crate",
		"string_literal", "raw_string_literal", "char_literal", "integer_literal", "float_literal", "boolean_literal",
		"line_comment", "block_comment", "lifetime", "mutable_specifier", "generic_type", "reference_type", "scoped_type_identifier",
		"type_arguments", "scoped_identifier", "visibility_modifier", "token_tree"} {
		if id := language.IdForNodeKind(k, true); int(id) < len(l) && id != 0 {
			l[id] = true
		}
	}
	return l
}()

// generics returns the trait bounds of the type parameters of n (a
// function, impl, trait or type item) and of its where clause, over
// outer's: T: Tr (the first bound) makes a T value a Tr. Self of a
// trait is the trait itself.
func (f *rsFile) generics(n *sitter.Node, outer map[string]*lang.Chain, self string) map[string]*lang.Chain {
	g := map[string]*lang.Chain{}
	for k, v := range outer {
		g[k] = v
	}
	bound := func(name string, bounds *sitter.Node) {
		if name == "" {
			return
		}
		var c *lang.Chain
		for _, b := range ts.Children(bounds) {
			if c = f.typeChain(&b, nil); c != nil {
				break
			}
		}
		if prev, ok := g[name]; !ok || prev == nil || c != nil {
			g[name] = c
		}
	}
	if tp := n.ChildByFieldId(fTypeParameters); tp != nil {
		for _, p := range ts.Children(tp) {
			if ts.Kind(&p) == "type_parameter" {
				bound(f.text(p.ChildByFieldId(fName)), p.ChildByFieldId(fBounds))
			}
		}
	}
	for _, c := range ts.Children(n) {
		if ts.Kind(&c) != "where_clause" {
			continue
		}
		for _, w := range ts.Children(&c) {
			if ts.Kind(&w) == "where_predicate" {
				if l := w.ChildByFieldId(fLeft); l != nil && ts.Kind(l) == "type_identifier" {
					bound(f.text(l), w.ChildByFieldId(fBounds))
				}
			}
		}
	}
	return g
}

// typeChain is the value of a type: an instance of the struct, enum or
// trait it names (through references, Box, Option, Result, dyn, impl and
// generic bounds); nil when unknown.
func (f *rsFile) typeChain(n *sitter.Node, generics map[string]*lang.Chain) *lang.Chain {
	return f.typeChainIn(n, &fnEnv{generics: generics})
}

func (f *rsFile) typeChainIn(n *sitter.Node, env *fnEnv) *lang.Chain {
	for n != nil {
		switch ts.Kind(n) {
		case "reference_type", "pointer_type":
			n = n.ChildByFieldId(fType)
			continue
		case "dynamic_type", "abstract_type":
			n = n.ChildByFieldId(fTrait)
			continue
		case "bounded_type":
			n = n.ChildByFieldId(fLeft)
			continue
		case "generic_type":
			base := n.ChildByFieldId(fType)
			if base != nil && wrappers[f.text(base)] {
				if args := n.ChildByFieldId(fTypeArguments); args != nil {
					var first *sitter.Node
					for _, a := range ts.Children(args) {
						if ts.Kind(&a) != "lifetime" {
							first = &a
							break
						}
					}
					n = first
					continue
				}
			}
			n = base
			continue
		case "type_identifier":
			name := f.text(n)
			if name == "Self" {
				if env.impl == "" {
					return nil
				}
				return &lang.Chain{Scope: f.scope, Name: env.impl, Inst: true}
			}
			if b, ok := env.generics[name]; ok {
				if b == nil {
					return nil
				}
				c := *b
				c.Inst = true
				return &c
			}
		case "scoped_type_identifier":
		default:
			return nil
		}
		scope, rest, ok := f.pathScope(f.pathSegs(n), env)
		if !ok || len(rest) == 0 {
			return nil
		}
		return &lang.Chain{Scope: scope, Name: strings.Join(rest, "."), Inst: true}
	}
	return nil
}

// function reads a function's signature and body: its return type (the
// value its calls give), its calls from uid.
func (f *rsFile) function(def *sitter.Node, uid, name, impl string, outer map[string]*lang.Chain) {
	env := &fnEnv{impl: impl, generics: f.generics(def, outer, impl), locals: map[string]*lang.Chain{}}
	if rt := def.ChildByFieldId(fReturnType); rt != nil {
		if c := f.typeChainIn(rt, env); c != nil {
			f.fr.Decl.SetFact(lang.FactReturn+name, c)
		}
	}
	if ps := def.ChildByFieldId(fParameters); ps != nil {
		for _, p := range ts.Children(ps) {
			if ts.Kind(&p) == "parameter" {
				f.bind(env, p.ChildByFieldId(fPattern), f.typeChainIn(p.ChildByFieldId(fType), env))
			}
		}
	}
	body := def.ChildByFieldId(fBody)
	if body == nil {
		return
	}
	ts.WalkSym(body, func(n *sitter.Node, id uint16) bool { return f.visit(n, id, env, uid) })
}

// bind makes the names of a pattern locals: an identifier gets value,
// the names of any other pattern are locals of unknown value.
func (f *rsFile) bind(env *fnEnv, pat *sitter.Node, value *lang.Chain) {
	if pat == nil {
		return
	}
	if ts.Kind(pat) == "identifier" {
		env.locals[f.text(pat)] = value
		return
	}
	ts.WalkKind(pat, func(x *sitter.Node, kind string) bool {
		if kind == "identifier" && !isUpper(f.text(x)) {
			env.locals[f.text(x)] = nil
		}
		return kind != "scoped_identifier"
	})
}

// visit reads one node of a function body.
func (f *rsFile) visit(n *sitter.Node, id uint16, env *fnEnv, uid string) bool {
	if len(env.pending) > 0 {
		start := n.StartByte()
		kept := env.pending[:0]
		for _, p := range env.pending {
			if p.end <= start {
				env.locals[p.name] = p.value
			} else {
				kept = append(kept, p)
			}
		}
		env.pending = kept
	}
	if int(id) < len(leaf) && leaf[id] {
		return false
	}
	switch id {
	case idMacroInvocation, idAttributeItem, idMacroDefinition:
		return false // token trees: no calls are read in them
	case idLetDeclaration:
		var v *lang.Chain
		if t := n.ChildByFieldId(fType); t != nil {
			v = f.typeChainIn(t, env)
		} else {
			v = f.exprChain(n.ChildByFieldId(fValue), env)
		}
		pat := n.ChildByFieldId(fPattern)
		if pat != nil && ts.Kind(pat) == "identifier" {
			env.pending = append(env.pending, pendingLocal{end: n.EndByte(), name: f.text(pat), value: v})
		} else {
			f.bind(env, pat, nil)
		}
	case idClosureExpression:
		if ps := n.ChildByFieldId(fParameters); ps != nil {
			for _, p := range ts.Children(ps) {
				if ts.Kind(&p) == "parameter" {
					f.bind(env, p.ChildByFieldId(fPattern), f.typeChainIn(p.ChildByFieldId(fType), env))
				} else {
					f.bind(env, &p, nil)
				}
			}
		}
	case idForExpression:
		f.bind(env, n.ChildByFieldId(fPattern), nil)
	case idLetCondition, idMatchArm:
		f.bind(env, n.ChildByFieldId(fPattern), nil)
	case idFunctionItem:
		env.locals[f.text(n.ChildByFieldId(fName))] = nil
	case idCallExpression:
		f.call(n, env, uid)
	}
	return true
}

// call records the reference of a call expression.
func (f *rsFile) call(n *sitter.Node, env *fnEnv, from string) {
	fn := n.ChildByFieldId(fFunction)
	if fn != nil && ts.Kind(fn) == "generic_function" {
		fn = fn.ChildByFieldId(fFunction)
	}
	if fn == nil {
		return
	}
	line := ts.Line(n)
	switch ts.Kind(fn) {
	case "identifier":
		name := f.text(fn)
		if _, local := env.locals[name]; local {
			return // a closure or function value
		}
		r := lang.Ref{Type: graph.EdgeCalls, From: from, Line: line, Recv: &lang.Chain{Scope: f.scope}, Name: name}
		if !isUpper(name) && !preludeCalls[name] || f.local[name] {
			r.Stub = name
		}
		f.fr.Refs = append(f.fr.Refs, r)
	case "scoped_identifier":
		segs := f.pathSegs(fn)
		if len(segs) == 0 {
			return
		}
		r := lang.Ref{Type: graph.EdgeCalls, From: from, Line: line}
		if !isUpper(segs[len(segs)-1]) {
			r.Stub = strings.Join(segs, "::") // E::Variant(x) is no call
		}
		if recv, name, ok := f.pathCall(segs, env); ok {
			r.Recv, r.Name = recv, name
		}
		f.fr.Refs = append(f.fr.Refs, r)
	case "field_expression":
		name := f.text(fn.ChildByFieldId(fField))
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			return
		}
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: graph.EdgeCalls, From: from, Line: line,
			Recv: f.exprChain(fn.ChildByFieldId(fValue), env), Name: name, Stub: "*." + name})
	}
}

// exprChain is the value of an expression as a chain; nil when unknown.
func (f *rsFile) exprChain(n *sitter.Node, env *fnEnv) *lang.Chain {
	if n == nil {
		return nil
	}
	switch ts.Kind(n) {
	case "identifier":
		name := f.text(n)
		if v, local := env.locals[name]; local {
			return v
		}
		return f.valuePath([]string{name}, env)
	case "self":
		if env.impl == "" {
			return nil
		}
		return &lang.Chain{Scope: f.scope, Name: env.impl, Inst: true}
	case "scoped_identifier":
		return f.valuePath(f.pathSegs(n), env)
	case "field_expression":
		field := f.text(n.ChildByFieldId(fField))
		if field == "" || field[0] >= '0' && field[0] <= '9' {
			return nil
		}
		return f.exprChain(n.ChildByFieldId(fValue), env).Then(field)
	case "call_expression":
		fn := n.ChildByFieldId(fFunction)
		if fn != nil && ts.Kind(fn) == "generic_function" {
			fn = fn.ChildByFieldId(fFunction)
		}
		if fn == nil {
			return nil
		}
		switch ts.Kind(fn) {
		case "field_expression":
			m := f.text(fn.ChildByFieldId(fField))
			recv := f.exprChain(fn.ChildByFieldId(fValue), env)
			if transparent[m] {
				return recv
			}
			return recv.Then(m).Then(lang.CallStep)
		case "identifier", "scoped_identifier":
			segs := f.pathSegs(fn)
			if wrapperCtors[strings.Join(segs, "::")] {
				if args := n.ChildByFieldId(fArguments); args != nil {
					if kids := ts.Children(args); len(kids) > 0 {
						return f.exprChain(&kids[0], env)
					}
				}
				return nil
			}
			if len(segs) == 1 {
				if _, local := env.locals[segs[0]]; local {
					return nil
				}
			}
			if len(segs) > 1 && segs[len(segs)-1] == lang.NewStep {
				// T::new(): an instance of T (a chain step named "new"
				// is the constructor step of package resolve).
				return f.valuePath(segs[:len(segs)-1], env).Then(lang.NewStep)
			}
			return f.valuePath(segs, env).Then(lang.CallStep)
		}
		return nil
	case "try_expression", "parenthesized_expression", "await_expression":
		if kids := ts.Children(n); len(kids) > 0 {
			return f.exprChain(&kids[0], env)
		}
	case "reference_expression":
		return f.exprChain(n.ChildByFieldId(fValue), env)
	case "unary_expression": // *x: auto-deref reaches the same methods
		if kids := ts.Children(n); len(kids) == 1 {
			return f.exprChain(&kids[0], env)
		}
	case "struct_expression":
		name := n.ChildByFieldId(fName)
		if name != nil && ts.Kind(name) == "generic_type_with_turbofish" {
			name = name.ChildByFieldId(fType)
		}
		if c := f.valuePath(f.pathSegs(name), env); c != nil {
			c.Inst = true
			return c
		}
	case "type_cast_expression":
		return f.typeChainIn(n.ChildByFieldId(fType), env)
	}
	return nil
}

// valuePath is the chain of a path used as a value.
func (f *rsFile) valuePath(segs []string, env *fnEnv) *lang.Chain {
	scope, rest, ok := f.pathScope(segs, env)
	if !ok {
		return nil
	}
	return &lang.Chain{Scope: scope, Name: strings.Join(rest, ".")}
}
