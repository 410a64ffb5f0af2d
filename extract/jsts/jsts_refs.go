package jsts

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// references edges of JavaScript and TypeScript: what a function, class
// or module uses without calling it — a function or class named as a
// value (passed, stored, returned, exported), a member read (this.m, a
// getter, ns.f), a class, interface or enum named in a type (annotations,
// type arguments, heritage, x as C, typeof x). A name is resolved the
// way a call's is (locals and type parameters shadow the module's names,
// imports are followed); a reference that resolves to nothing is
// dropped, never a stub.

// useKey dedups uses within one source node: a name of the module (sc
// nil) or a member expression read in one scope means one thing.
type useKey struct {
	from string
	sc   *jsScope
	text string
}

// jsTypeUses keys the type uses apart from the value uses of a name
// (a merged function and interface are two targets).
var jsTypeUses = &jsScope{}

// bytes returns the source text of n without copying it.
func (js *jsFile) bytes(n *sitter.Node) []byte {
	s, e := n.StartByte(), n.EndByte()
	if e > uint(len(js.src)) || s > e {
		return nil
	}
	return js.src[s:e]
}

// knownBytes reports whether a name may stand for a declaration of the
// repository: a function, class or variable of the module, or a name
// imported from a repository file. Globals (console, Promise, Array) and
// names from packages are not, which spares resolving them.
func (js *jsFile) knownBytes(name []byte) bool {
	d := js.fr.Decl
	if _, ok := d.Names[string(name)]; ok {
		return true
	}
	if b, ok := js.bindings[string(name)]; ok {
		return b.path != ""
	}
	if js.moduleAliases[string(name)] {
		return true
	}
	if len(d.Facts) == 0 {
		return false
	}
	// A module variable (v:), object (o:) or re-exported import (i:).
	var key [64]byte
	if len(name)+2 > len(key) {
		return false
	}
	for _, p := range [...]string{lang.FactVar, lang.FactObject, lang.FactImport} {
		k := append(append(key[:0], p...), name...)
		if _, ok := d.Facts[string(k)]; ok {
			return true
		}
	}
	return false
}

// namesKnown reports whether the source text of some type syntax holds
// a word that is a known name (knownBytes): most annotations (string,
// T[], Promise<void>) do not, and are not walked.
func (js *jsFile) namesKnown(text []byte) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if !jsWordStart(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && (jsWordStart(text[j]) || (text[j] >= '0' && text[j] <= '9')) {
			j++
		}
		if js.knownBytes(text[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// jsBareName returns the name a type annotation or type is when it is
// one plain name (": C", "C"); ok is false otherwise.
func jsBareName(text []byte) (string, bool) {
	i := 0
	if len(text) > 0 && text[0] == ':' {
		i++
	}
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i == len(text) || !jsWordStart(text[i]) {
		return "", false
	}
	for j := i + 1; j < len(text); j++ {
		if c := text[j]; !jsWordStart(c) && (c < '0' || c > '9') {
			return "", false
		}
	}
	return string(text[i:]), true
}

// jsWordStart reports whether c may start an identifier (ASCII; a name
// with other letters is looked up whole or not at all, which only costs
// a walk).
func jsWordStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80
}

// seenUse reports whether k was used before, recording it.
func (js *jsFile) seenUse(k useKey) bool {
	if js.usesSeen == nil {
		js.usesSeen = map[useKey]bool{}
	}
	if js.usesSeen[k] {
		return true
	}
	js.usesSeen[k] = true
	return false
}

// use adds the references reference of a name or member expression read
// as a value.
func (js *jsFile) use(n *sitter.Node, ctx *jsCtx) {
	g := &js.grammar
	switch n.KindId() {
	case g.ident, g.shorthand:
		name := ts.Text(n, js.src)
		if _, local := ctx.scope.lookup(name); local {
			return
		}
		if js.seenUse(useKey{from: ctx.from, text: name}) {
			return
		}
	case g.member:
		obj := js.field(n, "object")
		if obj == nil {
			return
		}
		switch obj.KindId() {
		case g.ident:
			// A global (console.log, Math.max) or a package's
			// namespace resolves to nothing here.
			if c, local := ctx.scope.lookup(ts.Text(obj, js.src)); (local && c == nil) || (!local && !js.knownBytes(js.bytes(obj))) {
				return
			}
		case g.member, g.call:
		default:
			if k := js.kind(obj); k != "this" && k != "super" && k != "parenthesized_expression" && k != "non_null_expression" && k != "subscript_expression" {
				return
			}
		}
		if js.seenUse(useKey{from: ctx.from, sc: ctx.scope, text: string(js.bytes(n))}) {
			return
		}
	default:
		return
	}
	js.reference(n, ctx, graph.EdgeReferences)
}

// typeRefs adds the references of the type names written in the type
// syntax t (an annotation, type arguments, a type alias, a heritage
// clause, a bare type_identifier): each class, interface or enum named,
// and the values named in typeof. The declaration's type parameters,
// and those a type declares itself (generic function types, mapped
// types, infer U), are no reference.
func (js *jsFile) typeRefs(t *sitter.Node, ctx *jsCtx) {
	if t == nil {
		return
	}
	text := js.bytes(t)
	if !js.namesKnown(text) {
		return
	}
	if name, ok := jsBareName(text); ok { // : C, the most common
		js.typeRef(name, t, ctx)
		return
	}
	g := &js.grammar
	var own map[string]bool // type parameters declared inside t
	ts.WalkSkip(t, func(x *sitter.Node) bool {
		switch id := x.KindId(); id {
		case g.typeIdent:
			if js.knownBytes(js.bytes(x)) {
				if name := ts.Text(x, js.src); !own[name] {
					js.typeRef(name, x, ctx)
				}
			}
			return false
		case g.ident:
			if js.knownBytes(js.bytes(x)) {
				js.use(x, ctx) // typeof x
			}
			return false
		case g.member:
			js.use(x, ctx) // typeof a.b
			return true
		}
		switch js.kind(x) {
		case "nested_type_identifier": // ns.C
			name := ts.Text(x, js.src)
			head, _, _ := strings.Cut(name, ".")
			if js.knownBytes([]byte(head)) {
				js.typeRef(name, x, ctx)
			}
			return false
		case "type_parameter", "mapped_type_clause":
			if own == nil {
				own = map[string]bool{}
			}
			own[ts.Text(js.field(x, "name"), js.src)] = true
		case "infer_type":
			if own == nil {
				own = map[string]bool{}
			}
			if x.NamedChildCount() > 0 {
				own[ts.Text(x.NamedChild(0), js.src)] = true
			}
			return false
		case "required_parameter", "optional_parameter": // (x: T) => …: x is no use
			js.typeRefs(js.field(x, "type"), ctx)
			return false
		case "property_identifier", "string", "template_literal_type", "literal_type", "predefined_type", "this_type", "this":
			return false
		}
		return true
	})
}

// typeArgRefs adds the references of the type arguments of a base type
// (implements I<A>, extends J<B>), whose name is an inherits_from or
// implements edge already.
func (js *jsFile) typeArgRefs(t *sitter.Node, ctx *jsCtx) {
	if t != nil && js.kind(t) == "generic_type" {
		js.typeRefs(js.field(t, "type_arguments"), ctx)
	}
}

// typeRef adds the references reference of a type name (dotted for
// ns.C) written at x: the class, interface or enum it names in a type
// position (TypeScript's merged declarations: the interface), resolved
// through the file's imports; nothing for a type parameter or a local.
func (js *jsFile) typeRef(name string, x *sitter.Node, ctx *jsCtx) {
	head, rest, dotted := strings.Cut(name, ".")
	if _, local := ctx.scope.lookupType(head, false); local {
		return
	}
	if js.seenUse(useKey{from: ctx.from, sc: jsTypeUses, text: name}) {
		return
	}
	recv := &lang.Chain{Scope: js.scope, Name: name, Inst: true}
	if b, ok := js.bindings[head]; ok {
		if b.path == "" {
			return // a package's type
		}
		inner := b.name
		switch {
		case inner == "" && !dotted:
			return // a namespace is no type
		case inner == "":
			inner = rest
		case dotted:
			inner += "." + rest
		}
		recv = &lang.Chain{Scope: "js:" + b.path, Name: inner, Inst: true}
	}
	js.fr.Refs = append(js.fr.Refs, lang.Ref{Type: graph.EdgeReferences, From: ctx.from, Line: ts.Line(x), Recv: recv, Name: lang.TypeRefName})
}

// jsSignature is what a function's signature holds for references: the
// types of its parameters, its return type and type parameters, and its
// parameters' default values.
type jsSignature struct {
	types, values []*sitter.Node
}

// signatureRefs adds the references (and calls) of a function's
// signature, read in its scope.
func (js *jsFile) signatureRefs(sig *jsSignature, ctx jsCtx) {
	for _, t := range sig.types {
		js.typeRefs(t, &ctx)
	}
	for _, v := range sig.values {
		js.calls(v, ctx)
	}
}

// nameRef adds the references reference of from to the module-level
// name written at n (module.exports = X, exports.a = X, the X of
// X.prototype.m = function).
func (js *jsFile) nameRef(from string, n *sitter.Node) {
	if n == nil || n.KindId() != js.grammar.ident || !js.knownBytes(js.bytes(n)) {
		return
	}
	js.use(n, &jsCtx{from: from})
}
