package jsts

import (
	"path"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// Dialect returns "js", "ts" or "tsx" for a lower-case file name, ""
// for anything else.
func Dialect(lbase string) string {
	switch path.Ext(lbase) {
	case ".js", ".jsx", ".mjs", ".cjs":
		return "js"
	case ".ts", ".mts", ".cts":
		return "ts"
	case ".tsx":
		return "tsx"
	}
	return ""
}

// jsResolveExts are tried, in order, after a relative import specifier.
var jsResolveExts = []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts", "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs"}

// jsBinding is what an imported local name stands for.
type jsBinding struct {
	path string // resolved repository file, "" for a package
	pkg  string // npm package name, "" for a repository file
	name string // exported name; "" for a namespace (import * as x, require)
}

type jsFile struct {
	grammar  jsGrammar
	fr       *lang.Result
	e        *lang.Env
	src      []byte
	scope    string
	fileUID  string
	bindings map[string]jsBinding
	// top is the context of module-level code.
	top jsCtx
	// nodeAt indexes the declaration nodes emitted so far (uid → index in
	// fr.Nodes); bodied marks those whose range is a body's, which an
	// overload signature must not replace.
	nodeAt map[string]int
	bodied map[string]bool
	// moduleAliases are the names standing for the module's exports
	// object (exports, and app in var app = module.exports = {}).
	moduleAliases map[string]bool
	// exportedVars are the names x of module.exports = x (isModuleAlias).
	exportedVars map[string]bool
	// protoOf are the constructor functions given methods through
	// X.prototype: this.m() in them and their methods is X.m.
	protoOf map[string]bool
	// deferred bodies are read once every declaration of the file is
	// known.
	deferred []func()
	// conflict are the facts two signatures disagreed on (see fact).
	conflict map[string]bool
	// usesSeen are the references already added (jsts_refs.go).
	usesSeen map[useKey]bool
	// reading is set once every declaration is known and the bodies
	// are being read.
	reading bool
}

// extract parses JavaScript and TypeScript with tree-sitter (see the
// jsts entry of extract/doc.go for the nodes and their uids): functions, classes,
// interfaces and their methods, CommonJS exports and prototype methods,
// object-literal methods, imports and require() (edges to repository files
// or npm:package: nodes), calls and new with receivers inferred
// (jsts_calls.go), extends (inherits_from) and implements.
func extract(fr *lang.Result, data []byte, e *lang.Env) {
	src := lang.SourceText(data)
	dialect := Dialect(strings.ToLower(path.Base(fr.Path)))
	fileUID := lang.FileNode(fr, map[string]any{"language": dialect})
	grammar, gr := langJavaScript, jsGrammarJS
	switch dialect {
	case "ts":
		grammar, gr = langTypeScript, jsGrammarTS
	case "tsx":
		grammar, gr = langTSX, jsGrammarTSX
	}
	tree := ts.ParseFile(fr, grammar, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	js := &jsFile{fr: fr, e: e, src: src, grammar: gr, scope: "js:" + fr.Path, fileUID: fileUID,
		bindings: map[string]jsBinding{}, nodeAt: map[string]int{}, bodied: map[string]bool{},
		moduleAliases: map[string]bool{"exports": true}, exportedVars: map[string]bool{}, protoOf: map[string]bool{}, conflict: map[string]bool{}}
	js.top = jsCtx{from: fileUID}
	fr.Decl = &lang.Decl{Scope: js.scope, Names: map[string]string{}}
	top := ts.Children(root)
	for _, c := range top {
		js.exportedVar(&c)
	}
	for _, c := range top {
		js.statement(&c, false)
	}
	js.reading = true
	for i := 0; i < len(js.deferred); i++ {
		js.deferred[i]()
	}
	js.entries(root)
	// A variable merged with a class or interface of the same name.
	var merged []string
	for k := range fr.Decl.Facts {
		if name, ok := strings.CutPrefix(k, lang.FactVar); ok && fr.Decl.Names[name] == graph.KindClass {
			merged = append(merged, name)
		}
	}
	for _, name := range merged {
		fr.Decl.SetFact(lang.FactMerged+name, &lang.Chain{Scope: js.scope, Name: name})
	}
}

// declareName declares a name of the module. TypeScript merges a
// function and an interface (or class) of the same name: the name is the
// function, and in type positions the interface (factMerged).
func (js *jsFile) declareName(name, kind string) {
	old := js.fr.Decl.Names[name]
	switch {
	case old == "" || old == kind:
		js.fr.Decl.Names[name] = kind
	case (old == graph.KindFunction && kind == graph.KindClass) || (old == graph.KindClass && kind == graph.KindFunction):
		js.fr.Decl.Names[name] = graph.KindFunction
		js.fr.Decl.SetFact(lang.FactMerged+name, &lang.Chain{Scope: js.scope, Name: name})
	}
}

// later queues a body to read once the file's declarations are known.
func (js *jsFile) later(f func()) { js.deferred = append(js.deferred, f) }

// alias records that the exported name k stands for the name v.
func (js *jsFile) alias(k, v string) {
	if k == "" || v == "" || k == v {
		return
	}
	if js.fr.Decl.Alias == nil {
		js.fr.Decl.Alias = map[string]string{}
	}
	if _, ok := js.fr.Decl.Alias[k]; !ok {
		js.fr.Decl.Alias[k] = v
	}
}

// declNode emits the node of a declaration and its contains edge, once
// per uid; a later declaration with a body gives an earlier bodiless one
// (an overload signature) its range. It reports whether the node is new.
func (js *jsFile) declNode(uid, kind, label, container string, n *sitter.Node, bodied bool, meta map[string]any) bool {
	if i, ok := js.nodeAt[uid]; ok {
		if bodied && !js.bodied[uid] {
			js.fr.Nodes[i].Line, js.fr.Nodes[i].EndLine = ts.Line(n), ts.EndLine(n)
			js.bodied[uid] = true
		}
		return false
	}
	js.nodeAt[uid] = len(js.fr.Nodes)
	js.bodied[uid] = bodied
	js.fr.AddNode(graph.Node{UID: uid, Kind: kind, Label: label, Line: ts.Line(n), EndLine: ts.EndLine(n), Metadata: meta})
	js.fr.AddEdge(container, uid, graph.EdgeContains, ts.Line(n))
	return true
}

// statement handles one top-level statement.
func (js *jsFile) statement(n *sitter.Node, exportDefault bool) {
	switch js.kind(n) {
	case "export_statement":
		js.exportStmt(n)
	case "function_declaration", "generator_function_declaration", "function_signature":
		js.declFunction(ts.Text(js.field(n, "name"), js.src), n, n, exportDefault)
	case "class_declaration", "abstract_class_declaration", "class":
		js.class(n, "", exportDefault)
	case "interface_declaration":
		js.iface(n, js.field(n, "body"), "interface")
	case "type_alias_declaration":
		if v := js.field(n, "value"); v != nil && js.kind(v) == "object_type" {
			js.iface(n, v, "type")
		} else if v != nil { // type A<T> = B<T> | C: the file references B and C
			sc := &jsScope{}
			js.typeParams(n, sc, false)
			ctx := jsCtx{from: js.fileUID, scope: sc}
			js.later(func() {
				js.typeRefs(js.field(n, "type_parameters"), &ctx)
				js.typeRefs(v, &ctx)
			})
		}
	case "enum_declaration":
		if name := ts.Text(js.field(n, "name"), js.src); name != "" {
			js.declNode(lang.CodeUID("class", js.fr.Path, name), graph.KindClass, name, js.fileUID, n, true, map[string]any{"type_kind": "enum"})
			js.declareName(name, graph.KindClass)
		}
	case "ambient_declaration":
		for _, c := range ts.Children(n) {
			js.statement(&c, false)
		}
	case "lexical_declaration", "variable_declaration":
		for _, d := range ts.Children(n) {
			if js.kind(&d) == "variable_declarator" {
				js.declarator(&d)
			}
		}
	case "import_statement":
		js.importStmt(n)
	case "expression_statement":
		if n.NamedChildCount() == 1 && n.NamedChild(0).Kind() == "assignment_expression" && js.assignment(n.NamedChild(0)) {
			return
		}
		js.later(func() { js.calls(n, js.top) })
	default:
		js.later(func() { js.calls(n, js.top) })
	}
}

// exportStmt handles export declarations, default exports and re-exports.
func (js *jsFile) exportStmt(n *sitter.Node) {
	def := false
	for i := uint(0); i < n.ChildCount(); i++ {
		if c := n.Child(i); c != nil && js.kind(c) == "default" {
			def = true
		}
	}
	if d := js.field(n, "declaration"); d != nil {
		js.statement(d, def)
		return
	}
	if v := js.field(n, "value"); v != nil && def {
		js.defaultValue(v)
		return
	}
	if s := js.field(n, "source"); s != nil {
		target := js.importFrom(jsString(s, js.src), ts.Line(n))
		star := true
		for _, c := range ts.Children(n) {
			switch js.kind(&c) {
			case "namespace_export": // export * as ns from
				star = false
				for _, id := range ts.Children(&c) {
					js.reexport(ts.Text(&id, js.src), target, "")
				}
			case "export_clause":
				star = false
				for _, s := range ts.Children(&c) {
					name := ts.Text(js.field(&s, "name"), js.src)
					as := ts.Text(js.field(&s, "alias"), js.src)
					if as == "" {
						as = name
					}
					js.reexport(as, target, name)
				}
			}
		}
		if star && target.path != "" {
			js.fr.Decl.AddStar("js:" + target.path)
		}
		return
	}
	for _, c := range ts.Children(n) {
		switch js.kind(&c) {
		case "export_clause": // export {a, b as c}
			for _, s := range ts.Children(&c) {
				js.alias(ts.Text(js.field(&s, "alias"), js.src), ts.Text(js.field(&s, "name"), js.src))
			}
		case "identifier": // export = x
			js.alias("default", ts.Text(&c, js.src))
			js.later(func() { js.nameRef(js.fileUID, &c) })
		}
	}
}

// reexport makes name of this module stand for exported of target.
func (js *jsFile) reexport(name string, target jsBinding, exported string) {
	if name != "" && target.path != "" {
		js.fr.Decl.SetFact(lang.FactImport+name, &lang.Chain{Scope: "js:" + target.path, Name: exported})
	}
}

// defaultValue handles export default <expression> and module.exports =
// <expression>.
func (js *jsFile) defaultValue(v *sitter.Node) {
	switch js.kind(v) {
	case "identifier":
		js.alias("default", ts.Text(v, js.src))
		js.later(func() { js.nameRef(js.fileUID, v) })
	case "function_expression", "function", "arrow_function", "generator_function":
		name := ts.Text(js.field(v, "name"), js.src)
		if name == "" {
			name = "default"
		}
		js.declFunction(name, v, v, true)
	case "class":
		js.class(v, "", true)
	case "object":
		js.objectLiteral("", v, js.fileUID)
	default:
		js.later(func() { js.calls(v, js.top) })
	}
}

// declFunction declares a function of the module (named name) whose
// syntax is fn, declared by the statement n.
func (js *jsFile) declFunction(name string, n, fn *sitter.Node, exportDefault bool) {
	if name == "" {
		js.later(func() { js.calls(fn, js.top) })
		return
	}
	uid := lang.CodeUID("function", js.fr.Path, name)
	js.declNode(uid, graph.KindFunction, name, js.fileUID, n, js.field(fn, "body") != nil, nil)
	js.declareName(name, graph.KindFunction)
	if exportDefault {
		js.alias("default", name)
	}
	js.later(func() {
		ctx := jsCtx{from: uid}
		if js.protoOf[name] {
			ctx.thisPrefix = name
		}
		js.function(jsFunc{node: fn, ctx: ctx, retKey: name})
		if n != fn && n.KindId() == js.grammar.declarator { // const f: F = () => …
			js.typeRefs(js.field(n, "type"), &ctx)
		}
	})
}

// declarator handles one module-level variable.
func (js *jsFile) declarator(d *sitter.Node) {
	name := js.field(d, "name")
	value := js.field(d, "value")
	if name == nil {
		return
	}
	if js.kind(name) != "identifier" {
		if value != nil && !js.require(name, value) {
			js.later(func() { js.calls(value, js.top) })
		}
		return
	}
	vname := ts.Text(name, js.src)
	if value != nil {
		switch js.kind(value) {
		case "arrow_function", "function_expression", "function", "generator_function":
			js.declFunction(vname, d, value, false)
			return
		case "class":
			js.class(value, vname, false)
			return
		case "object":
			if t := js.field(d, "type"); t != nil {
				js.fr.Decl.SetFact(lang.FactVar+vname, js.typeChain(t, &js.top))
				js.later(func() { js.typeRefs(t, &js.top) })
			}
			js.fr.Decl.SetFact(lang.FactObject+vname, &lang.Chain{Scope: js.scope, Name: vname})
			js.objectLiteral(vname, value, js.fileUID)
			return
		case "assignment_expression":
			// var app = exports = module.exports = {}: app stands for
			// the module's exports.
			if js.assignment(value) && js.exportsTarget(value) {
				js.moduleAliases[vname] = true
				return
			}
		}
		if js.require(name, value) {
			return
		}
	}
	var c *lang.Chain
	if t := js.field(d, "type"); t != nil {
		c = js.typeChain(t, &js.top)
		js.fr.Decl.SetFact(lang.FactVar+vname+elemSuffix, js.elemType(t, &js.top))
		js.later(func() { js.typeRefs(t, &js.top) })
	} else if value != nil {
		c = js.valueChain(value, &js.top)
	}
	js.fr.Decl.SetFact(lang.FactVar+vname, c)
	if value != nil {
		js.later(func() { js.calls(value, js.top) })
	}
}

// class declares a class (name overrides a missing name: const X = class
// {}), its bases and implemented interfaces, its members, and the facts of
// its fields.
func (js *jsFile) class(n *sitter.Node, name string, exportDefault bool) {
	if nn := ts.Text(js.field(n, "name"), js.src); nn != "" && name == "" {
		name = nn
	}
	if name == "" && exportDefault {
		name = "default"
	}
	if name == "" {
		js.later(func() { js.calls(n, js.top) })
		return
	}
	uid := lang.CodeUID("class", js.fr.Path, name)
	js.declNode(uid, graph.KindClass, name, js.fileUID, n, true, nil)
	js.declareName(name, graph.KindClass)
	if exportDefault {
		js.alias("default", name)
	}
	sc := &jsScope{}
	js.typeParams(n, sc, true)
	inst := &lang.Chain{Scope: js.scope, Name: name, Inst: true}
	static := &lang.Chain{Scope: js.scope, Name: name}
	ctx := jsCtx{from: uid, scope: sc, this: inst, class: name}
	js.later(func() { js.typeRefs(js.field(n, "type_parameters"), &ctx) })
	var bases []*lang.Chain
	for _, c := range ts.Children(n) {
		if js.kind(&c) != "class_heritage" {
			continue
		}
		for _, h := range ts.Children(&c) {
			switch js.kind(&h) {
			case "extends_clause":
				v := js.field(&h, "value")
				if b := js.heritage(v, uid, lang.RefInherits, sc); b != nil {
					bases = append(bases, b)
				} else if v != nil {
					js.later(func() { js.calls(v, ctx) }) // extends mixin(Base)
				}
				js.later(func() { js.typeRefs(js.field(&h, "type_arguments"), &ctx) })
			case "implements_clause":
				for _, t := range ts.Children(&h) {
					js.heritage(&t, uid, graph.EdgeImplements, sc)
					js.later(func() { js.typeArgRefs(&t, &ctx) })
				}
			default: // JavaScript: class_heritage holds the expression
				if b := js.heritage(&h, uid, lang.RefInherits, sc); b != nil {
					bases = append(bases, b)
				} else {
					js.later(func() { js.calls(&h, ctx) })
				}
			}
		}
	}
	js.fr.Decl.SetFact(lang.FactBase+name, bases...)
	var ctor []func()
	saved := js.deferred
	js.deferred = nil
	for _, m := range ts.Children(js.field(n, "body")) {
		m := m
		isStatic := js.hasToken(&m, "static")
		mctx := ctx
		if isStatic {
			mctx.this = static
		}
		switch js.kind(&m) {
		case "method_definition", "method_signature", "abstract_method_signature":
			mname := js.memberName(js.field(&m, "name"))
			if mname == "" {
				js.later(func() { js.calls(&m, mctx) })
				continue
			}
			muid := js.member(uid, name, mname, &m, js.kind(&m) == "method_definition")
			read := func() { mctx.from = muid; js.function(jsFunc{node: &m, ctx: mctx, retKey: name + "." + mname}) }
			if mname == "constructor" {
				ctor = append(ctor, read)
			} else {
				js.later(read)
			}
		case "public_field_definition", "field_definition":
			js.classField(&m, uid, name, mctx, isStatic)
		case "class_static_block":
			sctx := ctx
			sctx.this = static
			js.later(func() { js.calls(&m, sctx) })
		default:
			js.later(func() { js.calls(&m, mctx) })
		}
	}
	// Constructors first: their this.x = … are the attributes' values.
	members := js.deferred
	js.deferred = append(append(saved, ctor...), members...)
}

// member declares the method label.mname (kind method) contained by
// container and returns its uid.
func (js *jsFile) member(container, owner, mname string, n *sitter.Node, bodied bool) string {
	full := owner + "." + mname
	muid := lang.CodeUID("function", js.fr.Path, full)
	js.declNode(muid, graph.KindMethod, full, container, n, bodied, nil)
	js.fr.Decl.Names[full] = graph.KindMethod
	return muid
}

// classField declares a class field: a method when it holds a function (m =
// () => {}, or m: () => void), else the value of the attribute.
func (js *jsFile) classField(m *sitter.Node, uid, class string, ctx jsCtx, isStatic bool) {
	nameNode := js.field(m, "name")
	if nameNode == nil {
		nameNode = js.field(m, "property")
	}
	fname := js.memberName(nameNode)
	value := js.field(m, "value")
	typ := js.field(m, "type")
	if fname == "" {
		js.later(func() { js.calls(m, ctx) })
		return
	}
	if value != nil {
		switch js.kind(value) {
		case "arrow_function", "function_expression", "function", "generator_function":
			muid := js.member(uid, class, fname, m, true)
			js.later(func() {
				ctx.from = muid
				js.function(jsFunc{node: value, ctx: ctx, retKey: class + "." + fname})
				js.typeRefs(typ, &ctx)
			})
			return
		}
	}
	if ft := js.functionType(typ); ft != nil {
		muid := js.member(uid, class, fname, m, false)
		js.later(func() { mctx := ctx; mctx.from = muid; js.typeRefs(typ, &mctx) })
		js.fact(lang.FactReturn+class+"."+fname, js.typeChain(js.field(ft, "return_type"), js.outside(&ctx)))
		return
	}
	if typ != nil {
		js.later(func() { js.typeRefs(typ, &ctx) })
	}
	if !isStatic {
		if typ != nil {
			js.fr.Decl.SetFact(lang.FactAttr+class+"."+fname, js.typeChain(typ, js.outside(&ctx)))
			js.fr.Decl.SetFact(lang.FactAttr+class+"."+fname+elemSuffix, js.elemType(typ, js.outside(&ctx)))
		} else if value != nil {
			js.fr.Decl.SetFact(lang.FactAttr+class+"."+fname, js.valueChain(value, &ctx))
		}
	}
	if value != nil {
		js.later(func() { js.calls(value, ctx) })
	}
}

// functionType returns the function type a type annotation names, nil
// when it names something else.
func (js *jsFile) functionType(t *sitter.Node) *sitter.Node {
	for t != nil {
		switch js.kind(t) {
		case "type_annotation", "parenthesized_type":
			t = t.NamedChild(t.NamedChildCount() - 1)
			continue
		case "function_type":
			return t
		}
		return nil
	}
	return nil
}

// iface declares an interface (or an object type alias) with its method
// signatures and function-typed properties as methods <I>.<m>, its
// extended interfaces as bases and its other properties as attributes.
func (js *jsFile) iface(n, body *sitter.Node, typeKind string) {
	name := ts.Text(js.field(n, "name"), js.src)
	if name == "" {
		return
	}
	uid := lang.CodeUID("class", js.fr.Path, name)
	js.declNode(uid, graph.KindClass, name, js.fileUID, n, true, map[string]any{"type_kind": typeKind})
	js.declareName(name, graph.KindClass)
	sc := &jsScope{}
	js.typeParams(n, sc, true)
	ctx := jsCtx{from: uid, scope: sc, class: name}
	js.later(func() { js.typeRefs(js.field(n, "type_parameters"), &ctx) })
	var bases []*lang.Chain
	for _, c := range ts.Children(n) {
		if js.kind(&c) != "extends_type_clause" {
			continue
		}
		for _, t := range ts.Children(&c) {
			if b := js.heritage(&t, uid, lang.RefInherits, sc); b != nil {
				bases = append(bases, b)
			}
			js.later(func() { js.typeArgRefs(&t, &ctx) })
		}
	}
	js.fr.Decl.SetFact(lang.FactBase+name, bases...)
	for _, m := range ts.Children(body) {
		m := m
		mname := js.memberName(js.field(&m, "name"))
		if mname == "" {
			js.later(func() { js.typeRefs(&m, &ctx) }) // index, call and construct signatures, [k: K]
			continue
		}
		switch js.kind(&m) {
		case "method_signature":
			mctx := ctx
			mctx.from = js.member(uid, name, mname, &m, false)
			js.function(jsFunc{node: &m, ctx: mctx, retKey: name + "." + mname})
		case "property_signature":
			typ := js.field(&m, "type")
			if ft := js.functionType(typ); ft != nil {
				mctx := ctx
				mctx.from = js.member(uid, name, mname, &m, false)
				js.later(func() { js.typeRefs(typ, &mctx) })
				js.fact(lang.FactReturn+name+"."+mname, js.typeChain(js.field(ft, "return_type"), js.outside(&ctx)))
				continue
			}
			js.later(func() { js.typeRefs(typ, &ctx) })
			js.fr.Decl.SetFact(lang.FactAttr+name+"."+mname, js.typeChain(typ, js.outside(&ctx)))
			js.fr.Decl.SetFact(lang.FactAttr+name+"."+mname+elemSuffix, js.elemType(typ, js.outside(&ctx)))
		}
	}
}

// memberName is the name of a class or object member: an identifier,
// a private #name, or a string literal; "" for a computed name.
func (js *jsFile) memberName(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch js.kind(n) {
	case "property_identifier", "private_property_identifier", "identifier":
		return ts.Text(n, js.src)
	case "string":
		return jsString(n, js.src)
	}
	return ""
}

// hasToken reports whether n has an anonymous child token tok (static,
// async, get).
func (js *jsFile) hasToken(n *sitter.Node, tok string) bool {
	for i := uint(0); i < n.ChildCount(); i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		if js.kind(c) == tok {
			return true
		}
		if c.IsNamed() && js.kind(c) != "decorator" && js.kind(c) != "accessibility_modifier" {
			return false // modifiers come before the name
		}
	}
	return false
}

// jsString returns the value of a string literal node.
func jsString(n *sitter.Node, src []byte) string {
	t := ts.Text(n, src)
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'' || t[0] == '`') {
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(t[1:len(t)-1], `"`, `\"`) + `"`); err == nil {
			return u
		}
		return t[1 : len(t)-1]
	}
	return t
}
