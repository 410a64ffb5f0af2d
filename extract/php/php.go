package php

import (
	"path"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the PHP grammar that reads HTML around <?php … ?> tags
// (the binding's "php", not "php_only"), loaded once.
var language = sitter.NewLanguage(tsphp.LanguagePHP())

// Symbol ids of the grammar's node kinds read on hot paths.
var (
	idAssignment         = language.IdForNodeKind("assignment_expression", true)
	idAnonFunction       = language.IdForNodeKind("anonymous_function", true)
	idArrowFunction      = language.IdForNodeKind("arrow_function", true)
	idMemberCall         = language.IdForNodeKind("member_call_expression", true)
	idNullsafeMemberCall = language.IdForNodeKind("nullsafe_member_call_expression", true)
	idScopedCall         = language.IdForNodeKind("scoped_call_expression", true)
	idFunctionCall       = language.IdForNodeKind("function_call_expression", true)
	idNew                = language.IdForNodeKind("object_creation_expression", true)
	idRequire            = language.IdForNodeKind("require_expression", true)
	idRequireOnce        = language.IdForNodeKind("require_once_expression", true)
	idInclude            = language.IdForNodeKind("include_expression", true)
	idIncludeOnce        = language.IdForNodeKind("include_once_expression", true)
	idAnonClass          = language.IdForNodeKind("anonymous_class", true)
	idClassDecl          = language.IdForNodeKind("class_declaration", true)
	idInterfaceDecl      = language.IdForNodeKind("interface_declaration", true)
	idTraitDecl          = language.IdForNodeKind("trait_declaration", true)
	idEnumDecl           = language.IdForNodeKind("enum_declaration", true)
	idVariableName       = language.IdForNodeKind("variable_name", true)
	idName               = language.IdForNodeKind("name", true)
	idQualifiedName      = language.IdForNodeKind("qualified_name", true)
)

// file is the state of one PHP file's extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	fileUID string
	// scope is the declarations scope, "php:" + the file's (first)
	// namespace; ns is the namespace being read.
	scope string
	ns    string
	// uses map an alias to the fully qualified name a use statement
	// gives it: classes, functions (use function).
	uses     map[string]string
	funcUses map[string]string
	// imported are the files an imports edge already points at.
	imported map[string]bool
	// declared are the uids of the declarations already made (a name
	// declared twice, in two branches, is one node).
	declared map[string]bool
	// bodies are read after every declaration and use of the file.
	bodies []func()
}

// extract parses one PHP file (see the package doc).
func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "php"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, uses: map[string]string{}, funcUses: map[string]string{}, imported: map[string]bool{}, declared: map[string]bool{}}
	f.scope = "php:" + f.firstNamespace(root)
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	f.statements(root)
	for _, b := range f.bodies {
		b()
	}
}

// firstNamespace returns the name of the file's first namespace
// declaration, "" for the global namespace.
func (f *file) firstNamespace(root *sitter.Node) string {
	for _, c := range ts.Children(root) {
		if ts.Kind(&c) == "namespace_definition" {
			return ts.Text(ts.Field(&c, "name"), f.src)
		}
	}
	return ""
}

// statements reads the top-level statements of a program or of a
// namespace block.
func (f *file) statements(n *sitter.Node) {
	var top []sitter.Node
	for _, c := range ts.Children(n) {
		switch ts.Kind(&c) {
		case "namespace_definition":
			f.namespace(&c)
		case "namespace_use_declaration":
			f.useDecl(&c)
		case "class_declaration", "interface_declaration", "trait_declaration", "enum_declaration":
			f.classDecl(&c)
		case "function_definition":
			f.function(&c)
		case "if_statement":
			// if (!function_exists('f')) { function f() {} }: the
			// declarations of a braced body are the file's.
			body := ts.Field(&c, "body")
			if body == nil || ts.Kind(body) != "compound_statement" {
				top = append(top, c)
				continue
			}
			for _, k := range ts.Children(&c) {
				if k.StartByte() != body.StartByte() {
					top = append(top, k)
				}
			}
			f.statements(body)
		case "text", "php_tag", "text_interpolation", "comment":
		default:
			top = append(top, c)
		}
	}
	if len(top) > 0 {
		ns := f.ns
		f.bodies = append(f.bodies, func() {
			saved := f.ns
			f.ns = ns
			b := f.newBody(f.fileUID, "", nil)
			var items []sitter.Node
			for i := range top {
				items = append(items, b.scan(&top[i])...)
			}
			b.read(items)
			f.ns = saved
		})
	}
}

// namespace starts a namespace (namespace A\B;) or reads a namespace
// block (namespace A\B { … }).
func (f *file) namespace(n *sitter.Node) {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if name != "" {
		uid := lang.ClampUID("code:module:" + lang.UIDPart(name))
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindModule, Label: name, Metadata: map[string]any{"language": "php"}})
		f.fr.AddEdge(f.fileUID, uid, graph.EdgeDefines, ts.Line(n))
	}
	body := ts.Field(n, "body")
	if body == nil {
		f.ns = name
		f.uses, f.funcUses = map[string]string{}, map[string]string{}
		return
	}
	saved, savedUses, savedFuncs := f.ns, f.uses, f.funcUses
	f.ns, f.uses, f.funcUses = name, map[string]string{}, map[string]string{}
	f.statements(body)
	f.ns, f.uses, f.funcUses = saved, savedUses, savedFuncs
}

// useDecl binds the aliases of a use statement (use A\B, use A\{B, C as
// D}, use function A\f) and links the file to the files of the classes.
func (f *file) useDecl(n *sitter.Node) {
	kind := ts.Text(ts.Field(n, "type"), f.src)
	prefix := ""
	if g := ts.Field(n, "body"); g != nil {
		for _, c := range ts.Children(n) {
			if ts.Kind(&c) == "namespace_name" {
				prefix = strings.TrimLeft(ts.Text(&c, f.src), `\`) + `\`
			}
		}
		for _, c := range ts.Children(g) {
			if ts.Kind(&c) == "namespace_use_clause" {
				f.useClause(&c, prefix, kind)
			}
		}
		return
	}
	for _, c := range ts.Children(n) {
		if ts.Kind(&c) == "namespace_use_clause" {
			f.useClause(&c, "", kind)
		}
	}
}

func (f *file) useClause(c *sitter.Node, prefix, kind string) {
	if k := ts.Text(ts.Field(c, "type"), f.src); k != "" {
		kind = k
	}
	var target string
	for _, k := range ts.Children(c) {
		if ts.Kind(&k) == "name" || ts.Kind(&k) == "qualified_name" {
			target = ts.Text(&k, f.src)
			break
		}
	}
	if target == "" {
		return
	}
	fqn := prefix + strings.TrimLeft(target, `\`)
	alias := ts.Text(ts.Field(c, "alias"), f.src)
	if alias == "" {
		alias = lastSegment(fqn)
	}
	switch kind {
	case "function":
		f.funcUses[alias] = fqn
	case "const":
	default:
		f.uses[alias] = fqn
		f.importClass(fqn, ts.Line(c))
	}
}

// importClass links the file to the in-tree file of class fqn, or
// watches for the file it would be.
func (f *file) importClass(fqn string, line int) {
	var files map[string]bool
	var autoload map[string][]string
	if f.env != nil {
		files, autoload = f.env.Files, f.env.PHPAutoload
	}
	p, want, ok := classFile(fqn, autoload, files)
	if !ok {
		if want != "" {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: missingScope(want)})
		}
		return
	}
	f.importFile(p, line)
}

// importFile adds the file's imports edge to the repository file p.
func (f *file) importFile(p string, line int) {
	if p == f.fr.Path || f.imported[p] {
		return
	}
	f.imported[p] = true
	f.fr.AddEdge(f.fileUID, lang.FileUID(p), graph.EdgeImports, line)
}

// include links the file to the file a require or include expression
// names with a literal path ('x.php', __DIR__ . '/x.php', dirname(__FILE__)
// . '/x.php'): relative to the including file's folder, then to the root.
func (f *file) include(n *sitter.Node) {
	var arg *sitter.Node
	for _, c := range ts.Children(n) {
		arg = &c
		break
	}
	if arg == nil {
		return
	}
	lit, rel := "", false
	switch ts.Kind(arg) {
	case "string", "encapsed_string":
		lit = stringValue(arg, f.src)
	case "binary_expression":
		left, right := ts.Field(arg, "left"), ts.Field(arg, "right")
		if left == nil || right == nil || (ts.Kind(right) != "string" && ts.Kind(right) != "encapsed_string") {
			return
		}
		lt := ts.Text(left, f.src)
		if lt != "__DIR__" && lt != "dirname(__FILE__)" {
			return
		}
		lit, rel = stringValue(right, f.src), true
	}
	if lit == "" || strings.ContainsAny(lit, "$") {
		return
	}
	dir := path.Dir(f.fr.Path)
	cands := []string{path.Join(dir, lit)}
	if !rel && !strings.HasPrefix(lit, "/") {
		cands = append(cands, path.Clean(lit))
	}
	for _, c := range cands {
		if strings.HasPrefix(c, "../") || c == ".." {
			continue
		}
		if f.env != nil && f.env.Files[c] {
			f.importFile(c, ts.Line(n))
			return
		}
	}
	if c := cands[0]; !strings.HasPrefix(c, "../") && c != ".." && !strings.HasPrefix(c, "/") {
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: missingScope(c)})
	}
}

// stringValue returns the content of a string literal without escapes
// or interpolation ("" when it has some).
func stringValue(n *sitter.Node, src []byte) string {
	var b strings.Builder
	for _, c := range ts.Children(n) {
		if ts.Kind(&c) != "string_content" && ts.Kind(&c) != "string_value" {
			return ""
		}
		b.WriteString(ts.Text(&c, src))
	}
	return b.String()
}

// function declares a top-level function and queues its body.
func (f *file) function(n *sitter.Node) {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if name == "" {
		return
	}
	uid := lang.CodeUID("function", f.fr.Path, name)
	if f.declared[uid] {
		return
	}
	f.declared[uid] = true
	line := ts.Line(n)
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: line, EndLine: ts.EndLine(n)})
	f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, line)
	f.fr.Decl.Names[name] = graph.KindFunction
	if rt := f.typeChain(ts.Field(n, "return_type"), ""); rt != nil {
		f.fr.Decl.SetFact(lang.FactReturn+name, rt)
	}
	ns := f.ns
	f.bodies = append(f.bodies, func() {
		saved := f.ns
		f.ns = ns
		f.body(n, uid, "")
		f.ns = saved
	})
}

// classDecl declares a class, interface, trait or enum, its methods and
// properties, its bases (inherits_from: extends, use Trait; implements)
// and queues its methods' bodies.
func (f *file) classDecl(n *sitter.Node) {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if name == "" {
		return
	}
	uid := lang.CodeUID("class", f.fr.Path, name)
	if f.declared[uid] {
		return
	}
	f.declared[uid] = true
	line := ts.Line(n)
	meta := map[string]any{}
	switch ts.Kind(n) {
	case "interface_declaration":
		meta["type_kind"] = "interface"
	case "trait_declaration":
		meta["type_kind"] = "trait"
	case "enum_declaration":
		meta["type_kind"] = "enum"
	}
	node := graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(n), Metadata: meta}
	f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, line)
	f.fr.Decl.Names[name] = graph.KindClass

	var traits, parents, ifaces []*lang.Chain
	base := func(nameNode *sitter.Node, typ string) *lang.Chain {
		fqn := f.className(ts.Text(nameNode, f.src))
		if fqn == "" {
			return nil
		}
		scope, short := splitFQN(fqn)
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: typ, From: uid, Line: ts.Line(nameNode), Scope: scope, Name: short, Stub: fqn})
		return &lang.Chain{Scope: scope, Name: short}
	}
	for _, c := range ts.Children(n) {
		switch ts.Kind(&c) {
		case "base_clause":
			for _, b := range ts.Children(&c) {
				if ch := base(&b, lang.RefInherits); ch != nil {
					parents = append(parents, ch)
				}
			}
		case "class_interface_clause":
			for _, b := range ts.Children(&c) {
				if ch := base(&b, graph.EdgeImplements); ch != nil {
					ifaces = append(ifaces, ch)
				}
			}
		}
	}
	var fields []string
	body := ts.Field(n, "body")
	for _, c := range ts.Children(body) {
		switch ts.Kind(&c) {
		case "use_declaration":
			for _, t := range ts.Children(&c) {
				if ts.Kind(&t) == "name" || ts.Kind(&t) == "qualified_name" {
					if ch := base(&t, lang.RefInherits); ch != nil {
						traits = append(traits, ch)
					}
				}
			}
		case "property_declaration":
			typ := f.typeChain(ts.Field(&c, "type"), name)
			for _, el := range ts.Children(&c) {
				if ts.Kind(&el) != "property_element" {
					continue
				}
				prop := strings.TrimPrefix(ts.Text(ts.Field(&el, "name"), f.src), "$")
				if prop == "" {
					continue
				}
				fields = append(fields, prop)
				if typ != nil {
					f.fr.Decl.SetFact(lang.FactAttr+name+"."+prop, typ)
				}
			}
		case "method_declaration":
			fields = append(fields, f.method(&c, name, uid)...)
		}
	}
	// Member lookups go through the traits first, then the parent, then
	// the interfaces (a call on $this of an abstract class finds the
	// interface's method).
	if bases := append(append(traits, parents...), ifaces...); len(bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+name, bases...)
	}
	if len(fields) > 0 {
		sort.Strings(fields)
		meta["fields"] = fields
	}
	if len(meta) == 0 {
		node.Metadata = nil
	}
	f.fr.AddNode(node)
}

// method declares one method of class (uid classUID) and queues its
// body; it returns the properties its promoted parameters declare.
func (f *file) method(n *sitter.Node, class, classUID string) []string {
	mname := ts.Text(ts.Field(n, "name"), f.src)
	if mname == "" {
		return nil
	}
	full := class + "." + mname
	uid := lang.CodeUID("function", f.fr.Path, full)
	if f.declared[uid] {
		return nil
	}
	f.declared[uid] = true
	line := ts.Line(n)
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: line, EndLine: ts.EndLine(n)})
	f.fr.AddEdge(classUID, uid, graph.EdgeContains, line)
	f.fr.Decl.Names[full] = graph.KindMethod
	if rt := f.typeChain(ts.Field(n, "return_type"), class); rt != nil {
		f.fr.Decl.SetFact(lang.FactReturn+full, rt)
	}
	var promoted []string
	for _, p := range ts.Children(ts.Field(n, "parameters")) {
		if ts.Kind(&p) != "property_promotion_parameter" {
			continue
		}
		prop := strings.TrimPrefix(ts.Text(ts.Field(&p, "name"), f.src), "$")
		if prop == "" {
			continue
		}
		promoted = append(promoted, prop)
		if typ := f.typeChain(ts.Field(&p, "type"), class); typ != nil {
			f.fr.Decl.SetFact(lang.FactAttr+class+"."+prop, typ)
		}
	}
	if body := ts.Field(n, "body"); body != nil {
		ns := f.ns
		f.bodies = append(f.bodies, func() {
			saved := f.ns
			f.ns = ns
			f.body(n, uid, class)
			f.ns = saved
		})
	}
	return promoted
}

// className resolves a class name as written (Foo, A\Foo, \A\Foo,
// namespace\Foo) to its fully qualified name, without the leading
// backslash; "" for self, static, parent and empty names.
func (f *file) className(text string) string {
	switch strings.ToLower(text) {
	case "", "self", "static", "parent":
		return ""
	}
	if strings.HasPrefix(text, `\`) {
		return strings.TrimLeft(text, `\`)
	}
	if rest, ok := strings.CutPrefix(text, `namespace\`); ok {
		return qualify(f.ns, rest)
	}
	head, rest, dotted := strings.Cut(text, `\`)
	if full, ok := f.uses[head]; ok {
		if dotted {
			return full + `\` + rest
		}
		return full
	}
	return qualify(f.ns, text)
}

// functionName resolves a called function's name to the scope to look
// it up in and the name there, and the stub for when it is not found.
func (f *file) functionName(text string) (scope, name, stub string) {
	if strings.HasPrefix(text, `\`) {
		fqn := strings.TrimLeft(text, `\`)
		s, n := splitFQN(fqn)
		return s, n, fqn
	}
	if full, ok := f.funcUses[text]; ok {
		s, n := splitFQN(full)
		return s, n, full
	}
	if strings.Contains(text, `\`) {
		fqn := f.className(text)
		s, n := splitFQN(fqn)
		return s, n, fqn
	}
	// An unqualified function: the namespace's, else PHP falls back to
	// the global one (stubbed under its bare name).
	return "php:" + f.ns, text, text
}

func qualify(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + `\` + name
}

// splitFQN splits a fully qualified name into its namespace's scope and
// its short name.
func splitFQN(fqn string) (scope, short string) {
	if i := strings.LastIndexByte(fqn, '\\'); i >= 0 {
		return "php:" + fqn[:i], fqn[i+1:]
	}
	return "php:", fqn
}

func lastSegment(fqn string) string {
	if i := strings.LastIndexByte(fqn, '\\'); i >= 0 {
		return fqn[i+1:]
	}
	return fqn
}

// typeChain returns the instance a declared type stands for: a class
// (?Foo and Foo|null are Foo, self and static the enclosing class);
// nil for builtin types, unions and intersections of classes.
func (f *file) typeChain(t *sitter.Node, class string) *lang.Chain {
	if t == nil {
		return nil
	}
	switch ts.Kind(t) {
	case "optional_type":
		for _, c := range ts.Children(t) {
			return f.typeChain(&c, class)
		}
	case "union_type":
		var only *sitter.Node
		for _, c := range ts.Children(t) {
			if ts.Kind(&c) == "primitive_type" && strings.EqualFold(ts.Text(&c, f.src), "null") {
				continue
			}
			if only != nil {
				return nil
			}
			only = &c
		}
		return f.typeChain(only, class)
	case "named_type":
		for _, c := range ts.Children(t) {
			return f.typeChain(&c, class)
		}
	case "name", "qualified_name", "relative_scope":
		text := ts.Text(t, f.src)
		switch strings.ToLower(text) {
		case "self", "static":
			if class == "" {
				return nil
			}
			return &lang.Chain{Scope: f.scope, Name: class, Inst: true}
		}
		fqn := f.className(text)
		if fqn == "" {
			return nil
		}
		scope, short := splitFQN(fqn)
		return &lang.Chain{Scope: scope, Name: short, Inst: true}
	}
	return nil
}
