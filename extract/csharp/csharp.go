package csharp

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the C# grammar, loaded once.
var language = sitter.NewLanguage(tscsharp.Language())

// Scope prefixes: a namespace's declarations, and the list of namespaces
// a type name is looked up in (package resolve reads both).
const (
	scopePrefix     = "cs:"
	scopeListPrefix = "csns:"
)

// maxTypeNesting is how deep type declarations nest before the deeper
// ones are left out (no node, bodies not read): a nested type's name
// holds every enclosing name, so n nested types cost n² without a bound.
const maxTypeNesting = 64

// maxNamespace bounds a namespace's name in bytes; deeper namespace blocks
// are not read (the same n² as maxTypeNesting, through nested blocks).
const maxNamespace = 1024

// class is a class, struct, interface, record or enum of the file.
type class struct {
	name     string // declared name: Outer.Inner, prefixed by a sub-namespace of the file's
	simple   string
	fq       string // namespace-qualified: ns.Outer.Inner
	ns       string
	kind     string // class, struct, interface, record, enum
	outer    *class
	declared bool // in the file's scope (see the package doc)
	emitted  bool
	methods  map[string]bool
	spans    map[string][2]int      // method → first and last lines of its overloads
	fields   map[string]*lang.Chain // field or property → its declared type (nil: unknown)
	tparams  map[string]bool
	super    *lang.Chain // the superclass, when the base list names one
	hasBase  bool
}

// typeDecl is a type declaration found at namespace level.
type typeDecl struct {
	n  sitter.Node
	ns string
}

// file is the state of one extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	fileUID string
	declNS  string
	declSet bool
	scope   string
	usings  []string
	aliases map[string]*lang.Chain // using A = X.Y;
	statics []*lang.Chain          // using static X.Y;
	classes map[string]*class      // by namespace-qualified name
	lists   map[string]string      // namespace → its scope list
	returns map[string]string      // FactReturn key → encoded chain, "" on disagreement
	methods map[string]bool        // method uids emitted
	types   []typeDecl
	globals []sitter.Node          // top-level statements
	spans   []span                 // code to read, with its context
	kids    map[uint][]sitter.Node // a type body's members, by the body's start byte
}

func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "csharp"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	if env == nil {
		env = &lang.Env{}
	}
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, aliases: map[string]*lang.Chain{},
		classes: map[string]*class{}, lists: map[string]string{}, returns: map[string]string{}, methods: map[string]bool{}}
	root := tree.RootNode()
	var usings []sitter.Node
	f.scan(root, "", &usings)
	f.scope = scopePrefix + f.declNS
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	for i := range f.types {
		f.declare(&f.types[i].n, f.types[i].ns, nil)
	}
	for i := range usings {
		f.using(&usings[i])
	}
	for i := range f.types {
		f.emit(&f.types[i].n, f.types[i].ns, nil, fileUID)
	}
	for i := range f.globals {
		f.code(&f.globals[i], &ctx{from: fileUID, locals: map[string]*lang.Chain{}, member: &member{}})
	}
	f.readCode(root)
	for k, v := range f.returns {
		if v != "" {
			if cs := lang.DecodeChains(v); len(cs) == 1 {
				fr.Decl.SetFact(k, cs[0])
			}
		}
	}
}

// join joins a namespace and a name.
func join(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "." + name
}

// isTypeDecl reports whether a node kind declares a type with a node.
func isTypeDecl(k string) bool {
	switch k {
	case "class_declaration", "struct_declaration", "interface_declaration", "record_declaration", "enum_declaration":
		return true
	}
	return false
}

// typeKind names a declaration's kind for the node's metadata.
func typeKind(n *sitter.Node) string {
	switch n.Kind() {
	case "struct_declaration":
		return "struct"
	case "interface_declaration":
		return "interface"
	case "enum_declaration":
		return "enum"
	case "record_declaration":
		for i := uint(0); i < n.ChildCount(); i++ {
			if k := n.Child(i); k != nil && k.Kind() == "struct" {
				return "record_struct"
			}
		}
		return "record"
	}
	return "class"
}

// scan collects the using directives, type declarations and top-level
// statements under n (the compilation unit, a namespace body or a
// preprocessor block) in namespace ns, and picks the file's namespace:
// that of its first type declaration.
func (f *file) scan(n *sitter.Node, ns string, usings *[]sitter.Node) {
	for _, c := range ts.Children(n) {
		switch c.Kind() {
		case "using_directive":
			*usings = append(*usings, c)
		case "namespace_declaration":
			name := stripSpace(ts.Text(c.ChildByFieldName("name"), f.src))
			child := join(ns, name)
			if len(child) > maxNamespace {
				continue
			}
			if !f.declSet && f.declNS == "" {
				f.declNS = child // until a type says otherwise
			}
			if b := c.ChildByFieldName("body"); b != nil {
				f.scan(b, child, usings)
			}
		case "file_scoped_namespace_declaration":
			name := stripSpace(ts.Text(c.ChildByFieldName("name"), f.src))
			ns = join(ns, name)
			if !f.declSet {
				f.declNS = ns
			}
			f.scan(&c, ns, usings) // older grammars nest the declarations
		case "preproc_if", "preproc_elif", "preproc_else":
			f.scan(&c, ns, usings)
		case "global_statement":
			f.globals = append(f.globals, c)
		default:
			if isTypeDecl(c.Kind()) {
				if !f.declSet {
					f.declNS, f.declSet = ns, true
				}
				f.types = append(f.types, typeDecl{n: c, ns: ns})
			}
		}
	}
}

// children returns the named children of a type body (or of a
// preprocessor block in one), listed once: the declaration pass reads
// each body three times.
func (f *file) children(body *sitter.Node) []sitter.Node {
	k := body.StartByte()
	if kids, ok := f.kids[k]; ok {
		return kids
	}
	if f.kids == nil {
		f.kids = map[uint][]sitter.Node{}
	}
	kids := ts.Children(body)
	f.kids[k] = kids
	return kids
}

// text is the source text of n ("" for nil).
func (f *file) text(n *sitter.Node) string { return ts.Text(n, f.src) }

// stripSpace drops whitespace from a name's text.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), "")
}

// using reads one using directive: a namespace (an imports reference
// and a namespace types are looked up in), using static, or an alias.
func (f *file) using(n *sitter.Node) {
	var target *sitter.Node
	for _, c := range ts.Children(n) {
		if c.Kind() != "identifier" || n.ChildByFieldName("name") == nil || c.StartByte() != n.ChildByFieldName("name").StartByte() {
			c := c
			target = &c
		}
	}
	if target == nil {
		return
	}
	cx := &ctx{ns: f.declNS}
	if alias := n.ChildByFieldName("name"); alias != nil {
		if t := f.typeChain(target, cx); t != nil {
			f.aliases[ts.Text(alias, f.src)] = t
		}
		return
	}
	static := false
	for i := uint(0); i < n.ChildCount(); i++ {
		if k := n.Child(i); k != nil && k.Kind() == "static" {
			static = true
		}
	}
	name := strings.TrimPrefix(stripGenerics(ts.Text(target, f.src)), "global::")
	if static {
		if t := f.resolveDotted(name, cx); t != nil {
			t.Inst = false
			f.statics = append(f.statics, t)
		}
		return
	}
	f.usings = append(f.usings, name)
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefImport, From: f.fileUID, Line: ts.Line(n), Scope: scopePrefix + name})
}

// declare records a type declaration and its nested types, to
// maxTypeNesting levels.
func (f *file) declare(n *sitter.Node, ns string, outer *class) {
	simple := ts.Text(n.ChildByFieldName("name"), f.src)
	if simple == "" {
		return
	}
	depth := 0
	for o := outer; o != nil; o = o.outer {
		depth++
	}
	if depth >= maxTypeNesting {
		return
	}
	c := &class{simple: simple, ns: ns, outer: outer, kind: typeKind(n), methods: map[string]bool{}, fields: map[string]*lang.Chain{}}
	if outer != nil {
		c.name, c.fq, c.declared = outer.name+"."+simple, outer.fq+"."+simple, outer.declared
	} else {
		c.fq, c.declared = join(ns, simple), true
		switch {
		case ns == f.declNS:
			c.name = simple
		case f.declNS == "":
			c.name = join(ns, simple)
		case strings.HasPrefix(ns, f.declNS+"."):
			c.name = ns[len(f.declNS)+1:] + "." + simple
		default:
			c.name, c.declared = simple, false
		}
	}
	if old, dup := f.classes[c.fq]; dup {
		c = old // a partial class declared twice in one file: one node
	} else {
		f.classes[c.fq] = c
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		k := n.NamedChild(i)
		switch k.Kind() {
		case "type_parameter_list":
			c.tparams = typeParams(k, f.src, c.tparams)
		case "base_list":
			c.hasBase = true
		case "parameter_list": // a record's or a primary constructor's parameters
			for _, p := range ts.Children(k) {
				if p.Kind() == "parameter" {
					c.fields[ts.Text(p.ChildByFieldName("name"), f.src)] = nil
				}
			}
		}
	}
	if c.declared {
		f.fr.Decl.Names[c.name] = graph.KindClass
	}
	if body := n.ChildByFieldName("body"); body != nil {
		f.members(body, c, ns)
	}
}

// members records the methods and fields of a type body in c and
// declares its nested types.
func (f *file) members(body *sitter.Node, c *class, ns string) {
	for _, m := range f.children(body) {
		switch m.Kind() {
		case "method_declaration":
			mn := ts.Text(m.ChildByFieldName("name"), f.src)
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
		case "property_declaration", "event_declaration":
			c.fields[ts.Text(m.ChildByFieldName("name"), f.src)] = nil
		case "field_declaration", "event_field_declaration":
			for _, v := range ts.Children(&m) {
				if v.Kind() == "variable_declaration" {
					for _, d := range ts.Children(&v) {
						if d.Kind() == "variable_declarator" {
							c.fields[ts.Text(d.ChildByFieldName("name"), f.src)] = nil
						}
					}
				}
			}
		case "enum_member_declaration":
			c.fields[ts.Text(m.ChildByFieldName("name"), f.src)] = nil
		case "preproc_if", "preproc_elif", "preproc_else":
			f.members(&m, c, ns)
		default:
			if isTypeDecl(m.Kind()) {
				f.declare(&m, ns, c)
			}
		}
	}
}

// typeParams adds the names of a type_parameter_list to into.
func typeParams(n *sitter.Node, src []byte, into map[string]bool) map[string]bool {
	if n == nil {
		return into
	}
	for _, p := range ts.Children(n) {
		if p.Kind() == "type_parameter" {
			if into == nil {
				into = map[string]bool{}
			}
			into[ts.Text(p.ChildByFieldName("name"), src)] = true
		}
	}
	return into
}

// classChain is the chain of an instance of the file's class c.
func (f *file) classChain(c *class) *lang.Chain {
	if c.declared {
		return &lang.Chain{Scope: f.scope, Name: c.name, Inst: true}
	}
	name := c.simple
	for o := c.outer; o != nil; o = o.outer {
		name = o.simple + "." + name
	}
	return &lang.Chain{Scope: f.list(c.ns), Name: name, Inst: true}
}

// list is the scope list a type name seen in namespace ns is looked up
// in: ns, its parents, the global namespace, then the using directives.
func (f *file) list(ns string) string {
	if s, ok := f.lists[ns]; ok {
		return s
	}
	var b strings.Builder
	b.WriteString(scopeListPrefix)
	seen := map[string]bool{}
	add := func(n string) {
		if seen[n] {
			return
		}
		if len(seen) > 0 {
			b.WriteByte('|')
		}
		seen[n] = true
		b.WriteString(n)
	}
	for n := ns; ; {
		add(n)
		if n == "" {
			break
		}
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			n = n[:i]
		} else {
			n = ""
		}
	}
	for _, u := range f.usings {
		add(u)
	}
	s := b.String()
	f.lists[ns] = s
	return s
}

// emit adds the nodes, edges and facts of a declared type and walks its
// members' bodies.
func (f *file) emit(n *sitter.Node, ns string, outer *class, parent string) {
	simple := ts.Text(n.ChildByFieldName("name"), f.src)
	fq := join(ns, simple)
	if outer != nil {
		fq = outer.fq + "." + simple
	}
	c := f.classes[fq]
	if c == nil {
		return
	}
	uid := lang.CodeUID("class", f.fr.Path, c.name)
	line := ts.Line(n)
	meta := map[string]any{"language": "csharp", "type_kind": c.kind}
	if !c.emitted {
		c.emitted = true
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: c.name, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
		f.fr.AddEdge(parent, uid, graph.EdgeContains, line)
	}
	cx := &ctx{from: uid, cls: c, ns: ns, locals: map[string]*lang.Chain{}, member: &member{}}
	var fieldNames []string
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if k := n.NamedChild(i); k.Kind() == "parameter_list" {
			for _, p := range ts.Children(k) {
				if p.Kind() == "parameter" {
					pn := ts.Text(p.ChildByFieldName("name"), f.src)
					t := f.typeChain(p.ChildByFieldName("type"), cx)
					f.setField(c, pn, t)
					fieldNames = append(fieldNames, pn)
				}
			}
		}
	}
	body := n.ChildByFieldName("body")
	f.fieldTypes(body, c, cx, &fieldNames)
	if len(fieldNames) > 0 {
		meta["fields"] = fieldNames
	}
	f.bases(n, c, uid)
	if body != nil {
		f.classBody(body, c, uid)
	}
}

// setField records the declared type of a field or property of c.
func (f *file) setField(c *class, name string, t *lang.Chain) {
	c.fields[name] = t
	if t != nil && c.declared {
		f.fr.Decl.SetFact(lang.FactAttr+c.name+"."+name, t)
	}
}

// bases adds the inherits_from and implements references of a type's
// base list (see the package doc for how a base's kind is decided).
func (f *file) bases(n *sitter.Node, c *class, uid string) {
	if c.kind == "enum" {
		return
	}
	var list *sitter.Node
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if k := n.NamedChild(i); k.Kind() == "base_list" {
			list = k
		}
	}
	if list == nil {
		return
	}
	bcx := &ctx{cls: c.outer, ns: c.ns, tparams: c.tparams}
	var chains []*lang.Chain
	for i, t := range ts.Children(list) {
		if t.Kind() == "argument_list" {
			continue
		}
		tn := &t
		if t.Kind() == "primary_constructor_base_type" {
			tn = t.ChildByFieldName("type")
		}
		ch := f.typeChain(tn, bcx)
		if ch == nil {
			continue
		}
		ch.Inst = false
		chains = append(chains, ch)
		typ := graph.EdgeImplements
		switch {
		case c.kind == "interface":
			typ = graph.EdgeInheritsFrom
		case c.kind == "struct" || c.kind == "record_struct":
		case i == 0 && !f.isInterface(tn, bcx):
			typ = graph.EdgeInheritsFrom
			c.super = ch
		}
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: typ, From: uid, Line: ts.Line(tn), Scope: ch.Scope, Name: ch.Name, Stub: stubLabel(ch)})
	}
	if len(chains) > 0 && c.declared {
		f.fr.Decl.SetFact(lang.FactBase+c.name, chains...)
	}
}

// isInterface reports whether a base type is an interface: by its
// declaration when the file has it, else by the I<Upper> naming rule.
func (f *file) isInterface(t *sitter.Node, cx *ctx) bool {
	name := stripGenerics(ts.Text(t, f.src))
	if c := f.fileClass(name, cx); c != nil {
		return c.kind == "interface"
	}
	name = name[strings.LastIndexAny(name, ".:")+1:]
	return len(name) >= 2 && name[0] == 'I' && name[1] >= 'A' && name[1] <= 'Z'
}

// stubLabel is the external stub label of a type chain.
func stubLabel(c *lang.Chain) string {
	if ns, ok := strings.CutPrefix(c.Scope, scopePrefix); ok && ns != "" {
		return ns + "." + c.Name
	}
	return c.Name
}

// fieldTypes records the declared types of a type body's fields and
// properties.
func (f *file) fieldTypes(body *sitter.Node, c *class, cx *ctx, names *[]string) {
	if body == nil {
		return
	}
	for _, m := range f.children(body) {
		switch m.Kind() {
		case "field_declaration", "event_field_declaration":
			for _, v := range ts.Children(&m) {
				if v.Kind() != "variable_declaration" {
					continue
				}
				t := f.typeChain(v.ChildByFieldName("type"), cx)
				for _, d := range ts.Children(&v) {
					if d.Kind() == "variable_declarator" {
						fn := ts.Text(d.ChildByFieldName("name"), f.src)
						*names = append(*names, fn)
						f.setField(c, fn, t)
					}
				}
			}
		case "property_declaration", "event_declaration":
			fn := ts.Text(m.ChildByFieldName("name"), f.src)
			*names = append(*names, fn)
			f.setField(c, fn, f.typeChain(m.ChildByFieldName("type"), cx))
		case "enum_member_declaration":
			fn := ts.Text(m.ChildByFieldName("name"), f.src)
			*names = append(*names, fn)
			f.setField(c, fn, f.classChain(c))
		case "enum_member_declaration_list", "preproc_if", "preproc_elif", "preproc_else":
			f.fieldTypes(&m, c, cx, names)
		}
	}
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

// classBody emits a type's members and walks the code in them.
func (f *file) classBody(body *sitter.Node, c *class, uid string) {
	for _, m := range f.children(body) {
		m := m
		switch m.Kind() {
		case "method_declaration":
			f.method(&m, c, uid)
		case "property_declaration":
			f.property(&m, c, uid)
		case "constructor_declaration", "destructor_declaration", "operator_declaration", "conversion_operator_declaration", "indexer_declaration", "event_declaration":
			cx := f.memberCtx(uid, c)
			f.params(m.ChildByFieldName("parameters"), cx)
			for i := uint(0); i < m.NamedChildCount(); i++ {
				k := m.NamedChild(i)
				switch k.Kind() {
				case "constructor_initializer":
					f.ctorInit(k, c, cx)
				case "block", "arrow_expression_clause", "accessor_list":
					f.code(k, cx)
				}
			}
		case "field_declaration", "event_field_declaration", "enum_member_declaration":
			cx := f.memberCtx(uid, c)
			f.code(&m, cx)
		case "enum_member_declaration_list", "preproc_if", "preproc_elif", "preproc_else":
			f.classBody(&m, c, uid)
		default:
			if isTypeDecl(m.Kind()) {
				f.emit(&m, c.ns, c, uid)
			}
		}
	}
}

// memberCtx is the context of a member's code, calling from uid.
func (f *file) memberCtx(uid string, c *class) *ctx {
	return &ctx{from: uid, cls: c, ns: c.ns, tparams: c.tparams, locals: map[string]*lang.Chain{}, member: &member{}}
}

// memberNode adds the node of a method or property (once per name).
func (f *file) memberNode(c *class, cuid, name string, line, end int, meta map[string]any) string {
	full := c.name + "." + name
	uid := lang.CodeUID("function", f.fr.Path, full)
	if !f.methods[uid] {
		f.methods[uid] = true
		if c.declared {
			f.fr.Decl.Names[full] = graph.KindMethod
		}
		f.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: line, EndLine: end, Metadata: meta})
		f.fr.AddEdge(cuid, uid, graph.EdgeContains, line)
	}
	return uid
}

// method emits one method (overloads share its node) and walks its body.
func (f *file) method(m *sitter.Node, c *class, cuid string) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	sp := c.spans[name]
	if sp[0] == 0 {
		sp = [2]int{ts.Line(m), ts.EndLine(m)}
	}
	uid := f.memberNode(c, cuid, name, sp[0], sp[1], map[string]any{"language": "csharp"})
	cx := f.memberCtx(uid, c)
	cx.tparams = typeParams(m.ChildByFieldName("type_parameters"), f.src, cloneSet(c.tparams))
	if c.declared {
		f.setReturn(c.name+"."+name, f.typeChain(m.ChildByFieldName("returns"), cx))
	}
	f.params(m.ChildByFieldName("parameters"), cx)
	f.code(m.ChildByFieldName("body"), cx)
}

// property emits a property with code (an accessor body or an arrow) as
// a method node; an auto-property's initialiser calls from the type.
func (f *file) property(m *sitter.Node, c *class, cuid string) {
	name := ts.Text(m.ChildByFieldName("name"), f.src)
	value := m.ChildByFieldName("value")
	hasCode := value != nil && value.Kind() == "arrow_expression_clause"
	if acc := m.ChildByFieldName("accessors"); acc != nil {
		for _, a := range ts.Children(acc) {
			if a.ChildByFieldName("body") != nil {
				hasCode = true
			}
		}
	}
	from := cuid
	if hasCode && name != "" {
		from = f.memberNode(c, cuid, name, ts.Line(m), ts.EndLine(m), map[string]any{"language": "csharp", "member_kind": "property"})
	}
	cx := f.memberCtx(from, c)
	if value != nil {
		f.code(value, cx)
	}
	f.code(m.ChildByFieldName("accessors"), cx)
}

// ctorInit handles : base(…) (a call of the superclass) and : this(…).
func (f *file) ctorInit(n *sitter.Node, c *class, cx *ctx) {
	for i := uint(0); i < n.ChildCount(); i++ {
		if k := n.Child(i); k != nil && k.Kind() == "base" && c.super != nil {
			f.classRef(cx, ts.Line(n), c.super)
		}
	}
	f.code(n, cx)
}

func cloneSet(m map[string]bool) map[string]bool {
	if m == nil {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
