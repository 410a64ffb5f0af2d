package python

import (
	"regexp"
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/cos-dev/cos/graph"
)

// pyBuiltins are Python's builtin functions and exception classes (Python
// 3.11's dir(builtins)): their calls are not references, unless the module
// defines or assigns the name itself.
// langPython is the Python grammar, loaded once.
var langPython = sitter.NewLanguage(tspy.Language())

var pyBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError
	BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError
	ConnectionResetError DeprecationWarning EOFError EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError
	FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError
	InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError
	NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError
	RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError
	SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError
	UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError
	abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex
	delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int
	isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property quit range repr
	reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__`) {
		pyBuiltins[n] = true
	}
}

// Symbol and field ids of the Python grammar used on hot paths.
var (
	pyCallID         = langPython.IdForNodeKind("call", true)
	pyFunctionDefID  = langPython.IdForNodeKind("function_definition", true)
	pyLambdaID       = langPython.IdForNodeKind("lambda", true)
	pyIdentifierID   = langPython.IdForNodeKind("identifier", true)
	pyAttributeID    = langPython.IdForNodeKind("attribute", true)
	pyKeywordArgID   = langPython.IdForNodeKind("keyword_argument", true)
	pyAssignmentID   = langPython.IdForNodeKind("assignment", true)
	pyImportID       = langPython.IdForNodeKind("import_statement", true)
	pyImportFromID   = langPython.IdForNodeKind("import_from_statement", true)
	pyGlobalID       = langPython.IdForNodeKind("global_statement", true)
	pyNonlocalID     = langPython.IdForNodeKind("nonlocal_statement", true)
	pyClassDefID     = langPython.IdForNodeKind("class_definition", true)
	pyFunctionField  = langPython.FieldIdForName("function")
	pyAttributeField = langPython.FieldIdForName("attribute")
	pyObjectField    = langPython.FieldIdForName("object")
	pyNameField      = langPython.FieldIdForName("name")
	pyLeftField      = langPython.FieldIdForName("left")
)

// Modules maps every dotted module name of the repository's Python
// files to its path. A file under a top-level "src/" folder is also known
// without that prefix (the src layout).
func Modules(files map[string]bool) map[string]string {
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

// ForeignModules returns the modules of another root's Python files
// (paths inside that root) that a tree may import from it: those of its
// top-level packages (a folder with __init__.py at its top or under src/,
// or the [project] name of its pyproject.toml with a src layout), each
// mapped to prefix+path (prefix: graph.RootedPath's "name//").
func ForeignModules(files map[string]bool, project, prefix string) map[string]string {
	tops := map[string]bool{}
	for p := range files {
		for _, lay := range []string{"", "src/"} {
			rest, ok := strings.CutPrefix(p, lay)
			if !ok {
				continue
			}
			if top, file, ok := strings.Cut(rest, "/"); ok && file == "__init__.py" && top != "src" && top != "tests" && top != "test" {
				tops[top] = true
			}
		}
	}
	if project != "" {
		tops[strings.ReplaceAll(strings.ToLower(project), "-", "_")] = true
	}
	out := map[string]string{}
	for m, p := range Modules(files) {
		top, _, _ := strings.Cut(m, ".")
		if tops[top] {
			out[m] = prefix + p
		}
	}
	return out
}

// pyProjectRe finds the name of a pyproject.toml's [project] table.
var pyProjectRe = regexp.MustCompile(`(?m)^\[project\][ \t]*\r?$(?:\n[^\[\n].*$|\n$)*?\n[ \t]*name[ \t]*=[ \t]*["']([^"']+)["']`)

// ProjectName returns the [project] name of a pyproject.toml's content,
// "" when it declares none.
func ProjectName(data []byte) string {
	if m := pyProjectRe.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
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
// without a leading "src.": src/core/server.py is
// code:module:core.server.
func pyModuleName(p string) string {
	if i := strings.Index(p, "//"); i >= 0 { // a file of another root
		p = p[i+2:]
	}
	return pyDotted(strings.TrimPrefix(p, "src/"))
}

// pyBinding is what a name imported into a Python module stands for.
type pyBinding struct {
	module string // dotted module
	name   string // name inside module; "" when the binding is the module
}

type pyFile struct {
	fr       *lang.Result
	e        *lang.Env
	src      []byte
	scope    string
	fileUID  string
	module   string // dotted name of this module
	isPkg    bool
	bindings map[string]pyBinding
	classes  map[string]bool
	// moduleVars are the names assigned at module level.
	moduleVars map[string]bool
}

// extract parses a Python file with tree-sitter: the file and its
// code:module:<dotted> node (defines), top-level functions, classes and
// their methods (<Class>.<method>, kind method, contained by the class),
// imports (edges to the code:module: of the imported module), calls and
// inherits_from edges. Names are resolved through the module's imports and
// the declarations table; what stays unknown becomes a code:external: stub.
func extract(fr *lang.Result, data []byte, e *lang.Env) {
	src := lang.SourceText(data)
	fileUID := lang.FileNode(fr, map[string]any{"language": "python"})
	tree := ts.ParseFile(fr, langPython, src)
	if tree == nil {
		return
	}
	defer tree.Close()
	root := tree.RootNode()
	mod := pyModuleName(fr.Path)
	py := &pyFile{fr: fr, e: e, src: src, scope: "py:" + fr.Path, fileUID: fileUID, module: mod,
		isPkg: strings.HasSuffix(fr.Path, "__init__.py") || strings.HasSuffix(fr.Path, "__init__.pyi"), bindings: map[string]pyBinding{}, classes: map[string]bool{}, moduleVars: map[string]bool{}}
	fr.Decl = &lang.Decl{Scope: py.scope, Names: map[string]string{}}
	if mod != "" {
		modUID := lang.ClampUID("code:module:" + lang.UIDPart(mod))
		fr.AddNode(graph.Node{UID: modUID, Kind: graph.KindModule, Label: mod, Metadata: map[string]any{"language": "python"}})
		fr.AddEdge(fileUID, modUID, graph.EdgeDefines, 0)
	}
	// Declarations and imports first, so that calls see every binding.
	var deferred []func()
	py.block(root, &deferred)
	for _, f := range deferred {
		f()
	}
	py.entries(root)
}

// block walks module-level statements (descending into if/try/with bodies).
func (py *pyFile) block(n *sitter.Node, deferred *[]func()) {
	for _, c := range ts.Children(n) {
		c := c
		switch c.Kind() {
		case "function_definition", "class_definition":
			py.definition(&c, c.StartPosition().Row, deferred)
		case "decorated_definition":
			if d := c.ChildByFieldName("definition"); d != nil {
				py.definition(d, c.StartPosition().Row, deferred)
				what := "function"
				if d.Kind() == "class_definition" {
					what = "class"
				}
				py.decoratorUses(&c, lang.CodeUID(what, py.fr.Path, ts.Text(d.ChildByFieldName("name"), py.src)), nil, deferred)
			}
		case "import_statement", "import_from_statement", "future_import_statement":
			py.importStmt(&c, true)
		case "if_statement", "try_statement", "with_statement", "else_clause", "elif_clause", "except_clause", "finally_clause", "block":
			py.block(&c, deferred)
		case "expression_statement":
			if kids := ts.Children(&c); len(kids) == 1 && kids[0].Kind() == "assignment" {
				py.moduleAssign(&kids[0], deferred)
			}
			*deferred = append(*deferred, func() { py.calls(&c, py.fileUID, nil) })
		default:
			*deferred = append(*deferred, func() { py.calls(&c, py.fileUID, nil) })
		}
	}
}

func (py *pyFile) definition(d *sitter.Node, startRow uint, deferred *[]func()) {
	name := ts.Text(d.ChildByFieldName("name"), py.src)
	if name == "" {
		return
	}
	line := int(startRow) + 1
	switch d.Kind() {
	case "function_definition":
		uid := lang.CodeUID("function", py.fr.Path, name)
		py.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindFunction, Label: name, Line: line, EndLine: ts.EndLine(d)})
		py.fr.AddEdge(py.fileUID, uid, graph.EdgeContains, line)
		py.fr.Decl.Names[name] = graph.KindFunction
		*deferred = append(*deferred, func() { py.function(d, uid, name, "", plainFunction) })
	case "class_definition":
		uid := lang.CodeUID("class", py.fr.Path, name)
		py.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindClass, Label: name, Line: line, EndLine: ts.EndLine(d)})
		py.fr.AddEdge(py.fileUID, uid, graph.EdgeContains, line)
		py.fr.Decl.Names[name] = graph.KindClass
		py.classes[name] = true
		if sc := d.ChildByFieldName("superclasses"); sc != nil {
			var bases []sitter.Node
			for _, b := range ts.Children(sc) {
				if b.Kind() != "keyword_argument" {
					bases = append(bases, b)
				}
			}
			*deferred = append(*deferred, func() {
				var chains []*lang.Chain
				for i := range bases {
					py.reference(&bases[i], uid, lang.RefInherits, nil)
					if c := py.chainOf(&bases[i], nil); c != nil && len(c.Steps) == 0 {
						chains = append(chains, c)
					}
				}
				if len(chains) > 0 {
					py.fr.Decl.SetFact(lang.FactBase+name, chains...)
				}
			})
		}
		body := d.ChildByFieldName("body")
		var methods []func()
		for _, c := range ts.Children(body) {
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
				py.classAttr(def, name, deferred)
				*deferred = append(*deferred, func() { py.calls(def, uid, nil) })
				continue
			}
			mname := ts.Text(def.ChildByFieldName("name"), py.src)
			if mname == "" {
				continue
			}
			muid := lang.CodeUID("function", py.fr.Path, name+"."+mname)
			py.decoratorUses(&c, muid, nil, deferred)
			py.fr.AddNode(graph.Node{UID: muid, Kind: graph.KindMethod, Label: name + "." + mname, Line: int(row) + 1, EndLine: ts.EndLine(def)})
			py.fr.AddEdge(uid, muid, graph.EdgeContains, int(row)+1)
			py.fr.Decl.Names[name+"."+mname] = graph.KindMethod
			kind := instanceMethod
			property := false
			for _, dec := range py.decorators(&c) {
				switch dec {
				case "staticmethod":
					kind = staticMethod
				case "classmethod":
					kind = classMethod
				case "property", "cached_property":
					property = true
				}
			}
			run := func() {
				info := py.function(def, muid, name+"."+mname, name, kind)
				if property {
					if c := lang.DecodeChains(py.fr.Decl.Facts[lang.FactReturn+name+"."+mname]); len(c) == 1 {
						py.fr.Decl.SetFact(lang.FactAttr+name+"."+mname, c[0])
					}
				}
				for _, a := range info.selfAttrs {
					if a.value != nil {
						py.fr.Decl.SetFact(lang.FactAttr+name+"."+a.name, a.value)
					}
				}
			}
			if mname == "__init__" {
				methods = append([]func(){run}, methods...) // its attributes first
			} else {
				methods = append(methods, run)
			}
		}
		*deferred = append(*deferred, methods...)
	}
}

// decoratorUses reads the decorators of a decorated definition dd as
// calls and references of the definition uid (its node's lines include
// them).
func (py *pyFile) decoratorUses(dd *sitter.Node, uid string, env *pyEnv, deferred *[]func()) {
	if dd.Kind() != "decorated_definition" {
		return
	}
	for _, c := range ts.Children(dd) {
		if c.Kind() == "decorator" {
			c := c
			*deferred = append(*deferred, func() { py.calls(&c, uid, env) })
		}
	}
}

// function reads a function's body: its calls (from uid) and, when its
// value can be told, what it returns (factReturn of name).
func (py *pyFile) function(def *sitter.Node, uid, name, class string, kind methodKind) *pyFuncInfo {
	env, info := py.newEnv(nil, def, class, kind)
	if rt := def.ChildByFieldName("return_type"); rt != nil {
		py.fr.Decl.SetFact(lang.FactReturn+name, py.typeChain(rt, nil))
	} else if rets := withoutNone(info.returns); len(rets) > 0 && !info.bareRet {
		same := rets[0]
		for _, r := range rets[1:] {
			if same == nil || r == nil || lang.EncodeChains(r) != lang.EncodeChains(same) {
				same = nil
				break
			}
		}
		if same != nil && !py.isGenerator(def) {
			py.fr.Decl.SetFact(lang.FactReturn+name, same)
		}
	}
	py.signature(def, uid, nil)
	py.bodyUses(uid, env)
	return info
}

// withoutNone drops the None values of cs (return None beside return C()
// is an Optional[C]).
func withoutNone(cs []*lang.Chain) []*lang.Chain {
	out := cs[:0:0]
	for _, c := range cs {
		if c != noneChain {
			out = append(out, c)
		}
	}
	return out
}

// isGenerator reports whether a function body yields (its calls return a
// generator, not what it returns).
func (py *pyFile) isGenerator(def *sitter.Node) bool {
	found := false
	ts.WalkSkip(def.ChildByFieldName("body"), func(x *sitter.Node) bool {
		switch x.Kind() {
		case "yield":
			found = true
		case "function_definition", "class_definition", "lambda":
			return false
		}
		return !found
	})
	return found
}

// classAttr records a class-level attribute (x = C(), x: C) as the value of
// the instances' attribute.
func (py *pyFile) classAttr(n *sitter.Node, class string, deferred *[]func()) {
	if n.Kind() == "import_statement" || n.Kind() == "import_from_statement" {
		// An import in a class body binds class attributes.
		env := &pyEnv{locals: map[string]*lang.Chain{}}
		py.importInto(n, env)
		for alias, b := range env.binds {
			py.fr.Decl.SetFact(lang.FactAttr+class+"."+alias, py.bindingChain(b, ""))
		}
		return
	}
	if n.Kind() != "expression_statement" {
		return
	}
	kids := ts.Children(n)
	if len(kids) != 1 || kids[0].Kind() != "assignment" {
		return
	}
	a := kids[0]
	left := a.ChildByFieldName("left")
	if left == nil || left.Kind() != "identifier" {
		return
	}
	attr := ts.Text(left, py.src)
	*deferred = append(*deferred, func() {
		var c *lang.Chain
		if typ := a.ChildByFieldName("type"); typ != nil {
			c = py.typeChain(typ, nil)
		} else {
			c = py.chainOf(a.ChildByFieldName("right"), nil)
		}
		if c != nil {
			py.fr.Decl.SetFact(lang.FactAttr+class+"."+attr, c)
		}
	})
}

// moduleAssign records a module-level assignment: the name is a module
// variable, and its value a fact when it can be told.
func (py *pyFile) moduleAssign(a *sitter.Node, deferred *[]func()) {
	left := a.ChildByFieldName("left")
	if left == nil || left.Kind() != "identifier" {
		return
	}
	name := ts.Text(left, py.src)
	py.moduleVars[name] = true
	*deferred = append(*deferred, func() {
		var c *lang.Chain
		if typ := a.ChildByFieldName("type"); typ != nil {
			c = py.typeChain(typ, nil)
		} else {
			c = py.chainOf(a.ChildByFieldName("right"), nil)
		}
		if c != nil && !(c.Scope == py.scope && c.Name == name && len(c.Steps) == 0) {
			py.fr.Decl.SetFact(lang.FactVar+name, c)
		}
	})
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
	if p, ok := py.e.PyModules[m]; ok {
		return p, true
	}
	// Relative imports were resolved against the canonical name; retry
	// with the src/ prefix the file really has.
	if strings.HasPrefix(py.fr.Path, "src/") {
		p, ok := py.e.PyModules["src."+m]
		return p, ok
	}
	return "", false
}

// importEdge links the file to the code:module: node of an imported module.
func (py *pyFile) importEdge(m string, line int) {
	if m == "" {
		return
	}
	uid := lang.ClampUID("code:module:" + lang.UIDPart(m))
	if p, ok := py.modulePath(m); ok {
		uid = lang.ClampUID("code:module:" + lang.UIDPart(pyModuleName(p)))
	} else {
		py.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindModule, Label: m, Metadata: map[string]any{"language": "python", "stub": true}})
		py.fr.Refs = append(py.fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: "missing:py:" + m})
	}
	py.fr.AddEdge(py.fileUID, uid, graph.EdgeImports, line)
}

// importStmt binds the names an import statement brings in; at module
// level (moduleLevel) they are also facts, since other modules can import
// them from this one, and a star import re-exports the whole module.
func (py *pyFile) importStmt(n *sitter.Node, moduleLevel bool) {
	line := ts.Line(n)
	bind := func(alias string, b pyBinding) {
		py.bindings[alias] = b
		if moduleLevel {
			if c := py.bindingChain(b, ""); c != nil {
				py.fr.Decl.SetFact(lang.FactImport+alias, c)
			}
		}
	}
	switch n.Kind() {
	case "import_statement":
		for _, c := range ts.Children(n) {
			switch c.Kind() {
			case "dotted_name":
				m := ts.Text(&c, py.src)
				py.importEdge(m, line)
				py.bindings[m] = pyBinding{module: m}
				first, _, _ := strings.Cut(m, ".")
				if _, taken := py.bindings[first]; !taken || first == m {
					bind(first, pyBinding{module: first})
				}
			case "aliased_import":
				m := ts.Text(c.ChildByFieldName("name"), py.src)
				alias := ts.Text(c.ChildByFieldName("alias"), py.src)
				py.importEdge(m, line)
				if alias != "" {
					bind(alias, pyBinding{module: m})
				}
			}
		}
	case "import_from_statement":
		mn := n.ChildByFieldName("module_name")
		m := py.resolveModule(ts.Text(mn, py.src))
		py.importEdge(m, line)
		for _, c := range ts.Children(n) {
			if mn != nil && c.StartByte() == mn.StartByte() {
				continue
			}
			var name, alias string
			switch c.Kind() {
			case "dotted_name":
				name = ts.Text(&c, py.src)
				alias = name
			case "aliased_import":
				name = ts.Text(c.ChildByFieldName("name"), py.src)
				alias = ts.Text(c.ChildByFieldName("alias"), py.src)
			case "wildcard_import":
				if p, ok := py.modulePath(m); ok && moduleLevel {
					py.fr.Decl.AddStar("py:" + p)
				}
				continue
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
				bind(alias, pyBinding{module: full})
				py.importEdge(full, line)
			} else {
				bind(alias, pyBinding{module: m, name: name})
			}
		}
	}
}

// calls records the calls under n, made from the node from in scope env
// (nil at module level), and the names it uses without calling them
// (references: a function passed as a value, a class in isinstance or an
// except clause, a method read as an attribute). The calls of nested
// functions and lambdas belong to from, read in their own scopes.
func (py *pyFile) calls(n *sitter.Node, from string, env *pyEnv) {
	if n == nil {
		return
	}
	// read are the identifiers and attributes already read as a callee, an
	// attribute name, a keyword or an assignment target: not uses.
	read := map[uintptr]bool{}
	ts.WalkSkip(n, func(x *sitter.Node) bool {
		if x.KindId() == pyFunctionDefID && x.StartByte() == n.StartByte() {
			return true
		}
		return py.visit(x, from, env, read)
	})
}

// bodyUses reads the calls and references of a function body from the
// nodes its scope pass collected (env.items).
func (py *pyFile) bodyUses(from string, env *pyEnv) {
	read := map[uintptr]bool{}
	for _, x := range env.items {
		py.visit(x, from, env, read)
	}
}

// visit reads one node for calls and references; false skips its
// children (read here in their own scope, or not uses).
func (py *pyFile) visit(x *sitter.Node, from string, env *pyEnv, read map[uintptr]bool) bool {
	switch x.KindId() {
	case pyCallID:
		if f := x.ChildByFieldId(pyFunctionField); f != nil {
			py.refTo(f, from, env, lang.RefCall)
			read[f.Id()] = true
		}
	case pyIdentifierID:
		if !read[x.Id()] {
			py.refTo(x, from, env, graph.EdgeReferences)
		}
		return false
	case pyAttributeID:
		if !read[x.Id()] {
			py.refTo(x, from, env, graph.EdgeReferences)
		}
		if a := x.ChildByFieldId(pyAttributeField); a != nil {
			read[a.Id()] = true
		}
	case pyKeywordArgID:
		if k := x.ChildByFieldId(pyNameField); k != nil {
			read[k.Id()] = true
		}
	case pyAssignmentID:
		if l := x.ChildByFieldId(pyLeftField); l != nil && l.KindId() == pyIdentifierID {
			read[l.Id()] = true
		}
	case pyFunctionDefID:
		child, _ := py.newEnv(env, x, "", plainFunction)
		py.signature(x, from, env)
		py.bodyUses(from, child)
		return false
	case pyLambdaID:
		child, _ := py.newEnv(env, x, "", plainFunction)
		py.calls(x.ChildByFieldName("body"), from, child)
		return false
	case pyImportID, pyImportFromID, pyGlobalID, pyNonlocalID:
		return false
	case pyClassDefID:
		py.calls(x.ChildByFieldName("superclasses"), from, env)
		py.calls(x.ChildByFieldName("body"), from, env)
		return false
	}
	return true
}

// signature records the references of a function's annotations and
// default values, read in the enclosing scope env.
func (py *pyFile) signature(def *sitter.Node, from string, env *pyEnv) {
	for _, p := range ts.Children(def.ChildByFieldName("parameters")) {
		py.calls(p.ChildByFieldName("type"), from, env)
		py.calls(p.ChildByFieldName("value"), from, env)
	}
	py.calls(def.ChildByFieldName("return_type"), from, env)
}

// refTo adds a reference of type typ (refCall or graph.EdgeReferences)
// from the node from to what the name or attribute f stands for in env:
// a declaration of this module, an import followed into the repository,
// or a member of the receiver's value. A call of what cannot be resolved
// gets a stub ("module.name" outside the repository, "*.m" on an unknown
// receiver); a reference does not.
func (py *pyFile) refTo(f *sitter.Node, from string, env *pyEnv, typ string) {
	line := ts.Line(f)
	add := func(scope, name, stub string) {
		if typ != lang.RefCall {
			stub = ""
		}
		py.fr.Refs = append(py.fr.Refs, lang.Ref{Type: typ, From: from, Line: line, Scope: scope, Name: name, Stub: stub})
	}
	switch f.KindId() {
	case pyIdentifierID:
		name := ts.Text(f, py.src)
		if _, b, isBind, ok := env.local(name); ok {
			if isBind {
				py.bound(b, "", add)
			}
			return // a local's value: no declaration to point at
		}
		if b, ok := py.bindings[name]; ok && !py.ownsOver(b, name) {
			py.bound(b, "", add)
			return
		}
		declared := py.fr.Decl.Names[name] != ""
		switch {
		case pyBuiltins[name] && !declared && !py.moduleVars[name]:
		case py.moduleVars[name] && !declared:
			// A module variable: what it holds, if known; never a stub
			// named like an outside function.
			add(py.scope, name, "")
		default:
			add(py.scope, name, name)
		}
	case pyAttributeID:
		obj := f.ChildByFieldId(pyObjectField)
		attr := ts.Text(f.ChildByFieldId(pyAttributeField), py.src)
		if obj == nil || attr == "" {
			return
		}
		if head, rest, ok := py.dottedRoot(obj); ok {
			_, b, isBind, local := env.local(head)
			if !local {
				b, isBind = py.bindings[head]
			}
			if isBind {
				// module.sub.f: through the import, or a stub named
				// after the module outside the repository.
				if rest != "" {
					rest += "."
				}
				py.bound(b, rest+attr, add)
				return
			}
		}
		recv := py.chainOf(obj, env)
		if recv == nil {
			add("", "", "*."+attr)
			return
		}
		stub := "*." + attr
		if typ != lang.RefCall {
			stub = ""
		}
		py.fr.Refs = append(py.fr.Refs, lang.Ref{Type: typ, From: from, Line: line, Recv: recv, Name: attr, Stub: stub})
	}
}

// reference adds an inherits_from reference to the base class expression n.
func (py *pyFile) reference(n *sitter.Node, from, typ string, env *pyEnv) {
	line := ts.Line(n)
	add := func(scope, name, stub string) {
		py.fr.Refs = append(py.fr.Refs, lang.Ref{Type: typ, From: from, Line: line, Scope: scope, Name: name, Stub: stub})
	}
	switch n.Kind() {
	case "identifier":
		name := ts.Text(n, py.src)
		if b, ok := py.bindings[name]; ok {
			py.bound(b, "", add)
			return
		}
		add(py.scope, name, name)
	case "attribute":
		if head, rest, ok := py.dottedRoot(n); ok {
			if b, bound := py.bindings[head]; bound {
				py.bound(b, rest, add)
				return
			}
			add(py.scope, head+"."+rest, "*."+ts.Text(n.ChildByFieldName("attribute"), py.src))
		}
	}
}

// ownsOver reports whether the module's own declaration of name wins
// over its import b: the import comes from outside the repository (a C
// accelerator tried in a try block, "from _asyncio import f" after "def
// f"), and the module defines name itself.
func (py *pyFile) ownsOver(b pyBinding, name string) bool {
	if py.fr.Decl.Names[name] == "" {
		return false
	}
	scope, _, _ := py.boundTarget(b, "")
	return scope == ""
}

// boundTarget resolves a name reached through an import binding, followed
// by the dotted rest (empty when the binding itself is meant): the scope
// of the repository module and the name in it ("" for the module itself),
// and the stub label. scope is "" outside the repository.
func (py *pyFile) boundTarget(b pyBinding, rest string) (scope, name, stub string) {
	module, name := b.module, b.name
	if rest != "" {
		if name != "" {
			name += "." + rest
		} else {
			// module.sub.f: the longest module prefix that is a file.
			parts := strings.Split(rest, ".")
			i := 0
			for ; i < len(parts); i++ {
				if _, ok := py.modulePath(module + "." + parts[i]); !ok {
					break
				}
				module += "." + parts[i]
			}
			name = strings.Join(parts[i:], ".")
		}
	}
	stub = module
	if name != "" {
		stub += "." + name
	}
	if p, ok := py.modulePath(module); ok {
		return "py:" + p, name, stub
	}
	return "", name, stub
}

// bound adds the reference of a name reached through an import binding.
func (py *pyFile) bound(b pyBinding, rest string, add func(scope, name, stub string)) {
	scope, name, stub := py.boundTarget(b, rest)
	if name == "" {
		return // calling a module is not a reference we can place
	}
	add(scope, name, stub)
}
