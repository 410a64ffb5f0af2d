package extract

import (
	"path"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// jstsDialect returns "js", "ts" or "tsx" for a lower-case file name, ""
// for anything else.
func jstsDialect(lbase string) string {
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
	fr       *fileResult
	e        *env
	src      []byte
	scope    string
	fileUID  string
	bindings map[string]jsBinding
	classes  map[string]bool
}

// extractJSTS parses JavaScript and TypeScript with tree-sitter: functions
// (declarations and const f = () => …), classes and their methods
// (<Class>.<method>), imports and require() (edges to repository files or
// npm:package: nodes), calls and new, and extends (inherits_from).
func extractJSTS(fr *fileResult, data []byte, e *env) {
	src := sourceText(data)
	fileUID := fileNode(fr, map[string]any{"language": jstsDialect(strings.ToLower(path.Base(fr.Path)))})
	lang, gr := langJavaScript, jsGrammarJS
	switch jstsDialect(strings.ToLower(path.Base(fr.Path))) {
	case "ts":
		lang, gr = langTypeScript, jsGrammarTS
	case "tsx":
		lang, gr = langTSX, jsGrammarTSX
	}
	tree, err := parseTree(lang, src)
	if err != nil {
		fr.parseError(err.Error())
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	tsSyntaxErrors(fr, root)
	js := &jsFile{fr: fr, e: e, src: src, grammar: gr, scope: "js:" + fr.Path, fileUID: fileUID, bindings: map[string]jsBinding{}, classes: map[string]bool{}}
	fr.Decl = &decl{Scope: js.scope, Names: map[string]string{}}
	var deferred []func()
	for _, c := range tsChildren(root) {
		c := c
		js.statement(&c, false, &deferred)
	}
	for _, f := range deferred {
		f()
	}
}

// statement handles one top-level statement.
func (js *jsFile) statement(n *sitter.Node, exportDefault bool, deferred *[]func()) {
	switch n.Kind() {
	case "export_statement":
		def := false
		for i := uint(0); i < n.ChildCount(); i++ {
			if c := n.Child(i); c != nil && c.Kind() == "default" {
				def = true
			}
		}
		if d := n.ChildByFieldName("declaration"); d != nil {
			js.statement(d, def, deferred)
			return
		}
		if v := n.ChildByFieldName("value"); v != nil && def {
			if v.Kind() == "identifier" {
				js.fr.Decl.Alias = map[string]string{"default": tsText(v, js.src)}
			}
			*deferred = append(*deferred, func() { js.calls(v, js.fileUID, "") })
			return
		}
		if s := n.ChildByFieldName("source"); s != nil {
			js.importFrom(jsString(s, js.src), tsLine(n))
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		name := tsText(n.ChildByFieldName("name"), js.src)
		js.function(name, n, n.ChildByFieldName("body"), exportDefault, deferred)
	case "class_declaration", "abstract_class_declaration", "class":
		js.class(n, exportDefault, deferred)
	case "interface_declaration", "enum_declaration":
		// TypeScript types without bodies to call: a class node each.
		if name := tsText(n.ChildByFieldName("name"), js.src); name != "" {
			uid := codeUID("class", js.fr.Path, name)
			kind := strings.TrimSuffix(n.Kind(), "_declaration")
			js.fr.node(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: tsLine(n), EndLine: tsEndLine(n), Metadata: map[string]any{"type_kind": kind}})
			js.fr.edge(js.fileUID, uid, graph.EdgeContains, tsLine(n))
			js.fr.Decl.Names[name] = graph.KindClass
		}
	case "lexical_declaration", "variable_declaration":
		for _, d := range tsChildren(n) {
			if d.Kind() != "variable_declarator" {
				continue
			}
			d := d
			name := d.ChildByFieldName("name")
			value := d.ChildByFieldName("value")
			if value != nil && name != nil && name.Kind() == "identifier" {
				switch value.Kind() {
				case "arrow_function", "function_expression", "function", "generator_function":
					js.function(tsText(name, js.src), &d, value.ChildByFieldName("body"), false, deferred)
					continue
				case "class":
					js.class(value, false, deferred)
					continue
				}
			}
			if value != nil && js.require(name, value) {
				continue
			}
			*deferred = append(*deferred, func() { js.calls(&d, js.fileUID, "") })
		}
	case "import_statement":
		js.importStmt(n)
	default:
		*deferred = append(*deferred, func() { js.calls(n, js.fileUID, "") })
	}
}

func (js *jsFile) function(name string, n, body *sitter.Node, exportDefault bool, deferred *[]func()) {
	if name == "" {
		*deferred = append(*deferred, func() { js.calls(body, js.fileUID, "") })
		return
	}
	uid := codeUID("function", js.fr.Path, name)
	js.fr.node(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: tsLine(n), EndLine: tsEndLine(n)})
	js.fr.edge(js.fileUID, uid, graph.EdgeContains, tsLine(n))
	js.fr.Decl.Names[name] = graph.KindFunction
	if exportDefault {
		js.fr.Decl.Alias = map[string]string{"default": name}
	}
	*deferred = append(*deferred, func() { js.calls(body, uid, "") })
}

func (js *jsFile) class(n *sitter.Node, exportDefault bool, deferred *[]func()) {
	name := tsText(n.ChildByFieldName("name"), js.src)
	if name == "" {
		*deferred = append(*deferred, func() { js.calls(n, js.fileUID, "") })
		return
	}
	uid := codeUID("class", js.fr.Path, name)
	js.fr.node(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: tsLine(n), EndLine: tsEndLine(n)})
	js.fr.edge(js.fileUID, uid, graph.EdgeContains, tsLine(n))
	js.fr.Decl.Names[name] = graph.KindClass
	js.classes[name] = true
	if exportDefault {
		js.fr.Decl.Alias = map[string]string{"default": name}
	}
	for _, c := range tsChildren(n) {
		if c.Kind() != "class_heritage" {
			continue
		}
		for _, h := range tsChildren(&c) {
			h := h
			target := &h
			if h.Kind() == "extends_clause" {
				target = h.ChildByFieldName("value")
			} else if h.Kind() == "implements_clause" {
				continue
			}
			if target != nil {
				*deferred = append(*deferred, func() { js.reference(target, uid, refInherits, name) })
			}
		}
	}
	body := n.ChildByFieldName("body")
	for _, m := range tsChildren(body) {
		m := m
		if m.Kind() != "method_definition" {
			*deferred = append(*deferred, func() { js.calls(&m, uid, name) })
			continue
		}
		mname := tsText(m.ChildByFieldName("name"), js.src)
		if mname == "" {
			continue
		}
		muid := codeUID("function", js.fr.Path, name+"."+mname)
		js.fr.node(graph.Node{UID: muid, Kind: graph.KindMethod, Label: name + "." + mname, Line: tsLine(&m), EndLine: tsEndLine(&m)})
		js.fr.edge(uid, muid, graph.EdgeContains, tsLine(&m))
		js.fr.Decl.Names[name+"."+mname] = graph.KindMethod
		mbody := m.ChildByFieldName("body")
		*deferred = append(*deferred, func() { js.calls(mbody, muid, name) })
	}
}

// jsString returns the value of a string literal node.
func jsString(n *sitter.Node, src []byte) string {
	t := tsText(n, src)
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'' || t[0] == '`') {
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(t[1:len(t)-1], `"`, `\"`) + `"`); err == nil {
			return u
		}
		return t[1 : len(t)-1]
	}
	return t
}

// resolveSpec resolves an import specifier: a repository file for a
// relative one, an npm package name otherwise.
func (js *jsFile) resolveSpec(spec string) (file, pkg string) {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		base := path.Join(path.Dir(js.fr.Path), spec)
		if base == ".." || strings.HasPrefix(base, "../") {
			return "", ""
		}
		for _, ext := range jsResolveExts {
			if js.e.files[base+ext] {
				return base + ext, ""
			}
		}
		// ./x.js written for x.ts (TypeScript's ESM convention).
		if stem, ok := strings.CutSuffix(base, ".js"); ok {
			for _, ext := range []string{".ts", ".tsx"} {
				if js.e.files[stem+ext] {
					return stem + ext, ""
				}
			}
		}
		return "", ""
	}
	if strings.HasPrefix(spec, "/") || spec == "" {
		return "", ""
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
		js.fr.edge(js.fileUID, fileUID(file), graph.EdgeImports, line)
	case pkg != "":
		uid := clampUID("npm:package:" + uidPart(pkg))
		js.fr.node(graph.Node{UID: uid, Kind: graph.KindDependency, Label: cleanString(pkg), Metadata: map[string]any{"ecosystem": "npm"}})
		js.fr.edge(js.fileUID, uid, graph.EdgeImports, line)
	case strings.HasPrefix(spec, "."):
		js.fr.Refs = append(js.fr.Refs, ref{Type: refWatch, Scope: "missing:js:" + path.Join(path.Dir(js.fr.Path), spec)})
	}
	return jsBinding{path: file, pkg: pkg}
}

func (js *jsFile) importStmt(n *sitter.Node) {
	src := n.ChildByFieldName("source")
	if src == nil {
		return
	}
	target := js.importFrom(jsString(src, js.src), tsLine(n))
	for _, c := range tsChildren(n) {
		if c.Kind() != "import_clause" {
			continue
		}
		for _, k := range tsChildren(&c) {
			switch k.Kind() {
			case "identifier": // default import
				b := target
				b.name = "default"
				js.bindings[tsText(&k, js.src)] = b
			case "namespace_import":
				for _, id := range tsChildren(&k) {
					if id.Kind() == "identifier" {
						js.bindings[tsText(&id, js.src)] = target
					}
				}
			case "named_imports":
				for _, s := range tsChildren(&k) {
					if s.Kind() != "import_specifier" {
						continue
					}
					name := tsText(s.ChildByFieldName("name"), js.src)
					alias := tsText(s.ChildByFieldName("alias"), js.src)
					if alias == "" {
						alias = name
					}
					b := target
					b.name = name
					js.bindings[alias] = b
				}
			}
		}
	}
}

// require handles const x = require("m") and const {a, b} = require("m");
// it reports whether value was a require call.
func (js *jsFile) require(name, value *sitter.Node) bool {
	if value.Kind() != "call_expression" {
		return false
	}
	f := value.ChildByFieldName("function")
	args := value.ChildByFieldName("arguments")
	if f == nil || args == nil || tsText(f, js.src) != "require" {
		return false
	}
	kids := tsChildren(args)
	if len(kids) != 1 || kids[0].Kind() != "string" {
		return false
	}
	target := js.importFrom(jsString(&kids[0], js.src), tsLine(value))
	switch name.Kind() {
	case "identifier":
		js.bindings[tsText(name, js.src)] = target
	case "object_pattern":
		for _, p := range tsChildren(name) {
			switch p.Kind() {
			case "shorthand_property_identifier_pattern":
				b := target
				b.name = tsText(&p, js.src)
				js.bindings[b.name] = b
			case "pair_pattern":
				b := target
				b.name = tsText(p.ChildByFieldName("key"), js.src)
				js.bindings[tsText(p.ChildByFieldName("value"), js.src)] = b
			}
		}
	}
	return true
}

// calls records the calls and news under n.
func (js *jsFile) calls(n *sitter.Node, from, class string) {
	if n == nil {
		return
	}
	gr := js.grammar
	tsWalk(n, func(x *sitter.Node) {
		switch x.KindId() {
		case gr.call:
			if f := x.ChildByFieldId(gr.function); f != nil && tsText(f, js.src) != "require" {
				js.reference(f, from, refCall, class)
			}
		case gr.new:
			if f := x.ChildByFieldId(gr.constructor); f != nil {
				js.reference(f, from, refCall, class)
			}
		}
	})
}

// jsGrammar holds the symbol and field ids used on hot paths.
type jsGrammar struct {
	call, new             uint16
	function, constructor uint16
}

func newJSGrammar(l *sitter.Language) jsGrammar {
	return jsGrammar{
		call: l.IdForNodeKind("call_expression", true), new: l.IdForNodeKind("new_expression", true),
		function: l.FieldIdForName("function"), constructor: l.FieldIdForName("constructor"),
	}
}

var (
	jsGrammarJS  = newJSGrammar(langJavaScript)
	jsGrammarTS  = newJSGrammar(langTypeScript)
	jsGrammarTSX = newJSGrammar(langTSX)
)

// reference adds a reference to the callee or base class expression n.
func (js *jsFile) reference(n *sitter.Node, from, typ, class string) {
	line := tsLine(n)
	add := func(scope, name, stub string) {
		js.fr.Refs = append(js.fr.Refs, ref{Type: typ, From: from, Line: line, Scope: scope, Name: name, Stub: stub})
	}
	bound := func(b jsBinding, name, stubName string) {
		switch {
		case b.path != "" && name != "":
			add("js:"+b.path, name, stubName)
		case b.pkg != "":
			if name == "" || name == "default" {
				add("", "", b.pkg)
			} else {
				add("", "", b.pkg+"."+name)
			}
		}
	}
	switch n.Kind() {
	case "identifier":
		name := tsText(n, js.src)
		if b, ok := js.bindings[name]; ok {
			bound(b, b.name, name)
			return
		}
		add(js.scope, name, name)
	case "member_expression":
		obj := n.ChildByFieldName("object")
		prop := tsText(n.ChildByFieldName("property"), js.src)
		if obj == nil || prop == "" {
			return
		}
		otext := tsText(obj, js.src)
		switch {
		case obj.Kind() == "this" && class != "":
			add(js.scope, class+"."+prop, "*."+prop)
		case obj.Kind() == "identifier" && js.classes[otext]:
			add(js.scope, otext+"."+prop, "*."+prop)
		case obj.Kind() == "identifier":
			if b, ok := js.bindings[otext]; ok {
				if b.name == "" {
					bound(b, prop, otext+"."+prop)
				} else {
					bound(b, b.name+"."+prop, otext+"."+prop)
				}
				return
			}
			add("", "", "*."+prop)
		default:
			add("", "", "*."+prop)
		}
	}
}
