package python

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Python scoping and receiver chains. A name assigned anywhere in a
// function body is local to the whole body (unless declared global or
// nonlocal), so locals are collected before the body's calls are read: a
// parameter or local that shadows a top-level name is never bound to it.

// pyEnv is the scope of one function body (or lambda).
type pyEnv struct {
	parent *pyEnv
	// locals maps each local name to its value; a nil chain is a local of
	// unknown value (it still shadows outer names).
	locals map[string]*lang.Chain
	// binds are the imports made inside the function.
	binds map[string]pyBinding
	// class is the class of a method ("" elsewhere), for self, cls and
	// super().
	class string
	// noneOnly are the locals assigned nothing but None so far: a later
	// value is theirs (x = None … x = C() makes x a C, as a checker's
	// Optional[C] would).
	noneOnly []string
	// items are the nodes of the body the use pass reads (calls, names,
	// attributes, keywords, assignments, nested definitions), collected
	// by the scope pass in document order so that the body is walked once.
	items []*sitter.Node
}

// noneChain stands for the value None in setLocal.
var noneChain = &lang.Chain{Name: "None"}

func (env *pyEnv) isNoneOnly(name string) bool {
	for _, n := range env.noneOnly {
		if n == name {
			return true
		}
	}
	return false
}

func (env *pyEnv) dropNoneOnly(name string) {
	for i, n := range env.noneOnly {
		if n == name {
			env.noneOnly = append(env.noneOnly[:i], env.noneOnly[i+1:]...)
			return
		}
	}
}

// local finds name in env or an enclosing function scope.
func (env *pyEnv) local(name string) (c *lang.Chain, b pyBinding, isBind, ok bool) {
	for e := env; e != nil; e = e.parent {
		if b, ok := e.binds[name]; ok {
			return nil, b, true, true
		}
		if c, ok := e.locals[name]; ok {
			return c, pyBinding{}, false, true
		}
	}
	return nil, pyBinding{}, false, false
}

// setLocal records an assignment of name; a second assignment of another
// value makes the value unknown.
func (env *pyEnv) setLocal(name string, c *lang.Chain) {
	if name == "" {
		return
	}
	old, seen := env.locals[name]
	switch {
	case c == noneChain:
		if !seen {
			env.locals[name] = nil
			env.noneOnly = append(env.noneOnly, name)
		}
	case !seen:
		env.locals[name] = c
	case old == nil && env.isNoneOnly(name):
		env.locals[name] = c
		env.dropNoneOnly(name)
	case old == nil || c == nil || lang.EncodeChains(old) != lang.EncodeChains(c):
		env.locals[name] = nil
	}
}

// Symbol ids of the Python grammar used by the scope pass.
var (
	pyAugAssignID = langPython.IdForNodeKind("augmented_assignment", true)
	pyForID       = langPython.IdForNodeKind("for_statement", true)
	pyForInID     = langPython.IdForNodeKind("for_in_clause", true)
	pyAsPatternID = langPython.IdForNodeKind("as_pattern", true)
	pyWalrusID    = langPython.IdForNodeKind("named_expression", true)
	pyExceptID    = langPython.IdForNodeKind("except_clause", true)
	pyReturnID    = langPython.IdForNodeKind("return_statement", true)
)

// pyFuncInfo is what the first pass over a function body found.
type pyFuncInfo struct {
	// returns are the values of the body's return statements (nil for an
	// unknown one); selfAttrs the self.<attr> = value assignments.
	returns   []*lang.Chain
	bareRet   bool
	selfAttrs []pyAttr
}

type pyAttr struct {
	name  string
	value *lang.Chain
}

// methodKind says how a function's first parameter is bound.
type methodKind int

const (
	plainFunction methodKind = iota
	instanceMethod
	classMethod
	staticMethod
)

// decorators returns the simple names of a decorated definition's
// decorators (property, classmethod, x.setter → "setter").
func (py *pyFile) decorators(dd *sitter.Node) []string {
	if dd == nil || dd.Kind() != "decorated_definition" {
		return nil
	}
	var out []string
	for _, c := range ts.Children(dd) {
		if c.Kind() != "decorator" {
			continue
		}
		t := strings.TrimSpace(strings.TrimPrefix(ts.Text(&c, py.src), "@"))
		if i := strings.IndexByte(t, '('); i >= 0 {
			t = t[:i]
		}
		if i := strings.LastIndexByte(t, '.'); i >= 0 {
			t = t[i+1:]
		}
		out = append(out, t)
	}
	return out
}

// newEnv opens the scope of function fn (a function_definition or lambda)
// and collects its parameters and locals; info is filled from the body.
func (py *pyFile) newEnv(parent *pyEnv, fn *sitter.Node, class string, kind methodKind) (*pyEnv, *pyFuncInfo) {
	env := &pyEnv{parent: parent, locals: map[string]*lang.Chain{}, class: class}
	if parent != nil && class == "" {
		env.class = parent.class
	}
	info := &pyFuncInfo{}
	first := true
	for _, p := range ts.Children(fn.ChildByFieldName("parameters")) {
		var name string
		var typ, def *sitter.Node
		switch p.Kind() {
		case "identifier":
			name = ts.Text(&p, py.src)
		case "typed_parameter":
			for _, c := range ts.Children(&p) {
				if c.Kind() == "identifier" {
					name = ts.Text(&c, py.src)
					break
				}
			}
			typ = p.ChildByFieldName("type")
		case "default_parameter":
			name = ts.Text(p.ChildByFieldName("name"), py.src)
			def = p.ChildByFieldName("value")
		case "typed_default_parameter":
			name = ts.Text(p.ChildByFieldName("name"), py.src)
			typ = p.ChildByFieldName("type")
			def = p.ChildByFieldName("value")
		case "list_splat_pattern", "dictionary_splat_pattern":
			for _, c := range ts.Children(&p) {
				if c.Kind() == "identifier" {
					env.locals[ts.Text(&c, py.src)] = nil
				}
			}
			first = false
			continue
		default:
			continue
		}
		if name == "" {
			continue
		}
		var c *lang.Chain
		switch {
		case first && kind == instanceMethod && class != "":
			c = &lang.Chain{Scope: py.scope, Name: class, Inst: true}
		case first && kind == classMethod && class != "":
			c = &lang.Chain{Scope: py.scope, Name: class}
		case typ != nil:
			c = py.typeChain(typ, parent)
		case def != nil:
			c = py.chainOf(def, parent)
		}
		first = false
		if c == noneChain {
			// x=None: the body's assignment (if x is None: x = C()) is
			// its value.
			env.setLocal(name, c)
			continue
		}
		env.locals[name] = c
	}
	body := fn.ChildByFieldName("body")
	if body == nil {
		return env, info
	}
	if fn.Kind() == "lambda" {
		return env, info
	}
	// Pass 1: every name the body binds, and its imports.
	var globals map[string]bool
	var assigns []*sitter.Node
	ts.WalkSkip(body, func(x *sitter.Node) bool {
		switch x.KindId() {
		case pyCallID, pyIdentifierID, pyAttributeID, pyKeywordArgID, pyAssignmentID, pyLambdaID:
			env.items = append(env.items, x)
		}
		switch x.KindId() {
		case pyFunctionDefID, pyClassDefID:
			env.locals[ts.Text(x.ChildByFieldName("name"), py.src)] = nil
			env.items = append(env.items, x)
			return false
		case pyLambdaID:
			return false
		case pyGlobalID, pyNonlocalID:
			for _, c := range ts.Children(x) {
				if globals == nil {
					globals = map[string]bool{}
				}
				globals[ts.Text(&c, py.src)] = true
			}
			return false
		case pyImportID, pyImportFromID:
			py.importInto(x, env)
			return false
		case pyAssignmentID, pyAugAssignID:
			assigns = append(assigns, x)
		case pyForID, pyForInID:
			py.bindTargets(x.ChildByFieldName("left"), env)
		case pyAsPatternID:
			py.bindTargets(x.ChildByFieldName("alias"), env)
		case pyWalrusID:
			env.locals[ts.Text(x.ChildByFieldName("name"), py.src)] = nil
		case pyExceptID:
			// except E as e: the name follows "as".
			kids := ts.Children(x)
			for i := 1; i < len(kids); i++ {
				if kids[i].Kind() == "identifier" && kids[i-1].Kind() != "block" {
					env.locals[ts.Text(&kids[i], py.src)] = nil
				}
			}
		case pyReturnID:
			if kids := ts.Children(x); len(kids) > 0 {
				info.returns = append(info.returns, &lang.Chain{}) // placeholder, valued in pass 1b
				assigns = append(assigns, x)
			} else {
				info.bareRet = true
			}
		}
		return true
	})
	// Pass 1b: values, in document order.
	ret := 0
	for _, a := range assigns {
		if a.Kind() == "return_statement" {
			kids := ts.Children(a)
			info.returns[ret] = py.chainOf(&kids[0], env)
			ret++
			continue
		}
		left, right := a.ChildByFieldName("left"), a.ChildByFieldName("right")
		if a.Kind() == "augmented_assignment" {
			py.bindTargets(left, env)
			continue
		}
		var val *lang.Chain
		if typ := a.ChildByFieldName("type"); typ != nil {
			val = py.typeChain(typ, env)
		} else if right != nil {
			val = py.chainOf(right, env)
		}
		if left == nil {
			continue
		}
		switch left.Kind() {
		case "identifier":
			if _, already := env.locals[ts.Text(left, py.src)]; already || right != nil {
				env.setLocal(ts.Text(left, py.src), val)
			}
		case "attribute":
			if obj := left.ChildByFieldName("object"); obj != nil && obj.Kind() == "identifier" && class != "" && kind == instanceMethod {
				if c, _, _, ok := env.local(ts.Text(obj, py.src)); ok && c != nil && c.Inst && c.Name == class && len(c.Steps) == 0 {
					info.selfAttrs = append(info.selfAttrs, pyAttr{name: ts.Text(left.ChildByFieldName("attribute"), py.src), value: val})
				}
			}
		default:
			py.bindTargets(left, env)
		}
	}
	for g := range globals {
		delete(env.locals, g)
	}
	return env, info
}

// bindTargets marks the names of an assignment target as locals of
// unknown value.
func (py *pyFile) bindTargets(n *sitter.Node, env *pyEnv) {
	if n == nil {
		return
	}
	switch n.Kind() {
	case "identifier":
		env.setLocal(ts.Text(n, py.src), nil)
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list", "list_splat_pattern", "parenthesized_expression":
		for _, c := range ts.Children(n) {
			py.bindTargets(&c, env)
		}
	}
}

// importInto records an import inside a function as a binding of env.
func (py *pyFile) importInto(n *sitter.Node, env *pyEnv) {
	saved := py.bindings
	py.bindings = map[string]pyBinding{}
	py.importStmt(n, false)
	if env.binds == nil {
		env.binds = map[string]pyBinding{}
	}
	for k, v := range py.bindings {
		env.binds[k] = v
	}
	py.bindings = saved
}

// typeChain is the value an annotation declares: an instance of the class
// it names. Optional[T], T | None and "T" (a forward reference) are T;
// anything else (containers, unions of classes, Any) is unknown.
func (py *pyFile) typeChain(n *sitter.Node, env *pyEnv) *lang.Chain {
	for n != nil && n.Kind() == "type" {
		kids := ts.Children(n)
		if len(kids) != 1 {
			return nil
		}
		n = &kids[0]
	}
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "string":
		t := strings.Trim(ts.Text(n, py.src), `"'`)
		if !pyDottedIdent(t) {
			return nil
		}
		return py.namedType(t, env)
	case "identifier", "attribute":
		t := ts.Text(n, py.src)
		if !pyDottedIdent(t) || t == "None" || t == "Any" || t == "object" {
			return nil
		}
		return py.namedType(t, env)
	case "subscript", "generic_type":
		head := n.ChildByFieldName("value")
		if head == nil {
			kids := ts.Children(n)
			if len(kids) == 0 {
				return nil
			}
			head = &kids[0]
		}
		h := ts.Text(head, py.src)
		if h != "Optional" && !strings.HasSuffix(h, ".Optional") {
			return nil
		}
		var args []sitter.Node
		for _, c := range ts.Children(n) {
			if c.StartByte() != head.StartByte() {
				args = append(args, c)
			}
		}
		if len(args) == 1 {
			return py.typeChain(&args[0], env)
		}
	case "type_parameter":
		if kids := ts.Children(n); len(kids) == 1 {
			return py.typeChain(&kids[0], env)
		}
	case "binary_operator":
		l, r := n.ChildByFieldName("left"), n.ChildByFieldName("right")
		switch {
		case ts.Text(r, py.src) == "None":
			return py.typeChain(l, env)
		case ts.Text(l, py.src) == "None":
			return py.typeChain(r, env)
		}
	}
	return nil
}

// pyDottedIdent reports whether s is a dotted identifier (a.b.C).
func pyDottedIdent(s string) bool {
	if s == "" {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) && r < 0x80 {
				return false
			}
		}
	}
	return true
}

// namedType is the instance chain of a dotted type name seen from env.
func (py *pyFile) namedType(t string, env *pyEnv) *lang.Chain {
	head, rest, _ := strings.Cut(t, ".")
	c := py.nameChain(head, rest, env)
	if c == nil || len(c.Steps) > 0 {
		return nil
	}
	c.Inst = true
	return c
}

// nameChain is the chain of the dotted name head.rest as seen from env:
// a local's value, an import followed into the repository module it names,
// or a name of this module. Attributes of a module are folded into the
// chain's Name so that a type can be made of it. nil when the name is
// outside the repository, a builtin or a local of unknown value.
func (py *pyFile) nameChain(head, rest string, env *pyEnv) *lang.Chain {
	var c *lang.Chain
	if lc, b, isBind, ok := env.local(head); ok {
		if !isBind {
			if lc == nil {
				return nil
			}
			c = lc
			for s := range strings.SplitSeq(rest, ".") {
				if s != "" {
					c = c.Then(s)
				}
			}
			return c
		}
		return py.bindingChain(b, rest)
	}
	if b, ok := py.bindings[head]; ok && !py.ownsOver(b, head) {
		return py.bindingChain(b, rest)
	}
	if pyBuiltins[head] && py.fr.Decl.Names[head] == "" && !py.moduleVars[head] {
		return nil
	}
	name := head
	if rest != "" {
		name += "." + rest
	}
	return &lang.Chain{Scope: py.scope, Name: name}
}

// bindingChain is the chain of an imported binding followed by rest; nil
// outside the repository.
func (py *pyFile) bindingChain(b pyBinding, rest string) *lang.Chain {
	scope, name, _ := py.boundTarget(b, rest)
	if scope == "" {
		return nil
	}
	return &lang.Chain{Scope: scope, Name: name}
}

// chainOf is the chain of the value of expression n, nil when unknown.
func (py *pyFile) chainOf(n *sitter.Node, env *pyEnv) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		t := ts.Text(n, py.src)
		if t == "self" && env != nil {
			if c, _, _, ok := env.local(t); ok {
				return c
			}
		}
		return py.nameChain(t, "", env)
	case "attribute":
		obj := n.ChildByFieldName("object")
		attr := ts.Text(n.ChildByFieldName("attribute"), py.src)
		if obj == nil || attr == "" {
			return nil
		}
		if head, rest, ok := py.dottedRoot(obj); ok {
			if rest != "" {
				rest += "."
			}
			return py.nameChain(head, rest+attr, env)
		}
		return py.chainOf(obj, env).Then(attr)
	case "none":
		return noneChain
	case "call":
		f := n.ChildByFieldName("function")
		if f != nil && f.Kind() == "identifier" && ts.Text(f, py.src) == "super" {
			return py.superChain(env)
		}
		if f != nil && f.Kind() == "identifier" && ts.Text(f, py.src) == "type" {
			// type(x) is x's class.
			if args := ts.Children(n.ChildByFieldName("arguments")); len(args) == 1 {
				return py.chainOf(&args[0], env).Then(lang.ClassStep)
			}
			return nil
		}
		return py.chainOf(f, env).Then(lang.CallStep)
	case "parenthesized_expression", "await":
		if kids := ts.Children(n); len(kids) == 1 {
			return py.chainOf(&kids[0], env)
		}
	}
	return nil
}

// superChain is the receiver of super() in a method.
func (py *pyFile) superChain(env *pyEnv) *lang.Chain {
	if env == nil || env.class == "" {
		return nil
	}
	return &lang.Chain{Scope: py.scope, Name: env.class, Inst: true, Super: true}
}

// dottedRoot splits a dotted expression (a, a.b, a.b.c) into its first
// name and the rest; ok is false for anything else.
func (py *pyFile) dottedRoot(n *sitter.Node) (head, rest string, ok bool) {
	for x := n; x != nil; x = x.ChildByFieldName("object") {
		switch x.Kind() {
		case "identifier":
			t := ts.Text(n, py.src)
			head, rest, _ = strings.Cut(t, ".")
			return head, rest, pyDottedIdent(t)
		case "attribute":
			continue
		default:
			return "", "", false
		}
	}
	return "", "", false
}
