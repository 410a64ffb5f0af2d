package jsts

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// How JavaScript and TypeScript modules name each other's declarations:
// ES imports and re-exports, require(), and the CommonJS ways of
// declaring what a module exports (exports.m = …, module.exports = …)
// and of giving a constructor function methods (X.prototype.m = …).

// resolveSpec resolves an import specifier: a repository file for a
// relative one; for a bare one, the file a tsconfig.json path mapping or
// a package.json of the tree or of another root (a workspace member)
// leads to (jsts_packages.go), a graph path of that root
// (graph.RootedPath) when it is another; an npm package name otherwise.
func (js *jsFile) resolveSpec(spec string) (file, pkg string) {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		base := path.Join(path.Dir(js.fr.Path), spec)
		if base == ".." || strings.HasPrefix(base, "../") {
			return "", ""
		}
		for _, ext := range jsResolveExts {
			if js.e.Files[base+ext] {
				return base + ext, ""
			}
		}
		// ./x.js written for x.ts (TypeScript's ESM convention).
		if stem, ok := strings.CutSuffix(base, ".js"); ok {
			for _, ext := range []string{".ts", ".tsx"} {
				if js.e.Files[stem+ext] {
					return stem + ext, ""
				}
			}
		}
		return "", ""
	}
	if strings.HasPrefix(spec, "/") || spec == "" {
		return "", ""
	}
	if f := js.mappedFile(spec); f != "" {
		return f, ""
	}
	if f, ok := js.packageFile(spec); ok && f != "" {
		return f, ""
	}
	parts := strings.Split(spec, "/")
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		return "", parts[0] + "/" + parts[1]
	}
	return "", parts[0]
}

// importFrom adds the imports edge of a specifier and returns its binding
// target.
func (js *jsFile) importFrom(spec string, line int) jsBinding {
	file, pkg := js.resolveSpec(spec)
	switch {
	case file != "":
		js.fr.AddEdge(js.fileUID, lang.FileUID(file), graph.EdgeImports, line)
	case pkg != "":
		uid := lang.ClampUID("npm:package:" + lang.UIDPart(pkg))
		js.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindDependency, Label: lang.CleanString(pkg), Metadata: map[string]any{"ecosystem": "npm"}})
		js.fr.AddEdge(js.fileUID, uid, graph.EdgeImports, line)
	case strings.HasPrefix(spec, "."):
		js.fr.Refs = append(js.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: "missing:js:" + path.Join(path.Dir(js.fr.Path), spec)})
	}
	return jsBinding{path: file, pkg: pkg}
}

// bind makes the module-level name local stand for b; a repository
// binding is also an import fact, so that the resolver follows it (and
// so that a module importing this one finds local through it).
func (js *jsFile) bind(local string, b jsBinding) {
	if local == "" {
		return
	}
	js.bindings[local] = b
	if b.path != "" {
		js.fr.Decl.SetFact(lang.FactImport+local, &lang.Chain{Scope: "js:" + b.path, Name: b.name})
	}
}

func (js *jsFile) importStmt(n *sitter.Node) {
	src := js.field(n, "source")
	for _, c := range ts.Children(n) {
		if js.kind(&c) == "import_require_clause" { // import x = require('./x')
			if s := js.field(&c, "source"); s != nil && c.NamedChildCount() > 0 {
				js.bind(ts.Text(c.NamedChild(0), js.src), js.importFrom(jsString(s, js.src), ts.Line(n)))
			}
			return
		}
	}
	if src == nil {
		return
	}
	target := js.importFrom(jsString(src, js.src), ts.Line(n))
	for _, c := range ts.Children(n) {
		if js.kind(&c) != "import_clause" {
			continue
		}
		for _, k := range ts.Children(&c) {
			switch js.kind(&k) {
			case "identifier": // default import
				b := target
				b.name = "default"
				js.bind(ts.Text(&k, js.src), b)
			case "namespace_import":
				for _, id := range ts.Children(&k) {
					if js.kind(&id) == "identifier" {
						js.bind(ts.Text(&id, js.src), target)
					}
				}
			case "named_imports":
				for _, s := range ts.Children(&k) {
					if js.kind(&s) != "import_specifier" {
						continue
					}
					name := ts.Text(js.field(&s, "name"), js.src)
					alias := ts.Text(js.field(&s, "alias"), js.src)
					if alias == "" {
						alias = name
					}
					b := target
					b.name = name
					js.bind(alias, b)
				}
			}
		}
	}
}

// requireSpec returns the specifier of require("spec"), "" when n is no
// such call.
func (js *jsFile) requireSpec(n *sitter.Node) (string, bool) {
	if n == nil || js.kind(n) != "call_expression" {
		return "", false
	}
	f := js.field(n, "function")
	args := js.field(n, "arguments")
	if f == nil || args == nil || js.kind(f) != "identifier" || ts.Text(f, js.src) != "require" {
		return "", false
	}
	kids := ts.Children(args)
	if len(kids) != 1 || kids[0].Kind() != "string" {
		return "", false
	}
	return jsString(&kids[0], js.src), true
}

// require handles const x = require("m"), const {a, b: c} = require("m"),
// const x = require("m").y and const x = require("m")(…); it reports
// whether value was one of them.
func (js *jsFile) require(name, value *sitter.Node) bool {
	member := ""
	call := value
	switch js.kind(value) {
	case "member_expression":
		call = js.field(value, "object")
		member = ts.Text(js.field(value, "property"), js.src)
	case "call_expression":
		if f := js.field(value, "function"); f != nil && js.kind(f) == "call_expression" {
			if spec, ok := js.requireSpec(f); ok { // require("debug")("x"): an unknown value
				js.importFrom(spec, ts.Line(value))
				js.later(func() { js.calls(js.field(value, "arguments"), js.top) })
				return true
			}
		}
	}
	spec, ok := js.requireSpec(call)
	if !ok {
		return false
	}
	target := js.importFrom(spec, ts.Line(value))
	switch js.kind(name) {
	case "identifier":
		b := target
		b.name = member
		js.bind(ts.Text(name, js.src), b)
	case "object_pattern":
		if member != "" {
			return true
		}
		for _, p := range ts.Children(name) {
			switch js.kind(&p) {
			case "shorthand_property_identifier_pattern":
				b := target
				b.name = ts.Text(&p, js.src)
				js.bind(b.name, b)
			case "pair_pattern":
				b := target
				b.name = ts.Text(js.field(&p, "key"), js.src)
				if v := js.field(&p, "value"); v != nil && js.kind(v) == "identifier" {
					js.bind(ts.Text(v, js.src), b)
				}
			}
		}
	}
	return true
}

// exportsTarget reports whether an assignment (chain) assigns
// module.exports or exports itself.
func (js *jsFile) exportsTarget(a *sitter.Node) bool {
	for a != nil && js.kind(a) == "assignment_expression" {
		if js.isExports(js.field(a, "left")) {
			return true
		}
		a = js.field(a, "right")
	}
	return false
}

// isExports reports whether n is module.exports or exports.
func (js *jsFile) isExports(n *sitter.Node) bool {
	if n == nil {
		return false
	}
	switch js.kind(n) {
	case "identifier":
		return ts.Text(n, js.src) == "exports"
	case "member_expression":
		obj := js.field(n, "object")
		return obj != nil && js.kind(obj) == "identifier" && ts.Text(obj, js.src) == "module" &&
			ts.Text(js.field(n, "property"), js.src) == "exports"
	}
	return false
}

// exportedVar notes module.exports = x for a name x before any statement
// is read, since x.m = function … may come first: x is then the module's
// exports object (unless the module declares x as a function or class,
// whose members stay its own).
func (js *jsFile) exportedVar(n *sitter.Node) {
	if js.kind(n) != "expression_statement" || n.NamedChildCount() != 1 {
		return
	}
	a := n.NamedChild(0)
	if js.kind(a) != "assignment_expression" || !js.exportsTarget(a) {
		return
	}
	v := a
	for v != nil && js.kind(v) == "assignment_expression" {
		v = js.field(v, "right")
	}
	if v != nil && js.kind(v) == "identifier" {
		js.exportedVars[ts.Text(v, js.src)] = true
	}
}

// isModuleAlias reports whether the module-level name stands for the
// module's exports object.
func (js *jsFile) isModuleAlias(name string) bool {
	if js.moduleAliases[name] {
		return true
	}
	if !js.exportedVars[name] {
		return false
	}
	k := js.fr.Decl.Names[name]
	return k != graph.KindClass && k != graph.KindFunction && js.fr.Decl.Facts[lang.FactObject+name] == ""
}

// assignment handles a module-level assignment that declares something:
// module.exports = …, exports.m = …, X.prototype.m = …, X.prototype = {…}
// and X.m = … for a function, class or object X of the module. It reports
// whether it did (the value's calls are then read with the declaration).
func (js *jsFile) assignment(a *sitter.Node) bool {
	var targets []*sitter.Node
	v := a
	for v != nil && js.kind(v) == "assignment_expression" {
		targets = append(targets, js.field(v, "left"))
		v = js.field(v, "right")
	}
	if v == nil {
		return false
	}
	for _, t := range targets {
		if js.isExports(t) {
			for _, t := range targets {
				if t != nil && js.kind(t) == "identifier" {
					js.moduleAliases[ts.Text(t, js.src)] = true
				}
			}
			if spec, ok := js.requireSpec(v); ok { // module.exports = require('./x')
				if b := js.importFrom(spec, ts.Line(v)); b.path != "" {
					js.fr.Decl.AddStar("js:" + b.path)
					js.fr.Decl.SetFact(lang.FactImport+"default", &lang.Chain{Scope: "js:" + b.path, Name: "default"})
				}
				return true
			}
			js.defaultValue(v)
			return true
		}
	}
	if len(targets) != 1 || targets[0].Kind() != "member_expression" {
		return false
	}
	t := targets[0]
	obj := js.field(t, "object")
	prop := js.memberName(js.field(t, "property"))
	if obj == nil || prop == "" {
		return false
	}
	// X.prototype = {m() {}, …}
	if prop == "prototype" && js.kind(obj) == "identifier" && js.kind(v) == "object" {
		owner := ts.Text(obj, js.src)
		js.protoOf[owner] = true
		js.objectLiteral(owner, v, js.container(owner))
		return true
	}
	fn := js.isFunction(v)
	switch {
	case js.isExports(obj) || (js.kind(obj) == "identifier" && js.isModuleAlias(ts.Text(obj, js.src))):
		// exports.m = function, module.exports.m = …: the module's
		// function m; app.m = … for app = module.exports: the method
		// app.m, which the module exports as m.
		if owner := ts.Text(obj, js.src); fn && js.kind(obj) == "identifier" && owner != "exports" {
			js.method(owner, prop, a, v, js.fileUID, owner)
			js.fr.Decl.SetFact(lang.FactImport+prop, &lang.Chain{Scope: js.scope, Name: owner + "." + prop})
			return true
		}
		if fn {
			js.declFunction(prop, a, v, false)
			return true
		}
		if js.kind(v) == "identifier" {
			js.alias(prop, ts.Text(v, js.src))
			js.later(func() { js.nameRef(js.fileUID, v) })
		} else if spec, ok := js.requireSpec(v); ok { // exports.m = require('./m')
			if b := js.importFrom(spec, ts.Line(v)); b.path != "" {
				js.fr.Decl.SetFact(lang.FactImport+prop, &lang.Chain{Scope: "js:" + b.path, Name: "default"})
			}
			return true
		}
		return false
	case js.kind(obj) == "member_expression" && ts.Text(js.field(obj, "property"), js.src) == "prototype":
		// X.prototype.m = function
		x := js.field(obj, "object")
		if x == nil || js.kind(x) != "identifier" || !fn {
			return false
		}
		owner := ts.Text(x, js.src)
		js.protoOf[owner] = true
		muid := js.method(owner, prop, a, v, js.container(owner), owner)
		js.later(func() { js.nameRef(muid, x) })
		return true
	case js.kind(obj) == "identifier" && fn:
		// X.m = function for a function, class or object X of the module
		owner := ts.Text(obj, js.src)
		if js.fr.Decl.Names[owner] == "" && js.fr.Decl.Facts[lang.FactObject+owner] == "" {
			return false
		}
		thisPrefix := owner
		if js.fr.Decl.Names[owner] == graph.KindClass {
			thisPrefix = ""
		}
		muid := js.method(owner, prop, a, v, js.container(owner), thisPrefix)
		js.later(func() { js.nameRef(muid, obj) })
		return true
	}
	return false
}

// isFunction reports whether n is a function expression or arrow.
func (js *jsFile) isFunction(n *sitter.Node) bool {
	switch js.kind(n) {
	case "function_expression", "function", "arrow_function", "generator_function":
		return true
	}
	return false
}

// container is the node that contains the members of owner: its class or
// function node when the module declares one, else the file.
func (js *jsFile) container(owner string) string {
	switch js.fr.Decl.Names[owner] {
	case graph.KindClass:
		return lang.CodeUID("class", js.fr.Path, owner)
	case graph.KindFunction:
		return lang.CodeUID("function", js.fr.Path, owner)
	}
	return js.fileUID
}

// method declares owner.name (kind method), written as n with the
// function fn, and queues its body; this.m() in it is thisPrefix.m when
// thisPrefix is set, this the class instance when owner is a class. It
// returns the method's uid.
func (js *jsFile) method(owner, name string, n, fn *sitter.Node, container, thisPrefix string) string {
	full := owner + "." + name
	muid := js.member(container, owner, name, n, js.field(fn, "body") != nil)
	js.later(func() {
		ctx := jsCtx{from: muid}
		switch {
		case js.kind(fn) == "arrow_function":
		case js.fr.Decl.Names[owner] == graph.KindClass:
			ctx.this, ctx.class = &lang.Chain{Scope: js.scope, Name: owner}, owner
		case thisPrefix != "":
			ctx.thisPrefix = thisPrefix
		}
		js.function(jsFunc{node: fn, ctx: ctx, retKey: full})
	})
	return muid
}

// objectLiteral declares the function-valued members of an object
// literal: owner.m (kind method) for const owner = {m() {}}, X.prototype
// = {…}; the module's functions m for module.exports = {m() {}} (owner
// ""). A member holding a name is an alias of it (module.exports = {f}).
func (js *jsFile) objectLiteral(owner string, obj *sitter.Node, container string) {
	for _, m := range ts.Children(obj) {
		m := m
		var name string
		var fn *sitter.Node
		switch js.kind(&m) {
		case "method_definition":
			name, fn = js.memberName(js.field(&m, "name")), &m
		case "pair":
			name = js.memberName(js.field(&m, "key"))
			fn = js.field(&m, "value")
			if fn != nil && owner == "" && js.kind(fn) == "identifier" {
				js.alias(name, ts.Text(fn, js.src))
				id := fn
				js.later(func() { js.nameRef(js.fileUID, id) })
				continue
			}
			if fn != nil && !js.isFunction(fn) {
				value := fn
				js.later(func() { js.calls(value, js.top) })
				continue
			}
		default:
			js.later(func() { js.calls(&m, js.top) })
			continue
		}
		if name == "" || fn == nil {
			js.later(func() { js.calls(&m, js.top) })
			continue
		}
		if owner == "" {
			js.declFunction(name, &m, fn, false)
			continue
		}
		js.method(owner, name, &m, fn, container, owner)
	}
}
