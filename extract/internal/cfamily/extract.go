package cfamily

import (
	"path"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Scope is the declarations scope of every C and C++ file (one linkage
// namespace).
const Scope = "c:"

// macroCalls is how many of a macro body's calls a call of the macro
// reaches.
const macroCalls = 4

// Dialect is the grammar a file is read with.
type Dialect int

// The dialects.
const (
	C Dialect = iota
	CPP
)

// body is a function or method whose calls are read after every
// declaration of the file is known.
type body struct {
	uid, class string
	def        *sitter.Node
}

// file is the state of one extraction.
type file struct {
	fr      *lang.Result
	src     []byte
	fileUID string
	header  bool
	lang    string
	// funcs maps a function name defined in the file to its uid;
	// members maps "C.m" of the methods defined or declared in the file.
	funcs   map[string]string
	members map[string]string
	classes map[string]bool
	// namespaces are the names of the namespaces the file opens.
	namespaces map[string]bool
	macros     map[string][]string
	globals    map[string]*lang.Chain
	bodies     []body
	// macroKeyOf holds macroKeys' answers.
	macroKeyOf map[string]*[macroCalls]string
}

// Extract reads one C or C++ file into r.
func Extract(r *lang.Result, data []byte, env *lang.Env, d Dialect) {
	grammar, name := languageC, "c"
	if d == CPP {
		grammar, name = languageCPP, "c++"
	}
	data = blankExportMacros(data)
	tree, err := ts.Parse(grammar, data)
	if err != nil {
		r.ParseError(err.Error())
		lang.FileNode(r, map[string]any{"language": name})
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	ts.SyntaxErrors(r, root)
	f := &file{fr: r, src: data, lang: name, header: IsHeader(r.Path),
		funcs: map[string]string{}, members: map[string]string{}, classes: map[string]bool{}, namespaces: map[string]bool{},
		macros: map[string][]string{}, globals: map[string]*lang.Chain{}, macroKeyOf: map[string]*[macroCalls]string{}}
	f.fileUID = lang.FileNode(r, map[string]any{"language": name})
	r.Decl = &lang.Decl{Hash: r.Hash, Scope: Scope, Names: map[string]string{}}
	f.top(root, "", false, env)
	for _, b := range f.bodies {
		f.calls(b)
	}
}

// IsHeader reports whether p names a header (.h, .hh, .hpp, .hxx, .h++).
func IsHeader(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl":
		return true
	}
	return false
}

func (f *file) text(n *sitter.Node) string { return ts.Text(n, f.src) }

// maxNamespacePath is the longest namespace path (n0::n1::…, in bytes)
// whose body is read: each level's path holds every enclosing name, so
// without a bound 20,000 nested namespaces cost n² bytes (1.5 GB for a
// 388 KB file). Real code nests a few levels.
const maxNamespacePath = 1024

// top reads the declarations of a translation unit, namespace or linkage
// block.
func (f *file) top(n *sitter.Node, ns string, anon bool, env *lang.Env) {
	for _, c := range ts.Children(n) {
		f.decl(&c, ns, anon, env)
	}
}

func (f *file) decl(c *sitter.Node, ns string, anon bool, env *lang.Env) {
	switch ts.Kind(c) {
	case "preproc_include":
		f.include(c, env)
	case "preproc_function_def":
		f.macro(c)
	case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "ERROR":
		// An ERROR (what tree-sitter could not parse, often around a
		// macro) keeps the declarations it holds.
		for _, k := range ts.Children(c) {
			f.decl(&k, ns, anon, env)
		}
	case "namespace_definition":
		name := f.text(ts.Field(c, "name"))
		inner, a := ns, anon
		for _, part := range strings.Split(name, "::") {
			f.namespaces[strings.TrimSpace(part)] = true
		}
		if name == "" {
			a = true
		} else if inner == "" {
			inner = name
		} else {
			inner += "::" + name
		}
		if b := ts.Field(c, "body"); b != nil && len(inner) <= maxNamespacePath {
			f.top(b, inner, a, env)
		}
	case "linkage_specification":
		if b := ts.Field(c, "body"); b != nil {
			if ts.Kind(b) == "declaration_list" {
				f.top(b, ns, anon, env)
			} else {
				f.decl(b, ns, anon, env)
			}
		}
	case "template_declaration", "export_declaration":
		for _, k := range ts.Children(c) {
			f.decl(&k, ns, anon, env)
		}
	case "function_definition":
		f.function(c, ns, anon, "")
	case "declaration", "type_definition", "field_declaration":
		f.declaration(c, ns, anon, "")
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		f.class(c, ns, "", "")
	case "expression_statement":
		// struct S {…}; parsed oddly in C++ (rare): nothing to do.
	}
}

// include adds an imports edge to the in-tree file #include names.
func (f *file) include(c *sitter.Node, env *lang.Env) {
	p := ts.Field(c, "path")
	if p == nil {
		return
	}
	name := strings.Trim(f.text(p), "\"<> \t")
	if name == "" {
		return
	}
	if target, ok := ResolveInclude(f.fr.Path, name, env); ok {
		f.fr.AddEdge(f.fileUID, lang.FileUID(target), graph.EdgeImports, ts.Line(c))
	}
	// Found or not, a file of that name added or removed can change where
	// the include leads (a closer header, the header gone).
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: WatchScope(path.Base(name))})
}

// WatchScope is the scope an include of a file named base watches: the
// file run marks it when a file of that name is added or removed.
func WatchScope(base string) string { return "missing:cinc:" + base }

// macro records a function-like macro's calls: as facts (v:#NAME.i the
// i-th called name, v:NAME its first) for calls in other files, and in
// f.macros for this one.
func (f *file) macro(c *sitter.Node) {
	name := f.text(ts.Field(c, "name"))
	v := ts.Field(c, "value")
	if name == "" || v == nil {
		return
	}
	params := map[string]bool{}
	for _, p := range ts.Children(ts.Field(c, "parameters")) {
		params[f.text(&p)] = true
	}
	var called []string
	seen := map[string]bool{}
	for _, callee := range macroCallees(f.text(v)) {
		if params[callee] || seen[callee] || callee == name {
			continue
		}
		seen[callee] = true
		called = append(called, callee)
		if len(called) == macroCalls {
			break
		}
	}
	if len(called) == 0 {
		return
	}
	if _, dup := f.macros[name]; !dup {
		f.macros[name] = called
	}
	for i, callee := range called {
		f.fr.Decl.SetFact(lang.FactVar+macroKey(name, i), &lang.Chain{Scope: Scope, Name: callee})
	}
	f.fr.Decl.SetFact(lang.FactVar+name, &lang.Chain{Scope: Scope, Name: macroKey(name, 0)})
}

func macroKey(name string, i int) string { return "#" + name + "." + strconv.Itoa(i) }

// notCallees are the words followed by "(" in a macro body that call
// nothing.
var notCallees = map[string]bool{"if": true, "while": true, "for": true, "switch": true, "return": true,
	"sizeof": true, "defined": true, "do": true, "_Alignof": true, "alignof": true, "decltype": true,
	"static_cast": true, "__builtin_offsetof": true, "reinterpret_cast": true, "const_cast": true, "dynamic_cast": true,
	"__typeof__": true, "typeof": true, "__builtin_expect": true, "offsetof": true}

// macroCallees lists the identifiers followed by "(" in a macro body, in
// order, skipping string and character literals.
func macroCallees(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '"' || ch == '\'':
			j := i + 1
			for j < len(s) && s[j] != ch {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case isIdentStart(ch):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\\' || s[k] == '\n' || s[k] == '\r') {
				k++
			}
			if k < len(s) && s[k] == '(' && !notCallees[word] && (i == 0 || (s[i-1] != '.' && s[i-1] != '>')) {
				out = append(out, word)
			}
			i = j
		case ch >= '0' && ch <= '9':
			for i < len(s) && isIdent(s[i]) {
				i++
			}
		default:
			i++
		}
	}
	return out
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdent(c byte) bool      { return isIdentStart(c) || (c >= '0' && c <= '9') }

// storage reports whether a declaration carries the storage class word.
func (f *file) storage(n *sitter.Node, word string) bool {
	for _, c := range ts.Children(n) {
		if ts.Kind(&c) == "storage_class_specifier" && f.text(&c) == word {
			return true
		}
	}
	return false
}

// declName unwraps a declarator to its name node and reports whether a
// function declarator was met (with its parameters).
func declName(d *sitter.Node) (name, params *sitter.Node, isFunc bool) {
	for d != nil {
		switch ts.Kind(d) {
		case "function_declarator":
			isFunc = true
			params = ts.Field(d, "parameters")
			d = ts.Field(d, "declarator")
			continue
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier", "destructor_name", "operator_name", "template_function", "primitive_type":
			return d, params, isFunc
		case "reference_declarator", "parenthesized_declarator":
			n := d.NamedChildCount()
			if n == 0 {
				return nil, params, isFunc
			}
			d = d.NamedChild(n - 1)
			continue
		}
		next := ts.Field(d, "declarator")
		if next == nil {
			return nil, params, isFunc
		}
		d = next
	}
	return nil, params, isFunc
}

// segments splits a qualified name (a::B<int>::m) into its parts without
// template arguments.
func (f *file) segments(n *sitter.Node) []string {
	var out []string
	for n != nil && ts.Kind(n) == "qualified_identifier" {
		if s := ts.Field(n, "scope"); s != nil {
			out = append(out, f.baseName(s))
		} else {
			out = append(out, "")
		}
		n = ts.Field(n, "name")
	}
	if n != nil {
		out = append(out, f.baseName(n))
	}
	return out
}

// baseName is a name without template arguments.
func (f *file) baseName(n *sitter.Node) string {
	if ts.Kind(n) == "template_type" || ts.Kind(n) == "template_function" {
		return f.text(ts.Field(n, "name"))
	}
	s := f.text(n)
	if i := strings.IndexByte(s, '<'); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// function adds a function or method definition.
func (f *file) function(c *sitter.Node, ns string, anon bool, class string) {
	nameNode, _, _ := declName(ts.Field(c, "declarator"))
	if nameNode == nil {
		return
	}
	for _, k := range ts.Children(c) {
		if ts.Kind(&k) == "delete_method_clause" {
			return // = delete: nothing to call
		}
	}
	segs := f.segments(nameNode)
	name := segs[len(segs)-1]
	if name == "" {
		return
	}
	owner := class
	if owner == "" && len(segs) > 1 {
		owner = f.typePath(segs[:len(segs)-1])
	}
	line, end := ts.Line(c), ts.EndLine(c)
	meta := map[string]any{"language": f.lang}
	if ns != "" {
		meta["namespace"] = ns
	}
	ret := f.typeChain(ts.Field(c, "type"))
	if owner == "" {
		uid := lang.CodeUID("function", f.fr.Path, name)
		local := (f.storage(c, "static") || anon) && !f.header
		if local {
			meta["static"] = true
		}
		if prev, dup := f.funcs[name]; dup {
			f.widen(prev, line, end)
		} else {
			f.funcs[name] = uid
			f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: line, EndLine: end, Metadata: meta})
			f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, line)
			if !local {
				f.fr.Decl.Names[name] = graph.KindFunction
				// name.name is the function, as C.C is a constructor
				// (see plainCall).
				f.fr.Decl.SetFact(lang.FactVar+name+"."+name, &lang.Chain{Scope: Scope, Name: name})
				if ret != nil {
					f.fr.Decl.SetFact(lang.FactReturn+name, ret)
				}
			}
		}
		f.bodies = append(f.bodies, body{uid: uid, def: c})
		return
	}
	full := owner + "." + name
	uid := lang.CodeUID("function", f.fr.Path, full)
	if prev := f.members[full]; prev != "" {
		f.widen(prev, line, end)
	} else {
		f.members[full] = uid
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: line, EndLine: end, Metadata: meta})
		if f.classes[owner] {
			f.fr.AddEdge(lang.CodeUID("class", f.fr.Path, owner), uid, graph.EdgeContains, line)
		} else {
			// The class is in another file (a header): resolve links it
			// to the method, as a Go method to a receiver type declared
			// in another file (the file contains the method when the
			// class is found nowhere).
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefContainedBy, From: uid, Line: line, Scope: Scope, Name: owner})
		}
		f.fr.Decl.Names[full] = graph.KindMethod
		if ret != nil {
			f.fr.Decl.SetFact(lang.FactReturn+full, ret)
		}
	}
	f.bodies = append(f.bodies, body{uid: uid, class: owner, def: c})
}

// widen makes the node uid, already added, span lines line to end too:
// overloads are one node covering all of them.
func (f *file) widen(uid string, line, end int) {
	for i := len(f.fr.Nodes) - 1; i >= 0; i-- {
		n := &f.fr.Nodes[i]
		if n.UID != uid {
			continue
		}
		n.Line, n.EndLine = min(n.Line, line), max(n.EndLine, end)
		return
	}
}

// declaration reads a declaration, typedef or (in a class) member
// declaration: the types it defines, pure virtual methods, fields, global
// variables and method return types.
func (f *file) declaration(c *sitter.Node, ns string, anon bool, class string) {
	typ := ts.Field(c, "type")
	if typ != nil {
		switch ts.Kind(typ) {
		case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
			if ts.Field(typ, "body") != nil {
				tdName := ""
				if ts.Kind(c) == "type_definition" && ts.Field(typ, "name") == nil {
					if n, _, _ := declName(ts.Field(c, "declarator")); n != nil {
						tdName = f.text(n)
					}
				}
				f.class(typ, ns, class, tdName)
			}
		}
	}
	tchain := f.typeChain(typ)
	cur := c.Walk()
	decls := c.ChildrenByFieldName("declarator", cur)
	cur.Close()
	for i := range decls {
		d := &decls[i]
		nameNode, _, isFunc := declName(d)
		if nameNode == nil {
			continue
		}
		name := f.text(nameNode)
		switch {
		case ts.Kind(c) == "type_definition":
			if typ != nil && ts.Field(typ, "body") != nil && ts.Field(typ, "name") == nil {
				continue // the anonymous struct took the typedef's name
			}
			if tchain != nil && tchain.Name != name {
				f.fr.Decl.SetFact(lang.FactVar+name, &lang.Chain{Scope: Scope, Name: tchain.Name})
				continue
			}
			if tchain == nil && class == "" {
				f.typeNode(c, name, "typedef", ns, "")
			}
		case class != "" && isFunc:
			segs := f.segments(nameNode)
			m := segs[len(segs)-1]
			full := class + "." + m
			if _, ok := f.members[full]; !ok {
				f.members[full] = ""
			}
			if tchain != nil {
				f.fr.Decl.SetFact(lang.FactReturn+full, tchain)
			}
			if prev := f.members[full]; prev != "" && f.pure(c) {
				f.widen(prev, ts.Line(c), ts.EndLine(c))
			} else if f.pure(c) {
				uid := lang.CodeUID("function", f.fr.Path, full)
				f.members[full] = uid
				f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: ts.Line(c), EndLine: ts.EndLine(c),
					Metadata: map[string]any{"language": f.lang, "pure": true}})
				f.fr.AddEdge(lang.CodeUID("class", f.fr.Path, class), uid, graph.EdgeContains, ts.Line(c))
				f.fr.Decl.Names[full] = graph.KindMethod
			}
		case class != "":
			if tchain != nil {
				f.fr.Decl.SetFact(lang.FactAttr+class+"."+name, tchain)
			}
		case isFunc:
			if tchain != nil {
				f.fr.Decl.SetFact(lang.FactReturn+name, tchain)
			}
		default:
			if tchain != nil && class == "" {
				f.globals[name] = tchain
				if !(f.storage(c, "static") || anon) || f.header {
					f.fr.Decl.SetFact(lang.FactVar+name, tchain)
				}
			}
		}
	}
}

// pure reports whether a member declaration ends in "= 0".
func (f *file) pure(c *sitter.Node) bool {
	for _, k := range ts.Children(c) {
		if ts.Kind(&k) == "number_literal" && f.text(&k) == "0" {
			return true
		}
	}
	return false
}

// typeNode adds a class node for a struct, union, enum, class or typedef.
func (f *file) typeNode(n *sitter.Node, name, kind, ns, outer string) string {
	uid := lang.CodeUID("class", f.fr.Path, name)
	meta := map[string]any{"language": f.lang, "type_kind": kind}
	if ns != "" {
		meta["namespace"] = ns
	}
	if outer != "" {
		meta["outer"] = outer
	}
	if f.classes[name] {
		return uid
	}
	f.classes[name] = true
	f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: ts.Line(n), EndLine: ts.EndLine(n), Metadata: meta})
	container := f.fileUID
	if outer != "" && f.classes[outer] {
		container = lang.CodeUID("class", f.fr.Path, outer)
	}
	f.fr.AddEdge(container, uid, graph.EdgeContains, ts.Line(n))
	f.fr.Decl.Names[name] = graph.KindClass
	return uid
}

// class adds a struct, union, enum or class with a body, its bases and
// its members.
func (f *file) class(n *sitter.Node, ns, outer, typedefName string) {
	b := ts.Field(n, "body")
	if b == nil {
		return
	}
	name := typedefName
	if nn := ts.Field(n, "name"); nn != nil {
		segs := f.segments(nn)
		name = f.typePath(segs)
		if outer == "" && len(segs) > 1 {
			outer = f.typePath(segs[:len(segs)-1])
		}
	}
	if name == "" {
		return
	}
	simple := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		simple = name[i+1:]
	} else if outer != "" {
		name = outer + "." + name
	}
	kind := strings.TrimSuffix(ts.Kind(n), "_specifier")
	uid := f.typeNode(n, name, kind, ns, outer)
	if typedefName != "" && typedefName != name {
		f.fr.Decl.SetFact(lang.FactVar+typedefName, &lang.Chain{Scope: Scope, Name: name})
	}
	if kind == "enum" {
		return
	}
	// A name qualified with the namespaces around the class
	// (geo::Registry from outside namespace geo) is the class.
	if ns != "" && !strings.Contains(name, ".") {
		parts := strings.Split(ns, "::")
		for i := range parts {
			q := strings.Join(parts[i:], ".") + "." + name
			f.fr.Decl.SetFact(lang.FactVar+q, &lang.Chain{Scope: Scope, Name: name})
			if kind != "enum" {
				f.fr.Decl.SetFact(lang.FactVar+q+"."+simple, &lang.Chain{Scope: Scope, Name: name + "." + simple})
			}
		}
	}
	// A nested class is also found by its own name when no other class
	// has it.
	if simple != name {
		f.fr.Decl.SetFact(lang.FactVar+simple, &lang.Chain{Scope: Scope, Name: name})
	}
	// A class without a declared constructor is built by an implicit
	// one: constructing it calls nothing in the tree.
	var bases []*lang.Chain
	for _, k := range ts.Children(n) {
		if ts.Kind(&k) != "base_class_clause" {
			continue
		}
		for _, bc := range ts.Children(&k) {
			switch ts.Kind(&bc) {
			case "type_identifier", "qualified_identifier", "template_type":
				segs := f.segments(&bc)
				base := segs[len(segs)-1]
				if base == "" {
					continue
				}
				bases = append(bases, &lang.Chain{Scope: Scope, Name: base})
				f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefInherits, From: uid, Line: ts.Line(&bc), Scope: Scope, Name: base, Stub: base})
			}
		}
	}
	if len(bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+name, bases...)
	}
	for _, m := range ts.Children(b) {
		switch ts.Kind(&m) {
		case "function_definition":
			f.function(&m, ns, false, name)
		case "field_declaration", "declaration":
			f.declaration(&m, ns, false, name)
		case "template_declaration":
			for _, k := range ts.Children(&m) {
				switch ts.Kind(&k) {
				case "function_definition":
					f.function(&k, ns, false, name)
				case "field_declaration", "declaration":
					f.declaration(&k, ns, false, name)
				}
			}
		case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
			f.class(&m, ns, name, "")
		case "preproc_if", "preproc_ifdef", "preproc_else":
			for _, k := range ts.Children(&m) {
				if ts.Kind(&k) == "field_declaration" {
					f.declaration(&k, ns, false, name)
				}
			}
		}
	}
}

// typeChain is the chain of an instance of the class a type names, nil
// for a type that names none (a builtin, a std type).
func (f *file) typeChain(t *sitter.Node) *lang.Chain {
	name := f.typeName(t)
	if name == "" {
		return nil
	}
	return &lang.Chain{Scope: Scope, Name: name, Inst: true}
}

// smartPointers are the templates whose -> reaches their first argument.
var smartPointers = map[string]bool{"unique_ptr": true, "shared_ptr": true, "weak_ptr": true, "auto_ptr": true}

// typeName is the class a type node names ("" for none).
func (f *file) typeName(t *sitter.Node) string {
	if t == nil {
		return ""
	}
	switch ts.Kind(t) {
	case "type_identifier":
		return f.text(t)
	case "struct_specifier", "union_specifier", "class_specifier":
		if n := ts.Field(t, "name"); n != nil {
			segs := f.segments(n)
			return segs[len(segs)-1]
		}
	case "qualified_identifier", "template_type":
		inner := t
		var outer []string
		for ts.Kind(inner) == "qualified_identifier" {
			if s := ts.Field(inner, "scope"); s != nil && f.text(s) == "std" {
				n := ts.Field(inner, "name")
				if n != nil && ts.Kind(n) == "template_type" && smartPointers[f.text(ts.Field(n, "name"))] {
					return f.templateArg(n)
				}
				return ""
			} else if s != nil {
				outer = append(outer, f.baseName(s))
			}
			inner = ts.Field(inner, "name")
			if inner == nil {
				return ""
			}
		}
		if len(outer) > 0 && ts.Kind(inner) == "type_identifier" {
			return f.typePath(append(outer, f.text(inner)))
		}
		if ts.Kind(inner) == "template_type" {
			if smartPointers[f.text(ts.Field(inner, "name"))] {
				return f.templateArg(inner)
			}
			return f.text(ts.Field(inner, "name"))
		}
		if ts.Kind(inner) == "type_identifier" {
			return f.text(inner)
		}
	}
	return ""
}

// typePath names a class from the segments of a qualified name: the
// segments that are namespaces the file opens (or std) left out, nested
// classes joined with ".".
func (f *file) typePath(segs []string) string {
	var parts []string
	for _, s := range segs {
		if s == "" || (len(parts) == 0 && (f.namespaces[s] || s == "std")) {
			continue
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ".")
}

// templateArg is the class named by a template's first argument.
func (f *file) templateArg(n *sitter.Node) string {
	args := ts.Field(n, "arguments")
	if args == nil || args.NamedChildCount() == 0 {
		return ""
	}
	a := args.NamedChild(0)
	if ts.Kind(a) == "type_descriptor" {
		return f.typeName(ts.Field(a, "type"))
	}
	return f.typeName(a)
}
