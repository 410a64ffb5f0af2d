package extract

import (
	"strings"

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

// A chain names a value: the symbol Name looked up in Scope, followed by
// Steps. Name may be dotted ("mod.Class"), or empty for the module of
// Scope itself. A step is an attribute name or "()" for a call.
//
//	x: Child          → {Scope: py:a.py, Name: Child, Inst: true}
//	c = C()           → {Scope: py:a.py, Name: C, Steps: ["()"]}
//	self.conn.send()  → receiver {Scope: py:a.py, Name: Handler, Inst: true, Steps: ["conn"]}
//	super().close()   → receiver {Scope: py:a.py, Name: Handler, Inst: true, Super: true}
type chain struct {
	Scope string
	Name  string
	// Inst makes the value an instance of the class the symbol names (a
	// type annotation, self, this) rather than the class itself.
	Inst bool
	// Super starts member lookups at the bases of the class, not at the
	// class (super().m(), super.m()).
	Super bool
	Steps []string
}

// callStep is the step of a chain that calls the value.
const callStep = "()"

// classStep is the attribute that turns an instance into its class
// (x.__class__, type(x)).
const classStep = "__class__"

// newStep is the step of a chain that constructs an instance of the value
// (JavaScript new C(), new F() of a constructor function F, whose
// methods are declared F.m).
const newStep = "new"

// then returns a copy of c with one more step.
func (c *chain) then(step string) *chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append(append([]string(nil), c.Steps...), step)
	return &n
}

// Fact keys of decl.Facts, each followed by a declared name of the file's
// scope; values are encoded chains (encodeChains).
const (
	factBase   = "b:" // b:<Class> → the class's bases, in order
	factAttr   = "a:" // a:<Class>.<attr> → the value of an instance attribute
	factReturn = "r:" // r:<Func> or r:<Class>.<method> → the value a call returns
	factVar    = "v:" // v:<name> → the value of a module-level variable
	factImport = "i:" // i:<name> → what a name imported into the module stands for
	factStar   = "s:" // s: → modules re-exported wholesale (the chains' Scopes)
	// o:<name> → name is a module-level object literal whose members are
	// declared as <name>.<member> (JavaScript const o = {m() {}}); it
	// evaluates like a class, so o.m() finds them. The chain is unused.
	factObject = "o:"
	// p:<Func>@<i>.<j> → the value of parameter j of the function passed
	// as argument i to Func (a callback's parameter, typed by the
	// declaration of the function it is passed to); see paramStep.
	factParam = "p:"
	// m:<name> → name is declared both as a value (a function or a
	// variable) and as a class or interface of the module (TypeScript
	// declaration merging): in a type position it is the class, in a
	// value position the function or the variable. The chain is unused.
	factMerged = "m:"
)

// paramStep prefixes a chain step "@<i>.<j>": the value of parameter j of
// the function passed as argument i when the value (a function, or a
// class for new C(…)) is called, as factParam records it.
const paramStep = "@"

// Separators of encoded chains: fields of a chain, chains of a list.
const (
	chainFieldSep = "\x1e"
	chainListSep  = "\x1f"
)

// encodeChains encodes chains as one fact value.
func encodeChains(cs ...*chain) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(chainListSep)
		}
		flags := ""
		if c.Inst {
			flags += "i"
		}
		if c.Super {
			flags += "s"
		}
		b.WriteString(c.Scope)
		b.WriteString(chainFieldSep)
		b.WriteString(c.Name)
		b.WriteString(chainFieldSep)
		b.WriteString(flags)
		for _, s := range c.Steps {
			b.WriteString(chainFieldSep)
			b.WriteString(s)
		}
	}
	return b.String()
}

// decodeChains is the inverse of encodeChains; malformed entries are
// dropped.
func decodeChains(s string) []*chain {
	if s == "" {
		return nil
	}
	var out []*chain
	for part := range strings.SplitSeq(s, chainListSep) {
		f := strings.Split(part, chainFieldSep)
		if len(f) < 3 {
			continue
		}
		c := &chain{Scope: f[0], Name: f[1], Inst: strings.Contains(f[2], "i"), Super: strings.Contains(f[2], "s")}
		if len(f) > 3 {
			c.Steps = f[3:]
		}
		out = append(out, c)
	}
	return out
}

// setFact records a fact in d (the first one of a key wins, as the first
// assignment of an attribute does for a reader).
func (d *decl) setFact(key string, cs ...*chain) {
	if d == nil || len(cs) == 0 {
		return
	}
	for _, c := range cs {
		if c == nil || (c.Scope == "" && c.Name == "None") {
			return // unknown, or None: no value to follow
		}
	}
	if d.Facts == nil {
		d.Facts = map[string]string{}
	}
	if _, ok := d.Facts[key]; !ok {
		d.Facts[key] = encodeChains(cs...)
	}
}

// addStar records a module re-exported wholesale by scope.
func (d *decl) addStar(scope string) {
	if d == nil || scope == "" {
		return
	}
	if d.Facts == nil {
		d.Facts = map[string]string{}
	}
	cur := d.Facts[factStar]
	for _, c := range decodeChains(cur) {
		if c.Scope == scope {
			return
		}
	}
	if cur != "" {
		cur += chainListSep
	}
	d.Facts[factStar] = cur + encodeChains(&chain{Scope: scope})
}

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
	cand  candidate // the declaration (with name), for valClass/valFunc/valInst
}

// maxInferDepth bounds the recursion of symbol, member and chain
// evaluation. Cycles are cut by the memo's busy marks (infermemo.go); the
// bound is for depth alone: a level of a class hierarchy costs about four
// steps (member, bases, eval, symbol), so 64 reaches 16 levels up.
const maxInferDepth = 64

// facts returns the merged facts of scope (expanding the scope on first
// use) and records the scope as looked into.
func (t *table) facts(scope string) map[string]string {
	t.names(scope)
	return t.factsOf[scope]
}

// symbolOnce evaluates the name (possibly dotted) in scope: a declared class or
// function, a module-level variable, an imported name (followed into the
// module it comes from), or a name of a module re-exported with *.
func (t *table) symbolOnce(scope, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	s, ok := t.normScope(scope)
	if !ok {
		return value{}, false
	}
	if name == "" {
		if _, known := t.byScope[s]; !known {
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
	queue := decodeChains(t.facts(s)[factStar])
	for len(queue) > 0 {
		q, ok := t.normScope(queue[0].Scope)
		queue = queue[1:]
		if !ok || seen[q] {
			continue
		}
		seen[q] = true
		if v, found, _ := t.symbolHere(q, name, depth+1); found {
			return v, true
		}
		queue = append(queue, decodeChains(t.facts(q)[factStar])...)
	}
	return value{}, false
}

// symbolHere evaluates the name in the normalised scope s itself, without
// its star re-exports; final says the name was decided here (a dotted
// name, a variable or an import of s), found or not.
func (t *table) symbolHere(s, name string, depth int) (v value, found, final bool) {
	names, alias := t.names(s)
	if a, ok := alias[name]; ok {
		name = a
	}
	facts := t.factsOf[s]
	_, merged := facts[factMerged+name]
	_, isVar := facts[factVar+name]
	if cands := names[name]; len(cands) > 0 && !(merged && isVar) {
		c, _ := t.lookup(s, name, "")
		kind := valFunc
		if cands[0].Kind == graph.KindClass {
			kind = valClass
		}
		return value{kind: kind, scope: s, name: name, cand: c}, true, true
	}
	if f, ok := facts[factVar+name]; ok {
		if cs := decodeChains(f); len(cs) == 1 {
			v, found = t.eval(cs[0], depth+1)
		}
		return v, found, true
	}
	if _, ok := facts[factObject+name]; ok {
		return value{kind: valClass, scope: s, name: name}, true, true
	}
	if f, ok := facts[factImport+name]; ok {
		if cs := decodeChains(f); len(cs) == 1 {
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
func (t *table) typeSymbol(scope, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	s, ok := t.normScope(scope)
	if !ok || name == "" {
		return t.symbol(scope, name, depth+1)
	}
	names, alias := t.names(s)
	if a, ok := alias[name]; ok {
		name = a
	}
	facts := t.factsOf[s]
	if _, merged := facts[factMerged+name]; merged && len(t.byScope[s]) > 0 {
		return value{kind: valClass, scope: s, name: name, cand: withName(candidate{Path: t.byScope[s][0], Kind: graph.KindClass}, name)}, true
	}
	if len(names[name]) > 0 {
		return t.symbol(s, name, depth+1)
	}
	if v, ok := facts[factImport+name]; ok {
		if cs := decodeChains(v); len(cs) == 1 && !cs[0].Inst && len(cs[0].Steps) == 0 && cs[0].Name != "" {
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
	if _, ok := facts[factVar+name]; !ok {
		for _, c := range decodeChains(facts[factStar]) {
			if v, ok := t.typeSymbol(c.Scope, name, depth+1); ok {
				return v, true
			}
		}
	}
	return t.symbol(s, name, depth+1)
}

// eval evaluates a chain.
func (t *table) eval(c *chain, depth int) (value, bool) {
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
func (t *table) step(v value, step string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	if (step == callStep || step == newStep) && v.kind == valModule {
		// A CommonJS module called or constructed: what it assigned to
		// module.exports (its "default").
		d, ok := t.symbol(v.scope, "default", depth+1)
		if !ok || d.kind == valModule {
			return value{}, false
		}
		v = d
	}
	if step == callStep {
		switch v.kind {
		case valClass:
			v.kind = valInst
			return v, true
		case valFunc:
			r, ok := t.factsOf[v.scope][factReturn+v.name]
			if !ok {
				return value{}, false
			}
			cs := decodeChains(r)
			if len(cs) != 1 {
				return value{}, false
			}
			return t.eval(cs[0], depth+1)
		}
		return value{}, false
	}
	if step == newStep {
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
	if strings.HasPrefix(step, paramStep) {
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
		p, ok := t.facts(fn.scope)[factParam+fn.name+step]
		if !ok {
			return value{}, false
		}
		cs := decodeChains(p)
		if len(cs) != 1 {
			return value{}, false
		}
		return t.eval(cs[0], depth+1)
	}
	if step == classStep && v.kind == valInst {
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
func (t *table) memberOnce(v value, name string, super bool, depth int) (value, bool) {
	if t.tooDeep(depth) || (v.kind != valClass && v.kind != valInst) {
		return value{}, false
	}
	if !super {
		names, _ := t.names(v.scope)
		if cands := names[v.name+"."+name]; len(cands) > 0 {
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
func (t *table) attribute(v value, name string, depth int) (value, bool) {
	if t.tooDeep(depth) {
		return value{}, false
	}
	if a, ok := t.facts(v.scope)[factAttr+v.name+"."+name]; ok {
		if cs := decodeChains(a); len(cs) == 1 {
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
func (t *table) bases(v value, depth int) []value {
	var out []value
	for _, c := range decodeChains(t.facts(v.scope)[factBase+v.name]) {
		if b, ok := t.eval(c, depth+1); ok && b.kind == valClass {
			out = append(out, b)
		}
	}
	return out
}

// receiverTarget resolves the member name called on the value of recv: a
// method of its class or of a base, a function of a module. ok is false
// when the receiver or the member is unknown.
func (t *table) receiverTarget(recv *chain, name string) (candidate, bool) {
	if name == typeRefName {
		return t.typeTarget(recv)
	}
	v, ok := t.eval(&chain{Scope: recv.Scope, Name: recv.Name, Inst: recv.Inst, Steps: recv.Steps}, 0)
	if !ok {
		return candidate{}, false
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
		return candidate{}, false
	}
	// An instance is no declaration to call (a variable typed with an
	// interface, a module-level object): the call stays a stub.
	if !ok || m.cand.Path == "" || m.kind == valInst || m.kind == valModule {
		return candidate{}, false
	}
	return m.cand, true
}

// typeRefName, as the member name of a reference, makes the target the
// class or interface its receiver chain (Inst, no steps) names in a type
// position (JavaScript and TypeScript type references).
const typeRefName = "\x00type"

// typeTarget resolves the name of an Inst chain as a type: the class,
// interface or enum it names (the interface of a merged declaration).
func (t *table) typeTarget(recv *chain) (candidate, bool) {
	if !recv.Inst || len(recv.Steps) > 0 {
		return candidate{}, false
	}
	v, ok := t.typeSymbol(recv.Scope, recv.Name, 1)
	if !ok || v.kind != valClass || v.cand.Path == "" {
		return candidate{}, false
	}
	return v.cand, true
}
