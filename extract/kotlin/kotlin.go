package kotlin

import (
	"path"
	"strings"
	"sync"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// language is the Kotlin grammar, loaded once.
var language = sitter.NewLanguage(tskotlin.Language())

// ScopePrefix starts the declarations-table scope of a Kotlin package
// ("kt:<package>").
const ScopePrefix = "kt:"

// fieldPrefix marks a property in attribute facts and chain steps, so that
// a property and a function of one name (Kotlin allows both) stay apart.
const fieldPrefix = "$"

// companionName is the name of a companion object declared without one.
const companionName = "Companion"

// class is a class, interface, object or companion object of the file;
// object literals and local classes are unnamed (no node).
type class struct {
	name      string // Outer.Inner; "" for an object literal or a local class
	outer     *class
	named     bool
	kind      string                 // type_kind: class, interface, object, companion_object, enum, annotation
	methods   map[string]bool        // member functions
	spans     map[string][2]int      // function → first and last lines of its overloads
	fields    map[string]*lang.Chain // property (and constructor val/var) → its type (nil: unknown)
	tparams   map[string]bool        // type parameters
	companion *class                 // the companion object, if any
	base      *lang.Chain            // an unnamed class: what it extends
	hasBase   bool                   // the declaration names supertypes
}

// file is the state of one extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	pkg     string
	scope   string
	fileUID string
	dir     string
	root    string // the source root: dir without the package's folders
	rootOK  bool
	imports map[string]*lang.Chain // imported simple name (or alias) → its package and name
	stars   []string               // import p.*: packages
	classes map[string]*class      // by name (Outer.Inner)
	// funcs are the file's top-level functions by name (extension
	// functions by their bare name), with their declared name (T.f for
	// an extension of T).
	funcs   map[string]string
	spans   map[string][2]int      // top-level declared name → lines of its overloads
	props   map[string]*lang.Chain // top-level property → its type
	returns map[string]string      // FactReturn key → encoded chain, "" on disagreement
}

// ctx is where a body is walked: the node calls come from, the class
// this names (or the receiver of an extension function), the type
// parameters and the locals in scope.
type ctx struct {
	from    string
	cls     *class
	recv    *lang.Chain // an extension function's receiver: what this is
	tparams map[string]bool
	locals  map[string]*lang.Chain // nil value: a local of unknown type
}

func (cx *ctx) child() *ctx {
	return &ctx{from: cx.from, cls: cx.cls, recv: cx.recv, tparams: cx.tparams, locals: cloneLocals(cx.locals)}
}

func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "kotlin"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	if env == nil {
		env = &lang.Env{}
	}
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, dir: path.Dir(fr.Path),
		imports: map[string]*lang.Chain{}, classes: map[string]*class{}, funcs: map[string]string{},
		spans: map[string][2]int{}, props: map[string]*lang.Chain{}, returns: map[string]string{}}
	kids := topLevel(root)
	for i := range kids {
		if kids[i].Kind() == "package_header" {
			f.pkg = dottedName(&kids[i], src)
		}
	}
	f.scope = ScopePrefix + f.pkg
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
	for i := range kids {
		if kids[i].Kind() == "import" {
			f.importDecl(&kids[i])
		}
	}
	// Declarations first, so that bodies see every class and function of
	// the file.
	for i := range kids {
		switch kids[i].Kind() {
		case "class_declaration", "object_declaration":
			f.declare(&kids[i], nil)
		case "function_declaration":
			f.declareFunc(&kids[i])
		case "property_declaration":
			if v := propertyVar(&kids[i]); v != nil && receiverType(&kids[i]) == nil {
				f.props[ts.Text(v, src)] = nil
			}
		}
	}
	var props []string
	for i := range kids {
		switch kids[i].Kind() {
		case "class_declaration", "object_declaration":
			f.emit(&kids[i], nil, fileUID)
		case "function_declaration":
			f.topFunc(&kids[i])
		case "property_declaration":
			if name := f.topProperty(&kids[i]); name != "" {
				props = append(props, name)
			}
		}
	}
	if len(props) > 0 {
		fr.Nodes[0].Metadata["properties"] = props
	}
	for k, v := range f.returns {
		if v != "" {
			if cs := lang.DecodeChains(v); len(cs) == 1 {
				fr.Decl.SetFact(k, cs[0])
			}
		}
	}
}

// topLevel returns the declarations of the file, those tree-sitter
// recovered inside an ERROR node included.
func topLevel(root *sitter.Node) []sitter.Node {
	var out []sitter.Node
	for _, k := range ts.Children(root) {
		if k.Kind() == "ERROR" {
			out = append(out, topLevel(&k)...)
			continue
		}
		out = append(out, k)
	}
	return out
}

// dottedName is the text of the qualified_identifier (or identifier) child
// of n, without spaces.
func dottedName(n *sitter.Node, src []byte) string {
	for _, c := range ts.Children(n) {
		switch c.Kind() {
		case "qualified_identifier", "identifier":
			return stripSpace(ts.Text(&c, src))
		}
	}
	return ""
}

// stripSpace drops whitespace and comments are not expected inside names.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), "")
}

// fileExists reports whether the package pkg has a file <top>.kt under
// the file's source root (Kotlin's convention, not a rule).
func (f *file) fileExists(pkg, top string) (string, bool) {
	if !f.rootOK {
		return "", false
	}
	p := path.Join(f.root, strings.ReplaceAll(pkg, ".", "/"), top+".kt")
	return p, f.env.Files[p]
}

// splitQualified splits an imported name into its package and its
// declaration (dotted for a nested class): at the first segment starting
// with an upper-case letter, else before the last segment (a function or
// a property).
func splitQualified(q string) (pkg, name string) {
	segs := strings.Split(q, ".")
	for i, s := range segs {
		if i > 0 && s != "" && s[0] >= 'A' && s[0] <= 'Z' {
			return strings.Join(segs[:i], "."), strings.Join(segs[i:], ".")
		}
	}
	if len(segs) == 1 {
		return "", q
	}
	return strings.Join(segs[:len(segs)-1], "."), segs[len(segs)-1]
}

// importDecl records an import and refers to the declaration it names;
// package resolve turns the reference into an imports edge to the in-tree
// file declaring it (to the package's folders for import p.*).
func (f *file) importDecl(n *sitter.Node) {
	name, alias, star := "", "", false
	for i := uint(0); i < n.ChildCount(); i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		switch c.Kind() {
		case "qualified_identifier":
			name = stripSpace(ts.Text(c, f.src))
		case "identifier":
			if name == "" {
				name = ts.Text(c, f.src)
			} else {
				alias = ts.Text(c, f.src)
			}
		case "*":
			star = true
		}
	}
	if name == "" {
		return
	}
	line := ts.Line(n)
	if star {
		f.stars = append(f.stars, name)
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefImport, From: f.fileUID, Line: line, Scope: ScopePrefix + name, Name: ImportStar})
		return
	}
	pkg, decl := splitQualified(name)
	simple := decl[strings.LastIndexByte(decl, '.')+1:]
	if alias != "" {
		simple = alias
	}
	f.imports[simple] = &lang.Chain{Scope: ScopePrefix + pkg, Name: decl}
	f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefImport, From: f.fileUID, Line: line, Scope: ScopePrefix + pkg, Name: decl})
}

// ImportStar is the Name of the import reference of import p.*.
const ImportStar = "*"

// maxTypeNesting is how deep class declarations nest before the deeper
// ones are left out (no node, bodies not read): a nested class's name
// holds every enclosing name, so without a bound n nested classes cost n².
const maxTypeNesting = 64

// declName is the name of a class, object or companion declaration.
func (f *file) declName(n *sitter.Node) string {
	name := ts.Text(n.ChildByFieldName("name"), f.src)
	if name == "" && n.Kind() == "companion_object" {
		name = companionName
	}
	return name
}

// typeKind names a declaration's kind for the node's metadata.
func typeKind(n *sitter.Node) string {
	switch n.Kind() {
	case "object_declaration":
		return "object"
	case "companion_object":
		return "companion_object"
	}
	for i := uint(0); i < n.ChildCount(); i++ {
		switch c := n.Child(i); c.Kind() {
		case "interface":
			return "interface"
		case "modifiers":
			for _, m := range ts.Children(c) {
				if m.Kind() == "class_modifier" {
					switch k := m.Child(0); k.Kind() {
					case "enum", "annotation":
						return k.Kind()
					}
				}
			}
		case "class", "identifier":
			return "class"
		}
	}
	return "class"
}

// modifiers lists a declaration's class modifiers (data, sealed, value,
// inner, …), inheritance modifiers (abstract, open) and platform ones
// (expect, actual).
func (f *file) modifiers(n *sitter.Node) []string {
	var out []string
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		if c.Kind() != "modifiers" {
			continue
		}
		for _, m := range ts.Children(c) {
			switch m.Kind() {
			case "class_modifier", "inheritance_modifier", "platform_modifier":
				out = append(out, ts.Text(&m, f.src))
			}
		}
	}
	return out
}

// bodyOf returns the class_body or enum_class_body of a declaration.
func bodyOf(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if c := n.NamedChild(i); c.Kind() == "class_body" || c.Kind() == "enum_class_body" {
			return c
		}
	}
	return nil
}

// kindIDs caches the symbol ids of the node kinds childOfKind is asked
// for: comparing ids saves a cgo call and a string per child.
var kindIDs sync.Map // string → uint16

// childOfKind returns the first named child of n of kind k.
func childOfKind(n *sitter.Node, k string) *sitter.Node {
	if n == nil {
		return nil
	}
	v, ok := kindIDs.Load(k)
	if !ok {
		v, _ = kindIDs.LoadOrStore(k, language.IdForNodeKind(k, true))
	}
	id := v.(uint16)
	cnt := n.NamedChildCount()
	for i := uint(0); i < cnt; i++ {
		if c := n.NamedChild(i); c.KindId() == id {
			return c
		}
	}
	return nil
}

// declare records a class declaration and its nested classes, to
// maxTypeNesting levels.
func (f *file) declare(n *sitter.Node, outer *class) {
	name := f.declName(n)
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
	c := &class{name: name, outer: outer, named: true, kind: typeKind(n), methods: map[string]bool{}, fields: map[string]*lang.Chain{},
		tparams: f.typeParams(childOfKind(n, "type_parameters"))}
	c.hasBase = childOfKind(n, "delegation_specifiers") != nil
	if n.Kind() == "companion_object" && outer != nil {
		outer.companion = c
	}
	f.classes[name] = c
	f.fr.Decl.Names[name] = graph.KindClass
	if pc := childOfKind(n, "primary_constructor"); pc != nil {
		for _, p := range ts.Children(childOfKind(pc, "class_parameters")) {
			if p.Kind() == "class_parameter" && isProperty(&p) {
				c.fields[ts.Text(childOfKind(&p, "identifier"), f.src)] = nil
			}
		}
	}
	f.members(bodyOf(n), c, func(k *sitter.Node) { f.declare(k, c) })
}

// isProperty reports whether a class parameter is declared val or var.
func isProperty(p *sitter.Node) bool {
	for i := uint(0); i < p.ChildCount(); i++ {
		if k := p.Child(i).Kind(); k == "val" || k == "var" {
			return true
		}
	}
	return false
}

// members records the functions and properties of a class body in c,
// calling nested for each nested class, object and companion.
func (f *file) members(body *sitter.Node, c *class, nested func(*sitter.Node)) {
	if body == nil {
		return
	}
	for _, m := range ts.Children(body) {
		switch m.Kind() {
		case "function_declaration":
			mn := ts.Text(m.ChildByFieldName("name"), f.src)
			c.methods[mn] = true
			if c.spans == nil {
				c.spans = map[string][2]int{}
			}
			c.spans[mn] = widen(c.spans, mn, &m)
		case "property_declaration":
			if v := propertyVar(&m); v != nil {
				c.fields[ts.Text(v, f.src)] = nil
			}
		case "enum_entry":
			c.fields[ts.Text(childOfKind(&m, "identifier"), f.src)] = nil
		case "class_declaration", "object_declaration", "companion_object":
			nested(&m)
		case "ERROR":
			f.members(&m, c, nested)
		}
	}
}

// widen returns the lines of name's overloads with n added.
func widen(spans map[string][2]int, name string, n *sitter.Node) [2]int {
	sp, ok := spans[name]
	if !ok {
		return [2]int{ts.Line(n), ts.EndLine(n)}
	}
	return [2]int{min(sp[0], ts.Line(n)), max(sp[1], ts.EndLine(n))}
}

// propertyVar returns the name identifier of a property declaration (nil
// for a destructuring one).
func propertyVar(n *sitter.Node) *sitter.Node {
	return childOfKind(childOfKind(n, "variable_declaration"), "identifier")
}

// receiverType returns the receiver type of an extension function or
// property: the type child before its name (or before its variable).
func receiverType(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		switch c.Kind() {
		case "user_type", "nullable_type", "parenthesized_type":
			return c
		case "identifier", "variable_declaration", "function_value_parameters", "multi_variable_declaration":
			return nil
		}
	}
	return nil
}

// returnType returns the declared type of a function: the type child after
// its parameters.
func returnType(n *sitter.Node) *sitter.Node {
	seen := false
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		switch c.Kind() {
		case "function_value_parameters":
			seen = true
		case "user_type", "nullable_type", "parenthesized_type", "function_type":
			if seen {
				return c
			}
		}
	}
	return nil
}

// typeName is the declared name a receiver type gives an extension
// function: the class name in the file's scope when the type resolves
// there, else the type's last segment.
func (f *file) typeName(t *sitter.Node, tparams map[string]bool) string {
	if ch := f.typeChain(t, &ctx{tparams: tparams}); ch != nil && ch.Scope == f.scope {
		return ch.Name
	}
	q := typeText(t, f.src)
	return q[strings.LastIndexByte(q, '.')+1:]
}

// declareFunc records a top-level function: "f", or "T.f" for an
// extension function of T.
func (f *file) declareFunc(n *sitter.Node) {
	name := ts.Text(n.ChildByFieldName("name"), f.src)
	if name == "" {
		return
	}
	full := name
	if rt := receiverType(n); rt != nil {
		full = f.typeName(rt, f.typeParams(childOfKind(n, "type_parameters"))) + "." + name
	}
	if old, ok := f.funcs[name]; !ok || old != name {
		f.funcs[name] = full // a plain function wins over an extension of its name
	}
	f.spans[full] = widen(f.spans, full, n)
	if _, ok := f.fr.Decl.Names[full]; !ok {
		f.fr.Decl.Names[full] = graph.KindFunction
	}
	// The bare name of an extension function stands for it (an import
	// or an unqualified call names it so), unless the file declares a
	// plain function of that name.
	switch {
	case full == name:
		delete(f.fr.Decl.Alias, name)
	case f.funcs[name] == full:
		if f.fr.Decl.Alias == nil {
			f.fr.Decl.Alias = map[string]string{}
		}
		f.fr.Decl.Alias[name] = full
	}
}

func (f *file) typeParams(n *sitter.Node) map[string]bool {
	if n == nil {
		return nil
	}
	out := map[string]bool{}
	for _, p := range ts.Children(n) {
		if p.Kind() == "type_parameter" {
			if id := childOfKind(&p, "identifier"); id != nil {
				out[ts.Text(id, f.src)] = true
			}
		}
	}
	return out
}

func cloneLocals(m map[string]*lang.Chain) map[string]*lang.Chain {
	out := make(map[string]*lang.Chain, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}
