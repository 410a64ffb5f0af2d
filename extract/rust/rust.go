package rust

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the Rust grammar, loaded once.
var language = sitter.NewLanguage(tsrust.Language())

// rsFile is the state of one file's extraction.
type rsFile struct {
	fr      *lang.Result
	src     []byte
	scope   string
	fileUID string
	lay     *layout
	// local are the names the file's module binds: its items, modules,
	// constants and use bindings (paths starting with one are looked up
	// in the file's scope, not as a crate).
	local map[string]bool
	// types maps the file's types and traits to their class uid.
	types map[string]string
	// bases are the traits each type implements (impl Tr for T) and a
	// trait's supertraits, in order; an alias's target type.
	bases     map[string][]*lang.Chain
	baseOrder []string
	seen      map[string]bool
	deferred  []func()
	// depth is the inline module nesting of the item being read (super::
	// inside mod tests {} is the file's own module).
	depth int
}

// fnEnv is what a function body's names stand for.
type fnEnv struct {
	impl     string // the impl's or trait's type name, "" outside
	generics map[string]*lang.Chain
	locals   map[string]*lang.Chain
	pending  []pendingLocal
}

// pendingLocal is a let binding that takes effect after its statement.
type pendingLocal struct {
	end   uint
	name  string
	value *lang.Chain
}

// extract parses a Rust file: its nodes, local edges, facts and
// references (see the package doc).
func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "rust"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	files := map[string]bool{}
	if env != nil && env.Files != nil {
		files = env.Files
	}
	f := &rsFile{fr: fr, src: src, scope: "rust:" + fr.Path, fileUID: fileUID, lay: newLayout(fr.Path, files),
		local: map[string]bool{}, types: map[string]string{}, bases: map[string][]*lang.Chain{}, seen: map[string]bool{}}
	fr.Decl = &lang.Decl{Scope: f.scope, Names: map[string]string{}}
	f.items(root)
	for _, d := range f.deferred {
		d()
	}
	for _, t := range f.baseOrder {
		fr.Decl.SetFact(lang.FactBase+t, f.bases[t]...)
	}
}

// later queues fn to run once every declaration and use of the file is
// known, at the current inline module depth.
func (f *rsFile) later(fn func()) {
	d := f.depth
	f.deferred = append(f.deferred, func() { f.depth = d; fn() })
}

func (f *rsFile) text(n *sitter.Node) string { return ts.Text(n, f.src) }

// items reads the items of a module body (the file, or an inline mod).
func (f *rsFile) items(n *sitter.Node) {
	for _, c := range ts.Children(n) {
		c := c
		switch ts.Kind(&c) {
		case "function_item":
			name := f.text(c.ChildByFieldId(fName))
			if name == "" {
				continue
			}
			f.local[name] = true
			uid := lang.CodeUID("function", f.fr.Path, name)
			if f.node(uid, graph.KindFunction, name, &c, nil) {
				f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, ts.Line(&c))
				f.fr.Decl.Names[name] = graph.KindFunction
				f.later(func() { f.function(&c, uid, name, "", nil) })
			}
		case "struct_item", "enum_item", "union_item", "trait_item", "type_item":
			f.typeItem(&c)
		case "impl_item":
			f.impl(&c)
		case "mod_item":
			f.mod(&c)
		case "use_declaration":
			f.use(&c)
		case "const_item", "static_item":
			name := f.text(c.ChildByFieldId(fName))
			if name == "" {
				continue
			}
			f.local[name] = true
			f.later(func() {
				if t := f.typeChain(c.ChildByFieldId(fType), nil); t != nil {
					f.fr.Decl.SetFact(lang.FactVar+name, t)
				}
			})
		case "extern_crate_declaration":
			if a := c.ChildByFieldId(fAlias); a != nil {
				f.local[f.text(a)] = true
				name, alias := f.text(c.ChildByFieldId(fName)), f.text(a)
				f.fr.Decl.SetFact(lang.FactImport+alias, &lang.Chain{Scope: "rustcrate:" + name})
			}
		}
	}
}

// node adds a declaration's node once (a name declared twice, under two
// cfg attributes or in two inline modules, is one node); false when it
// was already added.
func (f *rsFile) node(uid, kind, label string, n *sitter.Node, meta map[string]any) bool {
	if f.seen[uid] {
		return false
	}
	f.seen[uid] = true
	f.fr.AddNode(graph.Node{UID: uid, Kind: kind, Label: label, Line: ts.Line(n), EndLine: ts.EndLine(n), Metadata: meta})
	return true
}

// typeItem declares a struct, enum, union, trait or type alias.
func (f *rsFile) typeItem(n *sitter.Node) {
	name := f.text(n.ChildByFieldId(fName))
	if name == "" {
		return
	}
	kind := strings.TrimSuffix(ts.Kind(n), "_item")
	if kind == "type" {
		kind = "alias"
	}
	f.local[name] = true
	uid := lang.CodeUID("class", f.fr.Path, name)
	if !f.node(uid, graph.KindClass, name, n, map[string]any{"type_kind": kind}) {
		return
	}
	f.types[name] = uid
	f.fr.AddEdge(f.fileUID, uid, graph.EdgeContains, ts.Line(n))
	f.fr.Decl.Names[name] = graph.KindClass
	switch ts.Kind(n) {
	case "struct_item", "union_item":
		body := n.ChildByFieldId(fBody)
		if body == nil || ts.Kind(body) != "field_declaration_list" {
			return
		}
		f.later(func() {
			generics := f.generics(n, nil, "")
			for _, fd := range ts.Children(body) {
				if ts.Kind(&fd) != "field_declaration" {
					continue
				}
				if t := f.typeChain(fd.ChildByFieldId(fType), generics); t != nil {
					f.fr.Decl.SetFact(lang.FactAttr+name+"."+f.text(fd.ChildByFieldId(fName)), t)
				}
			}
		})
	case "type_item":
		f.later(func() {
			if t := f.typeChain(n.ChildByFieldId(fType), f.generics(n, nil, "")); t != nil {
				t.Inst = false
				f.addBase(name, t)
			}
		})
	case "trait_item":
		if b := n.ChildByFieldId(fBounds); b != nil {
			f.later(func() {
				for _, t := range ts.Children(b) {
					if c := f.typeChain(&t, nil); c != nil {
						c.Inst = false
						f.addBase(name, c)
						f.fr.Refs = append(f.fr.Refs, f.typeRef(graph.EdgeInheritsFrom, uid, &t))
					}
				}
			})
		}
		body := n.ChildByFieldId(fBody)
		for _, m := range ts.Children(body) {
			if ts.Kind(&m) != "function_item" && ts.Kind(&m) != "function_signature_item" {
				continue
			}
			m := m
			mname := f.text(m.ChildByFieldId(fName))
			if mname == "" {
				continue
			}
			muid := lang.CodeUID("function", f.fr.Path, name+"."+mname)
			if !f.node(muid, graph.KindMethod, name+"."+mname, &m, map[string]any{"interface": true}) {
				continue
			}
			f.fr.AddEdge(uid, muid, graph.EdgeContains, ts.Line(&m))
			f.fr.Decl.Names[name+"."+mname] = graph.KindMethod
			f.later(func() { f.function(&m, muid, name+"."+mname, name, f.generics(n, nil, name)) })
		}
	}
}

// addBase records that type t implements (or aliases, or extends) c.
func (f *rsFile) addBase(t string, c *lang.Chain) {
	if _, ok := f.bases[t]; !ok {
		f.baseOrder = append(f.baseOrder, t)
	}
	f.bases[t] = append(f.bases[t], c)
}

// typeRef is a reference of type typ from uid to the type or trait n
// names (an outside one becomes a stub of its path).
func (f *rsFile) typeRef(typ, from string, n *sitter.Node) lang.Ref {
	segs := f.typeSegs(n)
	r := lang.Ref{Type: typ, From: from, Line: ts.Line(n)}
	if len(segs) == 0 {
		return r
	}
	r.Stub = strings.Join(segs, "::")
	if recv, name, ok := f.pathCall(segs, nil); ok {
		r.Recv, r.Name = recv, name
	}
	return r
}

// impl reads an impl block: its methods (<Type>.<method>), and for impl
// Trait for Type the implements edges.
func (f *rsFile) impl(n *sitter.Node) {
	typ := f.typeName(n.ChildByFieldId(fType))
	body := n.ChildByFieldId(fBody)
	if typ == "" || body == nil {
		return
	}
	owner, ownerHere := f.types[typ]
	trait := n.ChildByFieldId(fTrait)
	var methods []string
	for _, m := range ts.Children(body) {
		if ts.Kind(&m) != "function_item" {
			continue
		}
		m := m
		mname := f.text(m.ChildByFieldId(fName))
		if mname == "" {
			continue
		}
		qual := typ + "." + mname
		muid := lang.CodeUID("function", f.fr.Path, qual)
		if !f.node(muid, graph.KindMethod, qual, &m, nil) {
			continue
		}
		methods = append(methods, mname)
		f.fr.Decl.Names[qual] = graph.KindMethod
		if ownerHere {
			f.fr.AddEdge(owner, muid, graph.EdgeContains, ts.Line(&m))
		} else {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefContainedBy, From: muid, Line: ts.Line(&m), Scope: f.scope, Name: typ})
		}
		f.later(func() { f.function(&m, muid, qual, typ, f.generics(n, nil, typ)) })
	}
	if trait == nil {
		return
	}
	f.later(func() {
		tc := f.typeChain(trait, nil)
		if tc == nil {
			return
		}
		tc.Inst = false
		f.addBase(typ, tc)
		if ownerHere {
			f.fr.Refs = append(f.fr.Refs, f.typeRef(graph.EdgeImplements, owner, trait))
		}
		for _, m := range methods {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: graph.EdgeImplements, From: lang.CodeUID("function", f.fr.Path, typ+"."+m),
				Line: ts.Line(trait), Recv: tc, Name: m})
		}
	})
}

// typeName is the name an impl's type is declared under: Foo for Foo,
// Foo<T>, a::Foo and &Foo.
func (f *rsFile) typeName(n *sitter.Node) string {
	for n != nil {
		switch ts.Kind(n) {
		case "type_identifier":
			return f.text(n)
		case "generic_type", "reference_type", "pointer_type":
			n = n.ChildByFieldId(fType)
		case "scoped_type_identifier":
			n = n.ChildByFieldId(fName)
		default:
			return ""
		}
	}
	return ""
}

// mod reads a module declaration: mod x; is an imports edge to x.rs or
// x/mod.rs, and x a module of the file; an inline mod's items are read
// as the file's own (their names are declared in the file's scope).
func (f *rsFile) mod(n *sitter.Node) {
	name := f.text(n.ChildByFieldId(fName))
	if name == "" {
		return
	}
	f.local[name] = true
	if body := n.ChildByFieldId(fBody); body != nil {
		f.fr.Decl.SetFact(lang.FactImport+name, &lang.Chain{Scope: f.scope})
		f.depth++
		f.items(body)
		f.depth--
		return
	}
	if f.depth > 0 {
		return // mod x; inside an inline module: its file is not looked for
	}
	file := f.lay.childFile(f.fr.Path, name)
	if file == "" {
		for _, c := range f.lay.childFiles(f.fr.Path, name) {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: lang.FileWatchScope(c)})
		}
		return
	}
	f.fr.Decl.SetFact(lang.FactImport+name, &lang.Chain{Scope: "rust:" + file})
	f.fr.AddEdge(f.fileUID, lang.FileUID(file), graph.EdgeImports, ts.Line(n))
}

// use reads a use declaration: each name it binds is an import fact
// (followed across files and crates at resolution), each path an imports
// edge to the file declaring what it names; a glob re-exports the
// module's names.
func (f *rsFile) use(n *sitter.Node) {
	line := ts.Line(n)
	f.useTree(n.ChildByFieldId(fArgument), nil, func(segs []string, alias string, glob bool) {
		if alias != "" && alias != "_" {
			f.local[alias] = true
		}
		f.later(func() {
			scope, rest, ok := f.pathScope(segs, nil)
			if !ok {
				return
			}
			c := &lang.Chain{Scope: scope, Name: strings.Join(rest, ".")}
			if glob {
				if s := f.moduleScope(scope, rest); s != "" {
					f.fr.Decl.AddStar(s)
				}
			} else if alias != "" && alias != "_" && !(scope == f.scope && len(rest) == 1 && rest[0] == alias) {
				f.fr.Decl.SetFact(lang.FactImport+alias, c)
			}
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefImport, From: f.fileUID, Line: line, Recv: c})
		})
	})
}

// moduleScope returns the scope of the module a glob import names:
// scope itself when rest is empty, else the in-crate module file rest
// leads to ("" when unknown).
func (f *rsFile) moduleScope(scope string, rest []string) string {
	if len(rest) == 0 {
		return scope
	}
	p, ok := strings.CutPrefix(scope, "rust:")
	if !ok {
		return ""
	}
	for _, seg := range rest {
		if p = f.lay.childFile(p, seg); p == "" {
			return ""
		}
	}
	return "rust:" + p
}

// useTree calls leaf for each path a use tree names, with the name it
// binds ("" for self of a crate root) and whether it is a glob.
func (f *rsFile) useTree(n *sitter.Node, prefix []string, leaf func(segs []string, alias string, glob bool)) {
	if n == nil {
		return
	}
	with := func(extra []string) []string { return append(append([]string(nil), prefix...), extra...) }
	switch ts.Kind(n) {
	case "identifier", "crate", "super", "metavariable":
		leaf(with([]string{f.text(n)}), f.text(n), false)
	case "self":
		if len(prefix) > 0 {
			leaf(with(nil), prefix[len(prefix)-1], false)
		}
	case "scoped_identifier":
		segs := with(f.pathSegs(n))
		if len(segs) > 0 && segs[len(segs)-1] == "self" {
			segs = segs[:len(segs)-1]
		}
		if len(segs) > 0 {
			leaf(segs, segs[len(segs)-1], false)
		}
	case "use_as_clause":
		segs := with(f.pathSegs(n.ChildByFieldId(fPath)))
		if len(segs) > 0 && segs[len(segs)-1] == "self" {
			segs = segs[:len(segs)-1]
		}
		if len(segs) > 0 {
			leaf(segs, f.text(n.ChildByFieldId(fAlias)), false)
		}
	case "use_list":
		for _, c := range ts.Children(n) {
			f.useTree(&c, prefix, leaf)
		}
	case "scoped_use_list":
		p := with(f.pathSegs(n.ChildByFieldId(fPath)))
		f.useTree(n.ChildByFieldId(fList), p, leaf)
	case "use_wildcard":
		var segs []string
		if kids := ts.Children(n); len(kids) > 0 {
			segs = f.pathSegs(&kids[0])
		}
		if segs = with(segs); len(segs) > 0 {
			leaf(segs, "", true)
		}
	}
}

// pathSegs splits a path (a::b::c, <T as Tr>::m, Vec::<u8>::new) into its
// segments; nil when a segment is not a name.
func (f *rsFile) pathSegs(n *sitter.Node) []string {
	if n == nil {
		return nil
	}
	switch ts.Kind(n) {
	case "identifier", "type_identifier", "self", "super", "crate", "metavariable", "field_identifier":
		return []string{f.text(n)}
	case "scoped_identifier", "scoped_type_identifier":
		var head []string
		if p := n.ChildByFieldId(fPath); p != nil {
			if head = f.pathSegs(p); head == nil {
				return nil
			}
		}
		name := f.text(n.ChildByFieldId(fName))
		if name == "" {
			return nil
		}
		return append(head, name)
	case "generic_type":
		return f.pathSegs(n.ChildByFieldId(fType))
	case "bracketed_type":
		kids := ts.Children(n)
		if len(kids) != 1 {
			return nil
		}
		if ts.Kind(&kids[0]) == "qualified_type" {
			return f.typeSegs(kids[0].ChildByFieldId(fAlias))
		}
		return f.typeSegs(&kids[0])
	}
	return nil
}

// typeSegs is pathSegs of a type, through references and generics.
func (f *rsFile) typeSegs(n *sitter.Node) []string {
	for n != nil {
		switch ts.Kind(n) {
		case "reference_type", "pointer_type", "generic_type":
			n = n.ChildByFieldId(fType)
		case "dynamic_type", "abstract_type":
			n = n.ChildByFieldId(fTrait)
		case "bounded_type":
			n = n.ChildByFieldId(fLeft)
		default:
			return f.pathSegs(n)
		}
	}
	return nil
}

// pathScope maps a path to the scope its first name is looked up in and
// the names that follow: crate:: is the crate root's scope, self:: the
// file's, super:: the enclosing module's, a name the file binds the
// file's, Self the impl's type, a generic parameter its bound, std, core
// and alloc nothing, and another name a crate ("rustcrate:<name>").
func (f *rsFile) pathScope(segs []string, env *fnEnv) (string, []string, bool) {
	if len(segs) == 0 {
		return "", nil, false
	}
	head := segs[0]
	switch head {
	case "crate":
		return "rust:" + f.lay.root, segs[1:], true
	case "self":
		return f.scope, segs[1:], true
	case "super":
		p, depth := f.fr.Path, f.depth
		for len(segs) > 0 && segs[0] == "super" {
			segs = segs[1:]
			if depth > 0 {
				depth--
				continue
			}
			if p = f.lay.parentFile(p); p == "" {
				return "", nil, false
			}
		}
		return "rust:" + p, segs, true
	case "Self":
		if env == nil || env.impl == "" {
			return "", nil, false
		}
		return f.scope, append([]string{env.impl}, segs[1:]...), true
	case "std", "core", "alloc":
		return "", nil, false
	}
	if env != nil {
		if b, ok := env.generics[head]; ok {
			if b == nil {
				return "", nil, false
			}
			return b.Scope, append(strings.Split(b.Name, "."), segs[1:]...), b.Name != ""
		}
	}
	if f.local[head] || len(segs) == 1 || head == "" || isUpper(head) {
		return f.scope, segs, true
	}
	return "rustcrate:" + head, segs[1:], true
}

// pathCall splits the path of a call into the receiver's chain and the
// member called: T::new → (T, new), a::f → (a, f), f → (the module, f).
func (f *rsFile) pathCall(segs []string, env *fnEnv) (*lang.Chain, string, bool) {
	scope, rest, ok := f.pathScope(segs, env)
	if !ok || len(rest) == 0 {
		return nil, "", false
	}
	return &lang.Chain{Scope: scope, Name: strings.Join(rest[:len(rest)-1], ".")}, rest[len(rest)-1], true
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
