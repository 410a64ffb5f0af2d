package resolve

import (
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// Receiver inference for the tree-sitter extractors (Python, JavaScript,
// TypeScript): what a file says about types is recorded as facts in its
// decl at extraction time, with names already bound through the file's
// imports; what a call's receiver is gets decided at resolution time, when
// the facts of every file are known. The model is deliberately small — a
// value is a module, a class, an instance of a class or a function — and
// every step that cannot be decided yields "unknown", which leaves the
// call a name-only stub (counted as an unresolved receiver), never a guess.

// value kinds of the inference.
const (
	valModule = iota + 1 // the module of scope
	valClass             // the class name declared in scope
	valInst              // an instance of that class
	valFunc              // the function or method name declared in scope
)

// value is what an expression evaluates to, as far as the inference goes.
type value struct {
	kind  int
	scope string
	name  string    // declared name: "C", "f", "C.m"
	cand  Candidate // the declaration (with name), for valClass/valFunc/valInst
}

// maxInferDepth bounds the recursion of symbol, member and chain
// evaluation. Cycles are cut by the memo's busy marks (infermemo.go); the
// bound is for depth alone: a level of a class hierarchy costs about four
// steps (member, bases, eval, symbol), so 64 reaches 16 levels up.
const maxInferDepth = 64

// symbolOnce evaluates the name (possibly dotted) in scope: a declared class or
// function, a module-level variable, an imported name (followed into the
// module it comes from), or a name of a module re-exported with *.
func (t *Table) symbolOnce(scope, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	scope, name = t.nested(scope, name)
	s, ok := t.NormScope(scope)
	if !ok {
		return value{}, false
	}
	if name == "" {
		if !t.declared(s) {
			return value{}, false
		}
		return value{kind: valModule, scope: s}, true
	}
	v, found, final := t.symbolHere(s, name, depth)
	if found || final {
		return v, found
	}
	// The modules re-exported with *, breadth first over their closure,
	// each once: modules that star-import each other form cycles, and a
	// name none of them declares must not be looked for along every path.
	seen := map[string]bool{s: true}
	star, _ := t.fact(s, lang.FactStar)
	queue := lang.DecodeChains(star)
	for len(queue) > 0 {
		q, ok := t.NormScope(queue[0].Scope)
		queue = queue[1:]
		if !ok || seen[q] {
			continue
		}
		seen[q] = true
		if v, found, _ := t.symbolHere(q, name, depth+1); found {
			return v, true
		}
		star, _ := t.fact(q, lang.FactStar)
		queue = append(queue, lang.DecodeChains(star)...)
	}
	return value{}, false
}

// symbolHere evaluates the name in the normalised scope s itself, without
// its star re-exports; final says the name was decided here (a dotted
// name, a variable or an import of s), found or not.
func (t *Table) symbolHere(s, name string, depth int) (v value, found, final bool) {
	if a, ok := t.aliasOf(s, name); ok {
		name = a
	}
	_, merged := t.fact(s, lang.FactMerged+name)
	_, isVar := t.fact(s, lang.FactVar+name)
	if cands := t.cands(s, name); len(cands) > 0 && !(merged && isVar) {
		c, _ := t.lookup(s, name, "")
		kind := valFunc
		if cands[0].Kind == graph.KindClass {
			kind = valClass
		}
		return value{kind: kind, scope: s, name: name, cand: c}, true, true
	}
	if f, ok := t.fact(s, lang.FactVar+name); ok {
		if cs := lang.DecodeChains(f); len(cs) == 1 {
			v, found = t.eval(cs[0], depth+1)
		}
		return v, found, true
	}
	if _, ok := t.fact(s, lang.FactObject+name); ok {
		return value{kind: valClass, scope: s, name: name}, true, true
	}
	if f, ok := t.fact(s, lang.FactImport+name); ok {
		if cs := lang.DecodeChains(f); len(cs) == 1 {
			v, found = t.eval(cs[0], depth+1)
		}
		return v, found, true
	}
	if head, rest, dotted := strings.Cut(name, "."); dotted {
		v, ok := t.symbol(s, head, depth+1)
		if !ok {
			return value{}, false, true
		}
		for step := range strings.SplitSeq(rest, ".") {
			if v, ok = t.step(v, step, depth+1); !ok {
				return value{}, false, true
			}
		}
		return v, true, true
	}
	return value{}, false, false
}

// typeSymbol evaluates a name in a type position (an annotation, an Inst
// chain): as symbol does, except that a name merged from a value and a
// class or interface (factMerged) is the class.
func (t *Table) typeSymbol(scope, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	scope, name = t.nested(scope, name)
	s, ok := t.NormScope(scope)
	if !ok || name == "" {
		return t.symbol(scope, name, depth+1)
	}
	if a, ok := t.aliasOf(s, name); ok {
		name = a
	}
	if _, merged := t.fact(s, lang.FactMerged+name); merged {
		if first, ok := t.firstPath(s); ok {
			return value{kind: valClass, scope: s, name: name, cand: withName(Candidate{Path: first, Kind: graph.KindClass}, name)}, true
		}
	}
	if len(t.cands(s, name)) > 0 {
		return t.symbol(s, name, depth+1)
	}
	if v, ok := t.fact(s, lang.FactImport+name); ok {
		if cs := lang.DecodeChains(v); len(cs) == 1 && !cs[0].Inst && len(cs[0].Steps) == 0 && cs[0].Name != "" {
			return t.typeSymbol(cs[0].Scope, cs[0].Name, depth+1)
		}
		return t.symbol(s, name, depth+1)
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		v, ok := t.symbol(s, name[:i], depth+1)
		if ok && v.kind == valModule {
			return t.typeSymbol(v.scope, name[i+1:], depth+1)
		}
		return t.symbol(s, name, depth+1)
	}
	if _, ok := t.fact(s, lang.FactVar+name); !ok {
		star, _ := t.fact(s, lang.FactStar)
		for _, c := range lang.DecodeChains(star) {
			if v, ok := t.typeSymbol(c.Scope, name, depth+1); ok {
				return v, true
			}
		}
	}
	return t.symbol(s, name, depth+1)
}

// eval evaluates a chain.
func (t *Table) eval(c *lang.Chain, depth int) (value, bool) {
	if c == nil || t.tooDeep(depth) {
		return value{}, false
	}
	lookup := t.symbol
	if c.Inst {
		lookup = t.typeSymbol
	}
	v, ok := lookup(c.Scope, c.Name, depth+1)
	if !ok {
		return value{}, false
	}
	if c.Inst {
		if v.kind != valClass {
			return value{}, false
		}
		v.kind = valInst
	}
	for _, s := range c.Steps {
		if v, ok = t.step(v, s, depth+1); !ok {
			return value{}, false
		}
	}
	return v, true
}

// step applies one chain step to v.
func (t *Table) step(v value, step string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	if (step == lang.CallStep || step == lang.NewStep) && v.kind == valModule {
		// A CommonJS module called or constructed: what it assigned to
		// module.exports (its "default").
		d, ok := t.symbol(v.scope, "default", depth+1)
		if !ok || d.kind == valModule {
			return value{}, false
		}
		v = d
	}
	if step == lang.CallStep {
		switch v.kind {
		case valClass:
			v.kind = valInst
			return v, true
		case valFunc:
			r, ok := t.fact(v.scope, lang.FactReturn+v.name)
			if !ok {
				return value{}, false
			}
			cs := lang.DecodeChains(r)
			if len(cs) != 1 {
				return value{}, false
			}
			return t.eval(cs[0], depth+1)
		}
		return value{}, false
	}
	if step == lang.NewStep {
		switch v.kind {
		case valClass:
			v.kind = valInst
			return v, true
		case valFunc:
			v.kind = valInst
			return v, true
		}
		return value{}, false
	}
	if strings.HasPrefix(step, lang.ParamStep) {
		fn := v
		if v.kind == valClass { // new C(…): its constructor's parameters
			var ok bool
			if fn, ok = t.member(v, "constructor", false, depth+1); !ok {
				return value{}, false
			}
		}
		if fn.kind != valFunc {
			return value{}, false
		}
		p, ok := t.fact(fn.scope, lang.FactParam+fn.name+step)
		if !ok {
			return value{}, false
		}
		cs := lang.DecodeChains(p)
		if len(cs) != 1 {
			return value{}, false
		}
		return t.eval(cs[0], depth+1)
	}
	if step == lang.ClassStep && v.kind == valInst {
		v.kind = valClass
		return v, true
	}
	switch v.kind {
	case valModule:
		return t.symbol(v.scope, step, depth+1)
	case valClass, valInst:
		// An attribute's value first: a property is a method whose
		// attribute fact is the value it returns.
		if a, ok := t.attribute(v, step, depth+1); ok {
			return a, true
		}
		return t.member(v, step, false, depth+1)
	}
	return value{}, false
}

// memberOnce finds the method name of the class of v (a valClass or valInst),
// walking its bases depth first in declaration order (Python's MRO and
// JavaScript's prototype chain agree on single inheritance). With super,
// the class itself is skipped.
func (t *Table) memberOnce(v value, name string, super bool, depth int) (value, bool) {
	if t.tooDeep(depth) || (v.kind != valClass && v.kind != valInst) {
		return value{}, false
	}
	if !super {
		if cands := t.cands(v.scope, v.name+"."+name); len(cands) > 0 {
			c, _ := t.lookup(v.scope, v.name+"."+name, "")
			kind := valFunc
			if cands[0].Kind == graph.KindClass {
				kind = valClass
			}
			return value{kind: kind, scope: v.scope, name: v.name + "." + name, cand: c}, true
		}
	}
	for _, b := range t.bases(v, depth+1) {
		if m, ok := t.member(b, name, false, depth+1); ok {
			return m, true
		}
	}
	return value{}, false
}

// attribute finds the value of the instance attribute name of v's class
// or of one of its bases.
func (t *Table) attribute(v value, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	if a, ok := t.fact(v.scope, lang.FactAttr+v.name+"."+name); ok {
		if cs := lang.DecodeChains(a); len(cs) == 1 {
			return t.eval(cs[0], depth+1)
		}
		return value{}, false
	}
	for _, b := range t.bases(v, depth+1) {
		if a, ok := t.attribute(b, name, depth+1); ok {
			return a, true
		}
	}
	return value{}, false
}

// bases evaluates the bases of v's class to classes.
func (t *Table) bases(v value, depth int) []value {
	var out []value
	bases, _ := t.fact(v.scope, lang.FactBase+v.name)
	for _, c := range lang.DecodeChains(bases) {
		if b, ok := t.eval(c, depth+1); ok && b.kind == valClass {
			out = append(out, b)
		}
	}
	return out
}

// receiverTarget resolves the member name called on the value of recv: a
// method of its class or of a base, a function of a module. ok is false
// when the receiver or the member is unknown.
func (t *Table) receiverTarget(recv *lang.Chain, name string) (Candidate, bool) {
	if name == lang.TypeRefName {
		return t.typeTarget(recv)
	}
	v, ok := t.eval(&lang.Chain{Scope: recv.Scope, Name: recv.Name, Inst: recv.Inst, Steps: recv.Steps}, 0)
	if !ok {
		return Candidate{}, false
	}
	var m value
	switch v.kind {
	case valModule:
		m, ok = t.symbol(v.scope, name, 1)
		if ok && m.kind == valInst {
			// A variable; one merged with a class or interface of its
			// name (TypeScript) stands for that class when called.
			if c, isType := t.typeSymbol(v.scope, name, 1); isType && c.kind == valClass {
				m = c
			}
		}
	case valClass, valInst:
		m, ok = t.member(v, name, recv.Super, 1)
		if !ok && !recv.Super {
			// A class attribute bound to a function or class
			// (walk = walk, __iter__ = items).
			if a, isAttr := t.attribute(v, name, 1); isAttr && (a.kind == valFunc || a.kind == valClass) {
				m, ok = a, true
			}
		}
	default:
		return Candidate{}, false
	}
	// An instance is no declaration to call (a variable typed with an
	// interface, a module-level object): the call stays a stub.
	if !ok || m.cand.Path == "" || m.kind == valInst || m.kind == valModule {
		return Candidate{}, false
	}
	return m.cand, true
}

// typeTarget resolves the name of an Inst chain as a type: the class,
// interface or enum it names (the interface of a merged declaration).
func (t *Table) typeTarget(recv *lang.Chain) (Candidate, bool) {
	if !recv.Inst || len(recv.Steps) > 0 {
		return Candidate{}, false
	}
	v, ok := t.typeSymbol(recv.Scope, recv.Name, 1)
	if !ok || v.kind != valClass || v.cand.Path == "" {
		return Candidate{}, false
	}
	return v.cand, true
}
