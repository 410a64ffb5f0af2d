package extract

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/cos-dev/cos/graph"
)

// pyBuiltins are Python builtins whose calls are not references.
var pyBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex
	delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int
	isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr
	reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__`) {
		pyBuiltins[n] = true
	}
}

// Symbol and field ids of the Python grammar used on hot paths.
var (
	pyCallID        = langPython.IdForNodeKind("call", true)
	pyFunctionField = langPython.FieldIdForName("function")
)

// pythonModules maps every dotted module name of the repository's Python
// files to its path. A file under a top-level "src/" folder is also known
// without that prefix (the src layout).
func pythonModules(files map[string]bool) map[string]string {
	m := map[string]string{}
	var srcLayout []string
	for p := range files {
		if !strings.HasSuffix(p, ".py") && !strings.HasSuffix(p, ".pyi") {
			continue
		}
		d := pyDotted(p)
		if d == "" {
			continue
		}
		if old, ok := m[d]; !ok || p < old {
			m[d] = p
		}
		if strings.HasPrefix(p, "src/") {
			srcLayout = append(srcLayout, p)
		}
	}
	for _, p := range srcLayout {
		d := pyDotted(strings.TrimPrefix(p, "src/"))
		if _, ok := m[d]; !ok && d != "" {
			m[d] = p
		}
	}
	return m
}

// pyDotted is the dotted module name of a path: a/b/c.py → a.b.c,
// a/b/__init__.py → a.b.
func pyDotted(p string) string {
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".pyi"), ".py")
	p = strings.TrimSuffix(p, "/__init__")
	if p == "__init__" {
		return ""
	}
	return strings.ReplaceAll(p, "/", ".")
}

// pyModuleName is the canonical module name of a file: its dotted path
// without a leading "src." (seed 003: code:module:core.thinking_os.server).
func pyModuleName(p string) string {
	return pyDotted(strings.TrimPrefix(p, "src/"))
}

// pyBinding is what a name imported into a Python module stands for.
type pyBinding struct {
	module string // dotted module
	name   string // name inside module; "" when the binding is the module
}

type pyFile struct {
	fr       *fileResult
	e        *env
	src      []byte
	scope    string
	fileUID  string
	module   string // dotted name of this module
	isPkg    bool
	bindings map[string]pyBinding
	classes  map[string]bool
}

// extractPython parses a Python file with tree-sitter: the file and its
// code:module:<dotted> node (defines), top-level functions, classes and
// their methods (<Class>.<method>, kind method, contained by the class),
// imports (edges to the code:module: of the imported module), calls and
// inherits_from edges. Names are resolved through the module's imports and
// the declarations table; what stays unknown becomes a code:external: stub.
func extractPython(fr *fileResult, data []byte, e *env) {
	src := sourceText(data)
	fileUID := fileNode(fr, map[string]any{"language": "python"})
	tree, err := parseTree(langPython, src)
	if err != nil {
		fr.parseError(err.Error())
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	tsSyntaxErrors(fr, root)
	mod := pyModuleName(fr.Path)
	py := &pyFile{fr: fr, e: e, src: src, scope: "py:" + fr.Path, fileUID: fileUID, module: mod,
		isPkg: strings.HasSuffix(fr.Path, "__init__.py") || strings.HasSuffix(fr.Path, "__init__.pyi"), bindings: map[string]pyBinding{}, classes: map[string]bool{}}
	fr.Decl = &decl{Scope: py.scope, Names: map[string]string{}}
	if mod != "" {
		modUID := clampUID("code:module:" + uidPart(mod))
		fr.node(graph.Node{UID: modUID, Kind: graph.KindModule, Label: mod, Metadata: map[string]any{"language": "python"}})
		fr.edge(fileUID, modUID, graph.EdgeDefines, 0)
	}
	// Declarations and imports first, so that calls see every binding.
	var deferred []func()
	py.block(root, &deferred)
	for _, f := range deferred {
		f()
	}
}

// block walks module-level statements (descending into if/try/with bodies).
func (py *pyFile) block(n *sitter.Node, deferred *[]func()) {
	for _, c := range tsChildren(n) {
		c := c
		switch c.Kind() {
		case "function_definition", "class_definition":
			py.definition(&c, c.StartPosition().Row, deferred)
		case "decorated_definition":
			if d := c.ChildByFieldName("definition"); d != nil {
				py.definition(d, c.StartPosition().Row, deferred)
			}
		case "import_statement", "import_from_statement", "future_import_statement":
			py.importStmt(&c)
		case "if_statement", "try_statement", "with_statement", "else_clause", "elif_clause", "except_clause", "finally_clause", "block":
			py.block(&c, deferred)
		default:
			*deferred = append(*deferred, func() { py.calls(&c, py.fileUID, "") })
		}
	}
}

func (py *pyFile) definition(d *sitter.Node, startRow uint, deferred *[]func()) {
	name := tsText(d.ChildByFieldName("name"), py.src)
	if name == "" {
		return
	}
	line := int(startRow) + 1
	switch d.Kind() {
	case "function_definition":
		uid := codeUID("function", py.fr.Path, name)
		py.fr.node(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: line, EndLine: tsEndLine(d)})
		py.fr.edge(py.fileUID, uid, graph.EdgeContains, line)
		py.fr.Decl.Names[name] = graph.KindFunction
		body := d.ChildByFieldName("body")
		*deferred = append(*deferred, func() { py.calls(body, uid, "") })
	case "class_definition":
		uid := codeUID("class", py.fr.Path, name)
		py.fr.node(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: tsEndLine(d)})
		py.fr.edge(py.fileUID, uid, graph.EdgeContains, line)
		py.fr.Decl.Names[name] = graph.KindClass
		py.classes[name] = true
		if sc := d.ChildByFieldName("superclasses"); sc != nil {
			for _, b := range tsChildren(sc) {
				if b.Kind() == "keyword_argument" {
					continue
				}
				b := b
				*deferred = append(*deferred, func() { py.reference(&b, uid, refInherits, "") })
			}
		}
		body := d.ChildByFieldName("body")
		for _, c := range tsChildren(body) {
			c := c
			def := &c
			row := c.StartPosition().Row
			if c.Kind() == "decorated_definition" {
				def = c.ChildByFieldName("definition")
			}
			if def == nil {
				continue
			}
			if def.Kind() != "function_definition" {
				*deferred = append(*deferred, func() { py.calls(def, uid, name) })
				continue
			}
			mname := tsText(def.ChildByFieldName("name"), py.src)
			if mname == "" {
				continue
			}
			muid := codeUID("function", py.fr.Path, name+"."+mname)
			py.fr.node(graph.Node{UID: muid, Kind: graph.KindMethod, Label: name + "." + mname, Line: int(row) + 1, EndLine: tsEndLine(def)})
			py.fr.edge(uid, muid, graph.EdgeContains, int(row)+1)
			py.fr.Decl.Names[name+"."+mname] = graph.KindMethod
			mbody := def.ChildByFieldName("body")
			*deferred = append(*deferred, func() { py.calls(mbody, muid, name) })
		}
	}
}

// resolveModule turns an import's module text (".x", "..", "a.b") into a
// dotted module name relative to this file.
func (py *pyFile) resolveModule(text string) string {
	dots := len(text) - len(strings.TrimLeft(text, "."))
	if dots == 0 {
		return text
	}
	rest := text[dots:]
	pkg := py.module
	if !py.isPkg {
		pkg = parentModule(pkg)
	}
	for i := 1; i < dots; i++ {
		pkg = parentModule(pkg)
	}
	switch {
	case pkg == "":
		return rest
	case rest == "":
		return pkg
	}
	return pkg + "." + rest
}

func parentModule(m string) string {
	if i := strings.LastIndex(m, "."); i >= 0 {
		return m[:i]
	}
	return ""
}

// modulePath returns the repository file of a dotted module, if any.
func (py *pyFile) modulePath(m string) (string, bool) {
	if p, ok := py.e.pyMods[m]; ok {
		return p, true
	}
	// Relative imports were resolved against the canonical name; retry
	// with the src/ prefix the file really has.
	if strings.HasPrefix(py.fr.Path, "src/") {
		p, ok := py.e.pyMods["src."+m]
		return p, ok
	}
	return "", false
}

// importEdge links the file to the code:module: node of an imported module.
func (py *pyFile) importEdge(m string, line int) {
	if m == "" {
		return
	}
	uid := clampUID("code:module:" + uidPart(m))
	if p, ok := py.modulePath(m); ok {
		uid = clampUID("code:module:" + uidPart(pyModuleName(p)))
	} else {
		py.fr.node(graph.Node{UID: uid, Kind: graph.KindModule, Label: m, Metadata: map[string]any{"language": "python", "stub": true}})
		py.fr.Refs = append(py.fr.Refs, ref{Type: refWatch, Scope: "missing:py:" + m})
	}
	py.fr.edge(py.fileUID, uid, graph.EdgeImports, line)
}

func (py *pyFile) importStmt(n *sitter.Node) {
	line := tsLine(n)
	switch n.Kind() {
	case "import_statement":
		for _, c := range tsChildren(n) {
			switch c.Kind() {
			case "dotted_name":
				m := tsText(&c, py.src)
				py.importEdge(m, line)
				py.bindings[m] = pyBinding{module: m}
				first, _, _ := strings.Cut(m, ".")
				if _, taken := py.bindings[first]; !taken || first == m {
					py.bindings[first] = pyBinding{module: first}
				}
			case "aliased_import":
				m := tsText(c.ChildByFieldName("name"), py.src)
				alias := tsText(c.ChildByFieldName("alias"), py.src)
				py.importEdge(m, line)
				if alias != "" {
					py.bindings[alias] = pyBinding{module: m}
				}
			}
		}
	case "import_from_statement":
		mn := n.ChildByFieldName("module_name")
		m := py.resolveModule(tsText(mn, py.src))
		py.importEdge(m, line)
		for _, c := range tsChildren(n) {
			if mn != nil && c.StartByte() == mn.StartByte() {
				continue
			}
			var name, alias string
			switch c.Kind() {
			case "dotted_name":
				name = tsText(&c, py.src)
				alias = name
			case "aliased_import":
				name = tsText(c.ChildByFieldName("name"), py.src)
				alias = tsText(c.ChildByFieldName("alias"), py.src)
			default:
				continue
			}
			if name == "" || alias == "" {
				continue
			}
			full := name
			if m != "" {
				full = m + "." + name
			}
			if _, isModule := py.modulePath(full); isModule {
				py.bindings[alias] = pyBinding{module: full}
				py.importEdge(full, line)
			} else {
				py.bindings[alias] = pyBinding{module: m, name: name}
			}
		}
	}
}

// calls records the calls under n (not descending into nested classes'
// or functions' own definitions is unnecessary: their calls belong to the
// enclosing top-level definition).
func (py *pyFile) calls(n *sitter.Node, from, class string) {
	if n == nil {
		return
	}
	tsWalk(n, func(x *sitter.Node) {
		if x.KindId() == pyCallID {
			if f := x.ChildByFieldId(pyFunctionField); f != nil {
				py.reference(f, from, refCall, class)
			}
		}
	})
}

// reference adds a call or inherits_from reference to the expression n.
func (py *pyFile) reference(n *sitter.Node, from, typ, class string) {
	line := tsLine(n)
	add := func(scope, name, stub string) {
		py.fr.Refs = append(py.fr.Refs, ref{Type: typ, From: from, Line: line, Scope: scope, Name: name, Stub: stub})
	}
	switch n.Kind() {
	case "identifier":
		name := tsText(n, py.src)
		if b, ok := py.bindings[name]; ok {
			py.bound(b, "", add)
			return
		}
		if typ == refCall && pyBuiltins[name] {
			return
		}
		add(py.scope, name, name)
	case "attribute":
		obj := n.ChildByFieldName("object")
		attr := tsText(n.ChildByFieldName("attribute"), py.src)
		if obj == nil || attr == "" {
			return
		}
		otext := tsText(obj, py.src)
		if (otext == "self" || otext == "cls") && class != "" {
			add(py.scope, class+"."+attr, "*."+attr)
			return
		}
		if obj.Kind() == "identifier" || obj.Kind() == "attribute" {
			// The longest bound prefix of a.b.c.
			parts := strings.Split(otext, ".")
			for i := len(parts); i > 0; i-- {
				b, ok := py.bindings[strings.Join(parts[:i], ".")]
				if !ok {
					continue
				}
				rest := append(append([]string(nil), parts[i:]...), attr)
				py.bound(b, strings.Join(rest, "."), add)
				return
			}
			if py.classes[otext] {
				add(py.scope, otext+"."+attr, "*."+attr)
				return
			}
		}
		add("", "", "*."+attr)
	}
}

// bound resolves a name reached through an import binding, followed by the
// dotted rest (empty when the binding itself is called).
func (py *pyFile) bound(b pyBinding, rest string, add func(scope, name, stub string)) {
	module, name := b.module, b.name
	if rest != "" {
		if name != "" {
			name += "." + rest
		} else {
			// module.sub.f: the longest module prefix that is a file.
			parts := strings.Split(rest, ".")
			i := 0
			for ; i < len(parts)-1; i++ {
				if _, ok := py.modulePath(module + "." + parts[i]); !ok {
					break
				}
				module += "." + parts[i]
			}
			name = strings.Join(parts[i:], ".")
		}
	}
	stub := module
	if name != "" {
		stub += "." + name
	}
	if p, ok := py.modulePath(module); ok && name != "" {
		add("py:"+p, name, stub)
		return
	}
	if name == "" {
		return // calling a module is not a reference we can place
	}
	add("", "", stub)
}
