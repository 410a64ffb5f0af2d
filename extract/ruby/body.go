package ruby

import (
	"strings"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Symbol ids of the grammar's node kinds read on hot paths.
var (
	idCall          = language.IdForNodeKind("call", true)
	idIdentifier    = language.IdForNodeKind("identifier", true)
	idAssignment    = language.IdForNodeKind("assignment", true)
	idOpAssignment  = language.IdForNodeKind("operator_assignment", true)
	idSuper         = language.IdForNodeKind("super", true)
	idMethod        = language.IdForNodeKind("method", true)
	idSingleton     = language.IdForNodeKind("singleton_method", true)
	idClass         = language.IdForNodeKind("class", true)
	idModule        = language.IdForNodeKind("module", true)
	idSingletonCl   = language.IdForNodeKind("singleton_class", true)
	idMethodParams  = language.IdForNodeKind("method_parameters", true)
	idBlockParams   = language.IdForNodeKind("block_parameters", true)
	idLambdaParams  = language.IdForNodeKind("lambda_parameters", true)
	idExceptionVar  = language.IdForNodeKind("exception_variable", true)
	idFor           = language.IdForNodeKind("for", true)
	idLeftList      = language.IdForNodeKind("left_assignment_list", true)
	idConstant      = language.IdForNodeKind("constant", true)
	idScopeRes      = language.IdForNodeKind("scope_resolution", true)
	idSelf          = language.IdForNodeKind("self", true)
	idInstanceVar   = language.IdForNodeKind("instance_variable", true)
	idParenthesized = language.IdForNodeKind("parenthesized_statements", true)
	idAlias         = language.IdForNodeKind("alias", true)
	idUndef         = language.IdForNodeKind("undef", true)
)

// kernel are the bare calls that are Kernel or Module methods, or
// keywords-like calls: not stubbed when no class of the tree has them.
var kernel = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`puts print p pp raise fail require require_relative load lambda proc loop format sprintf printf
	block_given? catch throw rand sleep freeze private protected public module_function private_constant public_constant
	define_method alias_method attr_accessor attr_reader attr_writer include extend prepend instance_variable_get
	instance_variable_set instance_variable_defined? respond_to? is_a? kind_of? instance_of? send public_send __send__
	binding caller exit abort at_exit warn gets srand Integer Float String Array Hash Rational Complex autoload
	using refine frozen? dup clone tap then yield_self itself method object_id hash inspect to_s class singleton_class
	nil? eql? equal? instance_variables instance_exec instance_eval class_eval module_eval class_exec define_singleton_method`) {
		kernel[n] = true
	}
}

// body is the scope of one method body (or of a file's or class body's
// loose statements).
type body struct {
	f      *file
	from   string // uid the calls come from
	class  string // enclosing class or module, "" at top level
	method string // enclosing method (super calls it on the bases)
	// locals are the method's local variables; vars the values of those
	// whose assignments agree (nil: unknown).
	locals map[string]bool
	vars   map[string]*lang.Chain
	// notCall are identifiers that are no calls (assignment targets, method
	// names of calls).
	notCall map[uintptr]bool
}

func (f *file) newBody(from, class, method string) *body {
	return &body{f: f, from: from, class: class, method: method, locals: map[string]bool{}, vars: map[string]*lang.Chain{}, notCall: map[uintptr]bool{}}
}

// params makes the identifiers of parameters locals.
func (b *body) params(n *sitter.Node) {
	ts.WalkSym(n, func(x *sitter.Node, sym uint16) bool {
		if sym == idIdentifier {
			b.locals[ts.Text(x, b.f.src)] = true
			b.notCall[x.Id()] = true
		}
		return true
	})
}

// scan walks n once: it records locals and returns, in document order,
// the assignments, calls, identifiers and supers the body reads. Nested
// definitions are not entered.
func (b *body) scan(n *sitter.Node) []sitter.Node {
	var items []sitter.Node
	ts.WalkSym(n, func(x *sitter.Node, sym uint16) bool {
		switch sym {
		case idAlias, idUndef:
			return false
		case idMethod, idSingleton, idClass, idModule, idSingletonCl:
			return x.StartByte() == n.StartByte() && x.EndByte() == n.EndByte()
		case idMethodParams, idBlockParams, idLambdaParams, idExceptionVar:
			b.params(x)
			return false
		case idAssignment, idOpAssignment:
			if l := ts.Field(x, "left"); l != nil {
				switch l.KindId() {
				case idIdentifier:
					b.locals[ts.Text(l, b.f.src)] = true
					b.notCall[l.Id()] = true
				case idLeftList:
					b.params(l)
				}
			}
			items = append(items, *x)
		case idFor:
			b.params(ts.Field(x, "pattern"))
		case idCall:
			if m := ts.Field(x, "method"); m != nil {
				b.notCall[m.Id()] = true
			}
			items = append(items, *x)
		case idIdentifier, idSuper:
			if !b.notCall[x.Id()] {
				items = append(items, *x)
			}
		}
		return true
	})
	return items
}

// read types the locals from the assignments of items, then reads their
// calls.
func (b *body) read(items []sitter.Node) {
	for i := range items {
		x := &items[i]
		if x.KindId() != idAssignment {
			continue
		}
		l, r := ts.Field(x, "left"), ts.Field(x, "right")
		if l == nil {
			continue
		}
		switch l.KindId() {
		case idIdentifier:
			name := ts.Text(l, b.f.src)
			v := b.chainOf(r)
			if old, seen := b.vars[name]; seen && (old == nil || v == nil || lang.EncodeChains(old) != lang.EncodeChains(v)) {
				v = nil
			}
			b.vars[name] = v
		case idInstanceVar:
			if b.class != "" {
				if v := b.chainOf(r); v != nil {
					b.f.fr.Decl.SetFact(lang.FactAttr+b.class+"."+strings.TrimPrefix(ts.Text(l, b.f.src), "@"), v)
				}
			}
		}
	}
	for i := range items {
		b.use(&items[i])
	}
}

// self is the value of self: the enclosing class's instance (singleton
// and instance methods share one name space here).
func (b *body) self() *lang.Chain {
	if b.class == "" {
		return nil
	}
	return &lang.Chain{Scope: scope, Name: b.class, Inst: true}
}

// chainOf returns the value of an expression, nil when unknown.
func (b *body) chainOf(n *sitter.Node) *lang.Chain {
	if n == nil {
		return nil
	}
	switch n.KindId() {
	case idSelf:
		return b.self()
	case idIdentifier:
		name := ts.Text(n, b.f.src)
		if b.locals[name] {
			return b.vars[name]
		}
		return b.self().Then(name)
	case idInstanceVar:
		return b.self().Then(strings.TrimPrefix(ts.Text(n, b.f.src), "@"))
	case idConstant, idScopeRes:
		if c := b.f.constName(n); c != "" {
			return &lang.Chain{Scope: nestScope(b.class), Name: c}
		}
	case idParenthesized:
		kids := ts.Children(n)
		if len(kids) == 1 {
			return b.chainOf(&kids[0])
		}
	case idCall:
		m := ts.Text(ts.Field(n, "method"), b.f.src)
		recv := ts.Field(n, "receiver")
		if recv == nil {
			if m == "new" && b.class != "" {
				return &lang.Chain{Scope: scope, Name: b.class, Inst: true}
			}
			if b.locals[m] {
				return nil
			}
			if ts.Field(n, "arguments") == nil {
				return b.self().Then(m)
			}
			return b.self().Then(m).Then(lang.CallStep)
		}
		if m == "new" {
			if c := b.f.constName(recv); c != "" {
				return &lang.Chain{Scope: nestScope(b.class), Name: c, Inst: true}
			}
			return nil
		}
		c := b.chainOf(recv).Then(m)
		if ts.Field(n, "arguments") != nil {
			c = c.Then(lang.CallStep)
		}
		return c
	}
	return nil
}

// use reads one call, bare identifier or super.
func (b *body) use(x *sitter.Node) {
	f := b.f
	switch x.KindId() {
	case idIdentifier:
		name := ts.Text(x, f.src)
		if !b.locals[name] {
			b.bare(x, name)
		}
	case idSuper:
		b.super(x)
	case idCall:
		mn := ts.Field(x, "method")
		if mn == nil {
			return
		}
		if mn.KindId() == idSuper {
			b.super(x)
			return
		}
		m := ts.Text(mn, f.src)
		recv := ts.Field(x, "receiver")
		if recv == nil {
			switch m {
			case "require":
				f.require(x, false)
			case "require_relative":
				f.require(x, true)
			case "new":
				if b.class != "" {
					b.construct(x, &lang.Chain{Scope: scope, Name: b.class}, b.class)
				}
			default:
				if !b.locals[m] {
					b.bare(x, m)
				}
			}
			return
		}
		if c := f.constName(recv); c != "" {
			ch := &lang.Chain{Scope: nestScope(b.class), Name: c}
			if m == "new" {
				b.construct(x, ch, c)
				return
			}
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Recv: ch, Name: m, Stub: c + "." + m})
			return
		}
		if r := b.chainOf(recv); r != nil {
			f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Recv: r, Name: m, Stub: "*." + m})
			return
		}
		f.fr.Refs = append(f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Stub: "*." + m})
	}
}

// construct adds Cls.new: a call of the class and of its initialize.
func (b *body) construct(x *sitter.Node, class *lang.Chain, stub string) {
	line := ts.Line(x)
	b.f.fr.Refs = append(b.f.fr.Refs,
		lang.Ref{Type: lang.RefCall, From: b.from, Line: line, Scope: class.Scope, Name: class.Name, Stub: stub},
		lang.Ref{Type: lang.RefCall, From: b.from, Line: line, Recv: class, Name: "initialize"})
}

// bare adds a call of m on self: a method of the class, of its modules
// or its superclass; at top level a function of the tree.
func (b *body) bare(x *sitter.Node, m string) {
	line := ts.Line(x)
	if b.class == "" {
		b.f.fr.Refs = append(b.f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: line, Scope: scope, Name: m})
		return
	}
	stub := "*." + m
	if kernel[m] {
		stub = ""
	}
	b.f.fr.Refs = append(b.f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: line, Recv: b.self(), Name: m, Stub: stub})
}

// super adds a call of the enclosing method on the bases.
func (b *body) super(x *sitter.Node) {
	if b.class == "" || b.method == "" {
		return
	}
	b.f.fr.Refs = append(b.f.fr.Refs, lang.Ref{Type: lang.RefCall, From: b.from, Line: ts.Line(x), Recv: &lang.Chain{Scope: scope, Name: b.class, Inst: true, Super: true}, Name: b.method})
}
