package lang

import "strings"

// A chain names a value: the symbol Name looked up in Scope, followed by
// Steps. Name may be dotted ("mod.Class"), or empty for the module of
// Scope itself. A step is an attribute name or "()" for a call.
//
//	x: Child          → {Scope: py:a.py, Name: Child, Inst: true}
//	c = C()           → {Scope: py:a.py, Name: C, Steps: ["()"]}
//	self.conn.send()  → receiver {Scope: py:a.py, Name: Handler, Inst: true, Steps: ["conn"]}
//	super().close()   → receiver {Scope: py:a.py, Name: Handler, Inst: true, Super: true}
type Chain struct {
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

// CallStep is the step of a chain that calls the value.
const CallStep = "()"

// ClassStep is the attribute that turns an instance into its class
// (x.__class__, type(x)).
const ClassStep = "__class__"

// NewStep is the step of a chain that constructs an instance of the value
// (JavaScript new C(), new F() of a constructor function F, whose
// methods are declared F.m).
const NewStep = "new"

// Then returns a copy of c with one more step.
func (c *Chain) Then(step string) *Chain {
	if c == nil {
		return nil
	}
	n := *c
	n.Steps = append(append([]string(nil), c.Steps...), step)
	return &n
}

// Fact keys of Decl.Facts, each followed by a declared name of the file's
// scope; values are encoded chains (EncodeChains).
const (
	FactBase   = "b:" // b:<Class> → the class's bases, in order
	FactAttr   = "a:" // a:<Class>.<attr> → the value of an instance attribute
	FactReturn = "r:" // r:<Func> or r:<Class>.<method> → the value a call returns
	FactVar    = "v:" // v:<name> → the value of a module-level variable
	FactImport = "i:" // i:<name> → what a name imported into the module stands for
	FactStar   = "s:" // s: → modules re-exported wholesale (the chains' Scopes)
	// o:<name> → name is a module-level object literal whose members are
	// declared as <name>.<member> (JavaScript const o = {m() {}}); it
	// evaluates like a class, so o.m() finds them. The chain is unused.
	FactObject = "o:"
	// p:<Func>@<i>.<j> → the value of parameter j of the function passed
	// as argument i to Func (a callback's parameter, typed by the
	// declaration of the function it is passed to); see paramStep.
	FactParam = "p:"
	// m:<name> → name is declared both as a value (a function or a
	// variable) and as a class or interface of the module (TypeScript
	// declaration merging): in a type position it is the class, in a
	// value position the function or the variable. The chain is unused.
	FactMerged = "m:"
)

// ParamStep prefixes a chain step "@<i>.<j>": the value of parameter j of
// the function passed as argument i when the value (a function, or a
// class for new C(…)) is called, as factParam records it.
const ParamStep = "@"

// Separators of encoded chains: fields of a chain, chains of a list.
const (
	chainFieldSep = "\x1e"
	chainListSep  = "\x1f"
)

// EncodeChains encodes chains as one fact value.
func EncodeChains(cs ...*Chain) string {
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

// DecodeChains is the inverse of EncodeChains; malformed entries are
// dropped.
func DecodeChains(s string) []*Chain {
	if s == "" {
		return nil
	}
	var out []*Chain
	for part := range strings.SplitSeq(s, chainListSep) {
		f := strings.Split(part, chainFieldSep)
		if len(f) < 3 {
			continue
		}
		c := &Chain{Scope: f[0], Name: f[1], Inst: strings.Contains(f[2], "i"), Super: strings.Contains(f[2], "s")}
		if len(f) > 3 {
			c.Steps = f[3:]
		}
		out = append(out, c)
	}
	return out
}

// SetFact records a fact in d (the first one of a key wins, as the first
// assignment of an attribute does for a reader).
func (d *Decl) SetFact(key string, cs ...*Chain) {
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
		d.Facts[key] = EncodeChains(cs...)
	}
}

// AddStar records a module re-exported wholesale by scope.
func (d *Decl) AddStar(scope string) {
	if d == nil || scope == "" {
		return
	}
	if d.Facts == nil {
		d.Facts = map[string]string{}
	}
	cur := d.Facts[FactStar]
	for _, c := range DecodeChains(cur) {
		if c.Scope == scope {
			return
		}
	}
	if cur != "" {
		cur += chainListSep
	}
	d.Facts[FactStar] = cur + EncodeChains(&Chain{Scope: scope})
}

// TypeRefName, as the member name of a reference, makes the target the
// class or interface its receiver chain (Inst, no steps) names in a type
// position (JavaScript and TypeScript type references).
const TypeRefName = "\x00type"
