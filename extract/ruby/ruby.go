package ruby

import (
	"path"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// language is the Ruby grammar, loaded once.
var language = sitter.NewLanguage(tsruby.Language())

// scope is the declarations scope of every Ruby file.
const scope = "rb:"

// file is the state of one Ruby file's extraction.
type file struct {
	fr      *lang.Result
	env     *lang.Env
	src     []byte
	fileUID string
	// added are the uids of the nodes and the keys of the edges already
	// added (a class reopened in the file is one node).
	added map[string]bool
	// fields are the attr_* names of each class, by uid.
	fields map[string][]string
	nodes  map[string]int // uid → index in fr.Nodes
	bodies []func()
}

// extract parses one Ruby file (see the package doc).
func extract(fr *lang.Result, data []byte, env *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "ruby"})
	tree := ts.ParseFile(fr, language, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	f := &file{fr: fr, env: env, src: src, fileUID: fileUID, added: map[string]bool{}, fields: map[string][]string{}, nodes: map[string]int{}}
	fr.Decl = &lang.Decl{Scope: scope, Names: map[string]string{}}
	f.statements(root, "", false, fileUID)
	for _, b := range f.bodies {
		b()
	}
	for uid, names := range f.fields {
		sort.Strings(names)
		n := &fr.Nodes[f.nodes[uid]]
		if n.Metadata == nil {
			n.Metadata = map[string]any{}
		}
		n.Metadata["fields"] = slicesCompact(names)
	}
}

func slicesCompact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func (f *file) addNode(n graph.Node) bool {
	if f.added[n.UID] {
		return false
	}
	f.added[n.UID] = true
	f.nodes[n.UID] = len(f.fr.Nodes)
	f.fr.AddNode(n)
	return true
}

func (f *file) addEdge(src, dst, typ string, line int) {
	k := src + "\x00" + dst + "\x00" + typ
	if f.added[k] {
		return
	}
	f.added[k] = true
	f.fr.AddEdge(src, dst, typ, line)
}

// statements reads the statements of a program or of a class or module
// body: class is the enclosing class or module ("" at top level), from
// the uid its loose statements' calls come from; singleton marks a
// class << self body.
//
// It returns the modules the body includes, extends or prepends, the last
// one first (Ruby looks them up before the superclass).
func (f *file) statements(n *sitter.Node, class string, singleton bool, from string) []*lang.Chain {
	var loose []sitter.Node
	var bases []*lang.Chain
	var first []func()
	for _, c := range ts.Children(n) {
		switch ts.Kind(&c) {
		case "class", "module":
			f.classDecl(&c, class)
		case "singleton_class":
			if v := ts.Field(&c, "value"); v != nil && ts.Kind(v) == "self" && class != "" {
				bases = append(bases, f.statements(ts.Field(&c, "body"), class, true, from)...)
			}
		case "method":
			if fn := f.method(&c, class, singleton); fn != nil {
				first = append(first, fn)
			}
		case "singleton_method":
			if o := ts.Field(&c, "object"); o != nil && ts.Kind(o) == "self" {
				if fn := f.method(&c, class, true); fn != nil {
					first = append(first, fn)
				}
			}
		case "call":
			if class != "" && ts.Field(&c, "receiver") == nil && f.directive(&c, class, from, &bases) {
				continue
			}
			loose = append(loose, c)
		case "comment":
		default:
			loose = append(loose, c)
		}
	}
	for i, j := 0, len(bases)-1; i < j; i, j = i+1, j-1 {
		bases[i], bases[j] = bases[j], bases[i]
	}
	f.bodies = append(f.bodies, first...)
	if len(loose) > 0 {
		f.bodies = append(f.bodies, func() {
			b := f.newBody(from, class, "")
			var items []sitter.Node
			for i := range loose {
				items = append(items, b.scan(&loose[i])...)
			}
			b.read(items)
		})
	}
	return bases
}

// nestScope is the scope a constant is read in inside the modules of
// nest.
func nestScope(nest string) string { return lang.RubyNestScope + nest }

// constName returns a constant's text without a leading "::", "" for
// anything but a constant or a scope_resolution of constants.
func (f *file) constName(n *sitter.Node) string {
	if n == nil || (ts.Kind(n) != "constant" && ts.Kind(n) != "scope_resolution") {
		return ""
	}
	t := strings.TrimPrefix(ts.Text(n, f.src), "::")
	if strings.ContainsAny(t, " \t\n(") {
		return ""
	}
	return t
}

// classDecl declares a class or module nested in nest, its superclass
// and reads its body.
func (f *file) classDecl(n *sitter.Node, nest string) {
	nameNode := ts.Field(n, "name")
	name := f.constName(nameNode)
	if name == "" {
		return
	}
	full := name
	if nest != "" && !strings.HasPrefix(ts.Text(nameNode, f.src), "::") {
		full = nest + "::" + name
	}
	uid := lang.CodeUID("class", f.fr.Path, full)
	line := ts.Line(n)
	var meta map[string]any
	if ts.Kind(n) == "module" {
		meta = map[string]any{"type_kind": "module"}
	}
	f.addNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: full, Line: line, EndLine: ts.EndLine(n), Metadata: meta})
	f.addEdge(f.fileUID, uid, graph.EdgeContains, line)
	f.fr.Decl.Names[full] = graph.KindClass
	var super *lang.Chain
	if sc := ts.Field(n, "superclass"); sc != nil {
		for _, c := range ts.Children(sc) {
			if base := f.constName(&c); base != "" {
				f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefInherits, From: uid, Line: ts.Line(&c), Scope: nestScope(nest), Name: base, Stub: base})
				super = &lang.Chain{Scope: nestScope(nest), Name: base}
			}
		}
	}
	bases := f.statements(ts.Field(n, "body"), full, false, uid)
	if super != nil {
		bases = append(bases, super)
	}
	if len(bases) > 0 {
		f.fr.Decl.SetFact(lang.FactBase+full, bases...)
	}
}

// directive reads a class-level include, extend, prepend (inherits_from
// edges and bases) or attr_accessor, attr_reader, attr_writer (fields);
// false for any other call.
func (f *file) directive(c *sitter.Node, class, from string, bases *[]*lang.Chain) bool {
	m := ts.Text(ts.Field(c, "method"), f.src)
	args := ts.Children(ts.Field(c, "arguments"))
	switch m {
	case "include", "extend", "prepend":
		for i := range args {
			if mod := f.constName(&args[i]); mod != "" {
				f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefInherits, From: from, Line: ts.Line(&args[i]), Scope: nestScope(class), Name: mod, Stub: mod})
				*bases = append(*bases, &lang.Chain{Scope: nestScope(class), Name: mod})
			}
		}
		return true
	case "attr_accessor", "attr_reader", "attr_writer":
		for _, a := range args {
			if ts.Kind(&a) == "simple_symbol" {
				f.fields[from] = append(f.fields[from], strings.TrimPrefix(ts.Text(&a, f.src), ":"))
			}
		}
		return true
	}
	return false
}

// method declares a method of class (a function at top level) and
// returns the reading of its body.
func (f *file) method(n *sitter.Node, class string, singleton bool) func() {
	name := ts.Text(ts.Field(n, "name"), f.src)
	if name == "" {
		return nil
	}
	line := ts.Line(n)
	var uid string
	if class == "" {
		uid = lang.CodeUID("function", f.fr.Path, name)
		if !f.addNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: line, EndLine: ts.EndLine(n)}) {
			return nil
		}
		f.addEdge(f.fileUID, uid, graph.EdgeContains, line)
		f.fr.Decl.Names[name] = graph.KindFunction
	} else {
		full := class + "." + name
		uid = lang.CodeUID("function", f.fr.Path, full)
		var meta map[string]any
		if singleton {
			meta = map[string]any{"singleton": true}
		}
		if !f.addNode(graph.Node{UID: uid, Kind: graph.KindMethod, Label: full, Line: line, EndLine: ts.EndLine(n), Metadata: meta}) {
			return nil
		}
		f.addEdge(lang.CodeUID("class", f.fr.Path, class), uid, graph.EdgeContains, line)
		f.fr.Decl.Names[full] = graph.KindMethod
	}
	return func() {
		b := f.newBody(uid, class, name)
		b.params(ts.Field(n, "parameters"))
		b.read(b.scan(ts.Field(n, "body")))
	}
}

// require links the file to the in-tree file a require (lib/<x>.rb,
// <x>.rb) or require_relative (<dir>/<x>.rb) names; one that finds none
// watches for the first of them.
func (f *file) require(c *sitter.Node, relative bool) {
	args := ts.Children(ts.Field(c, "arguments"))
	if len(args) != 1 || ts.Kind(&args[0]) != "string" {
		return
	}
	var lit string
	for _, k := range ts.Children(&args[0]) {
		if ts.Kind(&k) != "string_content" {
			return
		}
		lit += ts.Text(&k, f.src)
	}
	if lit == "" {
		return
	}
	if !strings.HasSuffix(lit, ".rb") {
		lit += ".rb"
	}
	var cands []string
	if relative {
		cands = []string{path.Join(path.Dir(f.fr.Path), lit)}
	} else {
		cands = []string{"lib/" + lit, lit}
	}
	for _, p := range cands {
		if strings.HasPrefix(p, "../") || p == f.fr.Path {
			continue
		}
		if f.env != nil && f.env.Files[p] {
			f.addEdge(f.fileUID, lang.FileUID(p), graph.EdgeImports, ts.Line(c))
			return
		}
	}
	if !strings.HasPrefix(cands[0], "../") {
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: missingScope(cands[0])})
	}
}
