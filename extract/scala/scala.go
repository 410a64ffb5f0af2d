package scala

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsscala "github.com/tree-sitter/tree-sitter-scala/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the Scala grammar, loaded once.
var language = sitter.NewLanguage(tsscala.Language())

// maxTypeNesting is how deep type declarations nest before the deeper
// ones are left out (no node, bodies not read): a nested type's name holds
// every enclosing name, so unbounded nesting costs n² in names.
const maxTypeNesting = 64

// class is a class, trait, object or enum of the file. A companion
// object and its class are one class.
type class struct {
	name    string // Outer.Inner
	outer   *class
	kind    string // class, case_class, trait, object, enum
	methods map[string]bool
	spans   map[string][2]int      // method → first and last lines of its overloads
	fields  map[string]*lang.Chain // val, var, class parameter → its type (nil: unknown)
	tparams map[string]bool
	bases   []*lang.Chain
	// firstIsClass: the first parent of the extends clause is a class's
	// superclass (its arguments call its constructor).
	firstIsClass bool
	emitted      bool
	companion    bool // a class (or trait) and an object of the name
	fieldNames   []string
}

// file is the state of one extraction.
type file struct {
	fr       *lang.Result
	env      *lang.Env
	src      []byte
	pkg      string
	scope    string
	fileUID  string
	dir      string
	root     string // the source root: dir without the package's folders
	rootOK   bool
	imports  map[string]*lang.Chain // simple name → class or object
	imported map[string]*lang.Chain // member imported from an object → the object
	ostars   []*lang.Chain          // import Obj._: objects
	stars    []string               // import a.b._: packages
	classes  map[string]*class      // by name (Outer.Inner)
	defs     map[string]bool        // top-level defs
	returns  map[string]string      // FactReturn key → encoded chain, "" on disagreement
	decided  bool                   // pkg is fixed (a declaration was seen)
	visible  []string               // enclosing packages of chained clauses and package blocks
	tops     map[string]string      // top-level def imported by name → its package's scope
	search   string                 // the scope names neither declared nor imported are looked up in
}

// ctx is where a body is walked: the node calls come from, the class
// this names, the type parameters and locals in scope.
type ctx struct {
	from    string
	cls     *class
	tparams map[string]bool
	locals  map[string]*lang.Chain // nil value: a local of unknown type
}

func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "scala"})
	tree := parse(fr, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	if env == nil {
		env = &lang.Env{}
	}
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, dir: path.Dir(fr.Path),
		imports: map[string]*lang.Chain{}, imported: map[string]*lang.Chain{}, classes: map[string]*class{},
		defs: map[string]bool{}, returns: map[string]string{}, tops: map[string]string{}}
	f.findPackage(root, "")
	f.scope = "scala:" + f.pkg
	f.root, f.rootOK = f.dir, f.pkg == ""
	if f.pkg != "" {
		pd := strings.ReplaceAll(f.pkg, ".", "/")
		if f.dir == pd {
			f.root, f.rootOK = ".", true
		} else if r, ok := strings.CutSuffix(f.dir, "/"+pd); ok {
			f.root, f.rootOK = r, true
		}
	}
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	// Imports and declarations first, so that bodies see every type of
	// the file.
	f.declareUnit(root)
	f.search = f.scope
	if len(f.visible)+len(f.stars) > 0 {
		f.search = lang.ScalaSearchScope + strings.Join(append(append([]string{f.pkg}, f.visible...), f.stars...), "|")
	}
	f.emitUnit(root)
	for k, v := range f.returns {
		if v != "" {
			if cs := lang.DecodeChains(v); len(cs) == 1 {
				fr.Decl.SetFact(k, cs[0])
			}
		}
	}
}

// findPackage fixes the file's package: the package clauses in effect at
// the first declaration (chained clauses and package blocks append).
func (f *file) findPackage(n *sitter.Node, pkg string) {
	for _, k := range ts.Children(n) {
		if f.decided {
			return
		}
		switch k.Kind() {
		case "package_clause":
			name := ts.Text(k.ChildByFieldName("name"), f.src)
			p := name
			if pkg != "" {
				p = pkg + "." + name
				f.visible = append(f.visible, pkg) // chained or nested: pkg's members are visible
			}
			if b := k.ChildByFieldName("body"); b != nil {
				f.findPackage(b, p)
				continue
			}
			pkg = p
			f.pkg = p
		case "import_declaration", "comment", "block_comment":
		default:
			f.pkg = pkg
			f.decided = true
		}
	}
	if !f.decided {
		f.pkg = pkg
	}
}

// isTypeDecl reports whether a node kind declares a type.
func isTypeDecl(k string) bool {
	switch k {
	case "class_definition", "trait_definition", "object_definition", "enum_definition", "package_object":
		return true
	}
	return false
}

// typeKind names a declaration's kind for the node's metadata.
func typeKind(n *sitter.Node, src []byte) string {
	switch n.Kind() {
	case "trait_definition":
		return "trait"
	case "object_definition", "package_object":
		return "object"
	case "enum_definition":
		return "enum"
	}
	for _, k := range ts.Children(n) {
		if k.Kind() == "modifiers" && strings.Contains(ts.Text(&k, src), "case") {
			return "case_class"
		}
	}
	if strings.HasPrefix(strings.TrimSpace(ts.Text(n, src)), "case ") {
		return "case_class"
	}
	return "class"
}

// declareUnit records the imports, types and top-level defs under n (a
// compilation unit or a package block).
func (f *file) declareUnit(n *sitter.Node) {
	for _, k := range ts.Children(n) {
		switch k.Kind() {
		case "import_declaration":
			f.importDecl(&k)
		case "package_clause":
			if b := k.ChildByFieldName("body"); b != nil {
				f.declareUnit(b)
			}
		case "function_definition", "function_declaration":
			name := ts.Text(k.ChildByFieldName("name"), f.src)
			if name != "" {
				f.defs[name] = true
				f.fr.Decl.Names[name] = graph.KindFunction
			}
		default:
			if isTypeDecl(k.Kind()) {
				f.declare(&k, nil)
			}
		}
	}
}

// declare records a type declaration and its nested types, to
// maxTypeNesting levels.
func (f *file) declare(n *sitter.Node, outer *class) {
	name := ts.Text(n.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	depth := 0
	for o := outer; o != nil; o = o.outer {
		depth++
	}
	if depth >= maxTypeNesting {
		return
	}
	if outer != nil {
		name = outer.name + "." + name
	}
	c := f.classes[name]
	kind := typeKind(n, f.src)
	if c == nil {
		c = &class{name: name, outer: outer, kind: kind, methods: map[string]bool{}, fields: map[string]*lang.Chain{}}
		f.classes[name] = c
		f.fr.Decl.Names[name] = graph.KindClass
	} else if (c.kind == "object") != (kind == "object") {
		c.companion = true
		if c.kind == "object" {
			c.kind = kind // the class of a companion object read first
		}
	}
	for tp := range typeParams(n.ChildByFieldName("type_parameters"), f.src) {
		if c.tparams == nil {
			c.tparams = map[string]bool{}
		}
		c.tparams[tp] = true
	}
	if ps := n.ChildByFieldName("class_parameters"); ps != nil {
		for _, p := range classParams(n) {
			c.fields[ts.Text(p.ChildByFieldName("name"), f.src)] = nil
		}
	}
	body := n.ChildByFieldName("body")
	if body == nil {
		return
	}
	f.members(body, c, func(k *sitter.Node) { f.declare(k, c) })
}

// classParams returns the class_parameter nodes of every parameter list
// of a class.
func classParams(n *sitter.Node) []sitter.Node {
	var out []sitter.Node
	for _, l := range ts.Children(n) {
		if l.Kind() == "class_parameters" {
			for _, p := range ts.Children(&l) {
				if p.Kind() == "class_parameter" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// members records the methods and fields of a template or enum body in
// c, calling nested for each nested type declaration.
func (f *file) members(body *sitter.Node, c *class, nested func(*sitter.Node)) {
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_definition", "function_declaration", "given_definition":
			mn := ts.Text(m.ChildByFieldName("name"), f.src)
			if mn == "" {
				continue
			}
			c.methods[mn] = true
			if c.spans == nil {
				c.spans = map[string][2]int{}
			}
			sp, ok := c.spans[mn]
			if !ok {
				sp = [2]int{ts.Line(&m), ts.EndLine(&m)}
			}
			sp[0], sp[1] = min(sp[0], ts.Line(&m)), max(sp[1], ts.EndLine(&m))
			c.spans[mn] = sp
		case "val_definition", "var_definition", "val_declaration", "var_declaration":
			for _, id := range patternNames(&m, f.src) {
				c.fields[id] = nil
			}
		case "enum_case_definitions":
			for _, e := range ts.Children(&m) {
				if e.Kind() == "simple_enum_case" || e.Kind() == "full_enum_case" {
					c.fields[ts.Text(e.ChildByFieldName("name"), f.src)] = nil
				}
			}
		default:
			if isTypeDecl(m.Kind()) {
				nested(&m)
			}
		}
	}
}

// patternNames returns the names a val or var binds (val a, b = …; val
// (a, b) = …).
func patternNames(n *sitter.Node, src []byte) []string {
	p := n.ChildByFieldName("pattern")
	if p == nil {
		p = n.ChildByFieldName("name")
	}
	if p == nil {
		return nil
	}
	if p.Kind() == "identifier" {
		return []string{ts.Text(p, src)}
	}
	var out []string
	ts.WalkSkip(p, func(k *sitter.Node) bool {
		if k.Kind() == "identifier" {
			out = append(out, ts.Text(k, src))
			return false
		}
		return true
	})
	return out
}

func typeParams(n *sitter.Node, src []byte) map[string]bool {
	if n == nil {
		return nil
	}
	out := map[string]bool{}
	for _, p := range ts.Children(n) {
		if p.Kind() == "identifier" || p.Kind() == "type_identifier" {
			out[ts.Text(&p, src)] = true
		}
	}
	return out
}

// classChain is the chain of an instance of the class c.
func (f *file) classChain(c *class) *lang.Chain {
	return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
}

// setReturn records what a method returns; overloads that disagree give
// nothing.
func (f *file) setReturn(key string, t *lang.Chain) {
	k := lang.FactReturn + key
	enc := ""
	if t != nil {
		enc = lang.EncodeChains(t)
	}
	if old, ok := f.returns[k]; ok && old != enc {
		f.returns[k] = ""
		return
	}
	f.returns[k] = enc
}

// emitUnit adds the nodes and edges of the types and top-level defs
// under n and walks their code.
func (f *file) emitUnit(n *sitter.Node) {
	top := &ctx{from: f.fileUID, locals: map[string]*lang.Chain{}}
	for _, k := range ts.Children(n) {
		switch k.Kind() {
		case "import_declaration", "comment", "block_comment":
		case "package_clause":
			if b := k.ChildByFieldName("body"); b != nil {
				f.emitUnit(b)
			}
		case "function_definition", "function_declaration":
			f.topDef(&k)
		default:
			if isTypeDecl(k.Kind()) {
				f.emit(&k, nil, f.fileUID)
				continue
			}
			f.walk(&k, top) // a script's statements
		}
	}
}

// topDef emits a top-level def and walks its body.
func (f *file) topDef(m *sitter.Node) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	uid := lang.CodeUID("function", f.fr.Path, name)
	if !f.defs[name+"\x00emitted"] {
		f.defs[name+"\x00emitted"] = true
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: ts.Line(m), EndLine: ts.EndLine(m), Metadata: map[string]any{"language": "scala"}})
		f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, ts.Line(m))
	}
	cx := &ctx{from: uid, tparams: typeParams(m.ChildByFieldName("type_parameters"), f.src), locals: map[string]*lang.Chain{}}
	f.setReturn(name, f.typeChain(m.ChildByFieldName("return_type"), cx))
	f.params(m, cx)
	f.walk(m.ChildByFieldName("body"), cx)
}

// emit adds the node, edges and facts of a declared type and walks its
// members' code.
func (f *file) emit(n *sitter.Node, outer *class, parent string) {
	name := ts.Text(n.ChildByFieldName("name"), f.src)
	if outer != nil {
		name = outer.name + "." + name
	}
	c := f.classes[name]
	if c == nil {
		return
	}
	uid := lang.CodeUID("class", f.fr.Path, name)
	line := ts.Line(n)
	cx := &ctx{from: uid, cls: c, tparams: c.tparams, locals: map[string]*lang.Chain{}}
	if !c.emitted {
		c.emitted = true
		meta := map[string]any{"language": "scala", "type_kind": c.kind}
		if c.companion {
			meta["companion"] = true
		}
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
		f.fr.AddEdge(parent, uid, graph.EdgeContains, line)
		defer func() {
			if len(c.fieldNames) > 0 {
				meta["fields"] = c.fieldNames
			}
		}()
	}
	// Field types first: method bodies and other classes read them.
	for _, p := range classParams(n) {
		pn := ts.Text(p.ChildByFieldName("name"), f.src)
		t := f.typeChain(p.ChildByFieldName("type"), cx)
		f.field(c, pn, t)
	}
	body := n.ChildByFieldName("body")
	f.fieldTypes(body, c, cx)
	f.bases(n, c, uid)
	// Class parameters' defaults and the superclass's arguments.
	for _, p := range classParams(n) {
		f.walk(p.ChildByFieldName("default_value"), cx)
	}
	if body != nil {
		f.classBody(body, c, uid)
	}
}

// field records a field's type (and its attribute fact).
func (f *file) field(c *class, name string, t *lang.Chain) {
	if name == "" {
		return
	}
	if old, seen := c.fields[name]; !seen || old == nil {
		c.fields[name] = t
	}
	for _, n := range c.fieldNames {
		if n == name {
			return
		}
	}
	c.fieldNames = append(c.fieldNames, name)
	if t != nil {
		f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+name, t)
	}
}

// fieldTypes records the types of a body's vals and vars: declared, or
// read from the initialiser (new T(…), T(…)).
func (f *file) fieldTypes(body *sitter.Node, c *class, cx *ctx) {
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "val_definition", "var_definition", "val_declaration", "var_declaration":
			names := patternNames(&m, f.src)
			var t *lang.Chain
			if len(names) == 1 {
				t = f.typeChain(m.ChildByFieldName("type"), cx)
				if t == nil && m.ChildByFieldName("type") == nil {
					t = f.initChain(m.ChildByFieldName("value"), cx)
				}
			}
			for _, n := range names {
				f.field(c, n, t)
			}
		case "enum_case_definitions":
			for _, e := range ts.Children(&m) {
				if e.Kind() == "simple_enum_case" || e.Kind() == "full_enum_case" {
					f.field(c, ts.Text(e.ChildByFieldName("name"), f.src), f.classChain(c))
				}
			}
		}
	}
}

// initChain is the type an initialiser gives a val without a declared
// type: new T(…), a class's apply T(…), else nil.
func (f *file) initChain(v *sitter.Node, cx *ctx) *lang.Chain {
	if v == nil {
		return nil
	}
	switch v.Kind() {
	case "instance_expression":
		return f.newType(v, cx)
	case "call_expression":
		if fn := v.ChildByFieldName("function"); fn != nil {
			if fn.Kind() == "generic_function" {
				fn = fn.ChildByFieldName("function")
			}
			if fn != nil && fn.Kind() == "identifier" && isUpper(ts.Text(fn, f.src)) {
				return f.resolveType(ts.Text(fn, f.src), cx)
			}
		}
	}
	return nil
}

// bases adds the inherits_from and implements references of an extends
// clause, and records the bases fact.
func (f *file) bases(n *sitter.Node, c *class, uid string) {
	ext := n.ChildByFieldName("extend")
	if ext == nil || len(c.bases) > 0 {
		return
	}
	cx := &ctx{cls: c.outer, tparams: c.tparams}
	first := true
	for i := uint(0); i < ext.NamedChildCount(); i++ {
		t := ext.NamedChild(i)
		if t == nil || t.Kind() == "arguments" {
			continue
		}
		ch := f.typeChain(t, cx)
		isFirst := first
		first = false
		if ch == nil {
			ch = f.standardType(t)
		}
		if ch == nil {
			continue
		}
		ch.Inst = false
		typ := graph.EdgeImplements
		if n.Kind() == "trait_definition" {
			typ = graph.EdgeInheritsFrom
		} else if isFirst {
			if b, ok := f.classes[ch.Name]; !ok || ch.Scope != f.scope || b.kind != "trait" {
				typ = graph.EdgeInheritsFrom
				c.firstIsClass = true
			}
		}
		c.bases = append(c.bases, ch)
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: typ, From: uid, Line: ts.Line(t), Scope: ch.Scope, Name: ch.Name, Stub: qualified(ch)})
	}
	if len(c.bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+c.name, c.bases...)
	}
	// extends B(args): the superclass's constructor.
	if a := ext.ChildByFieldName("arguments"); a != nil && c.firstIsClass {
		bcx := &ctx{from: uid, cls: c, tparams: c.tparams, locals: map[string]*lang.Chain{}}
		f.classRef(bcx, ts.Line(a), c.bases[0])
		f.walk(a, bcx)
	}
}

// standardType is the chain of a standard parent (Serializable,
// App, Product…: scalaTypes) in package scala, which no in-tree file
// declares: the edge goes to its stub scala.<Name>. nil for anything else.
func (f *file) standardType(t *sitter.Node) *lang.Chain {
	if t.Kind() == "generic_type" {
		t = t.ChildByFieldName("type")
	}
	if t == nil || t.Kind() != "type_identifier" {
		return nil
	}
	name := ts.Text(t, f.src)
	if !scalaTypes[name] {
		return nil
	}
	return &lang.Chain{Scope: "scala:scala", Name: name}
}

// qualified is the stub label of a class chain.
func qualified(c *lang.Chain) string {
	p := strings.TrimPrefix(c.Scope, "scala:")
	if l, ok := strings.CutPrefix(c.Scope, lang.ScalaSearchScope); ok {
		p, _, _ = strings.Cut(l, "|")
	}
	if p == "" {
		return c.Name
	}
	return p + "." + c.Name
}

// classBody emits a type's members and walks the code in it.
func (f *file) classBody(body *sitter.Node, c *class, uid string) {
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_definition", "function_declaration", "given_definition":
			f.method(&m, c, uid)
		case "comment", "block_comment", "self_type", "enum_case_definitions":
		default:
			if isTypeDecl(m.Kind()) {
				f.emit(&m, c, uid)
				continue
			}
			// Vals, vars, statements: code of the class.
			f.walk(&m, &ctx{from: uid, cls: c, tparams: c.tparams, locals: map[string]*lang.Chain{}})
		}
	}
}

// method emits one method (overloads share its node) and walks its body.
func (f *file) method(m *sitter.Node, c *class, cuid string) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	if name == "" {
		if m.Kind() == "given_definition" {
			f.walk(m.ChildByFieldName("body"), &ctx{from: cuid, cls: c, tparams: c.tparams, locals: map[string]*lang.Chain{}})
		}
		return
	}
	full := c.name + "." + name
	uid := lang.CodeUID("function", f.fr.Path, full)
	line := ts.Line(m)
	if _, seen := f.fr.Decl.Names[full]; !seen {
		f.fr.Decl.Names[full] = graph.KindMethod
		sp := c.spans[name]
		meta := map[string]any{"language": "scala"}
		if m.Kind() == "given_definition" {
			meta["given"] = true
		}
		if m.Kind() == "function_declaration" {
			meta["abstract"] = true
		}
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: sp[0], EndLine: sp[1], Metadata: meta})
		f.fr.AddEdge(cuid, uid, graph.EdgeContains, line)
	}
	tps := typeParams(m.ChildByFieldName("type_parameters"), f.src)
	for k := range c.tparams {
		if tps == nil {
			tps = map[string]bool{}
		}
		tps[k] = true
	}
	cx := &ctx{from: uid, cls: c, tparams: tps, locals: map[string]*lang.Chain{}}
	rt := f.typeChain(m.ChildByFieldName("return_type"), cx)
	f.setReturn(full, rt)
	if rt != nil && !hasParams(m) {
		// A parameterless def reads as a field (x.name.m()).
		f.fr.Decl.SetFact(lang.FactAttr+full, rt)
	}
	f.params(m, cx)
	f.walk(m.ChildByFieldName("body"), cx)
}

// hasParams reports whether a def has a parameter list.
func hasParams(m *sitter.Node) bool {
	for _, k := range ts.Children(m) {
		if k.Kind() == "parameters" {
			return true
		}
	}
	return false
}

// params types a def's parameters (every parameter list).
func (f *file) params(m *sitter.Node, cx *ctx) {
	for _, l := range ts.Children(m) {
		if l.Kind() != "parameters" {
			continue
		}
		for _, p := range ts.Children(&l) {
			if p.Kind() == "parameter" {
				f.local(p.ChildByFieldName("name"), f.typeChain(p.ChildByFieldName("type"), cx), cx)
			}
		}
	}
}

func (f *file) local(name *sitter.Node, t *lang.Chain, cx *ctx) {
	if name == nil {
		return
	}
	cx.locals[ts.Text(name, f.src)] = t
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
