package csharp

import (
	"sort"

	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Code is read in one pass of a tree-sitter query over the file, not by
// visiting every node from Go: a visit costs several cgo calls per node,
// the query runs in C and stops only at the nodes that matter. The
// declaration pass records the spans of code (a method body, a field's
// initialiser, an accessor list) with the context they are read in; the
// query's matches, in document order, are handled in the span holding
// them, inside the innermost lambda or local function.

// Pattern indexes of codeQuery, in its order.
const (
	pVariableDeclaration = iota
	pForeach
	pCatch
	pDeclarationExpression
	pDeclarationPattern
	pRecursivePattern
	pLambda
	pAnonymousMethod
	pLocalFunction
	pInvocation
	pObjectCreation
)

const codeQuerySource = `
(variable_declaration) @n
(foreach_statement) @n
(catch_declaration) @n
(declaration_expression) @n
(declaration_pattern) @n
(recursive_pattern) @n
(lambda_expression) @n
(anonymous_method_expression) @n
(local_function_statement) @n
(invocation_expression) @n
(object_creation_expression) @n
`

// codeQuery is compiled once; a query is immutable and shared by the
// goroutines extracting files (each with its own cursor).
var codeQuery = func() *sitter.Query {
	q, err := sitter.NewQuery(language, codeQuerySource)
	if err != nil {
		panic("csharp: code query: " + err.Error())
	}
	return q
}()

// span is code read in one context: the bytes [start, end) of the file.
type span struct {
	start, end uint
	cx         *ctx
}

// code records the node n as code read in cx.
func (f *file) code(n *sitter.Node, cx *ctx) {
	if n == nil {
		return
	}
	f.spans = append(f.spans, span{start: n.StartByte(), end: n.EndByte(), cx: cx})
}

// scope is a lambda or local function open at a point of the pass.
type scope struct {
	end uint
	cx  *ctx
}

// readCode runs the code query over root and handles each match in the
// span and scope holding it, then drops the calls of local functions.
func (f *file) readCode(root *sitter.Node) {
	if len(f.spans) == 0 {
		return
	}
	sort.SliceStable(f.spans, func(i, j int) bool { return f.spans[i].start < f.spans[j].start })
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.SetByteRange(f.spans[0].start, f.spans[len(f.spans)-1].end)
	ms := qc.Matches(codeQuery, root, f.src)
	si := 0
	var open []scope
	var members []*member
	var cur *member
	for m := ms.Next(); m != nil; m = ms.Next() {
		if len(m.Captures) == 0 {
			continue
		}
		n := m.Captures[0].Node
		s := n.StartByte()
		for si < len(f.spans) && f.spans[si].end <= s {
			si++
			open = open[:0]
		}
		if si == len(f.spans) {
			break
		}
		if s < f.spans[si].start {
			continue // outside code: an attribute's arguments, a base list
		}
		for len(open) > 0 && open[len(open)-1].end <= s {
			open = open[:len(open)-1]
		}
		cx := f.spans[si].cx
		if len(open) > 0 {
			cx = open[len(open)-1].cx
		}
		if cx.member != cur {
			cur = cx.member
			members = append(members, cur)
		}
		f.handle(&n, m.PatternIndex, cx, &open)
	}
	f.dropLocalCalls(members)
}

// handle reads one node the code query matched (pattern p) in cx; a
// lambda or local function opens a scope.
func (f *file) handle(n *sitter.Node, p uint, cx *ctx, open *[]scope) {
	switch p {
	case pVariableDeclaration:
		f.declaration(n, cx)
	case pForeach:
		var t *lang.Chain
		if tn := n.ChildByFieldName("type"); tn != nil && tn.Kind() != "implicit_type" {
			t = f.typeChain(tn, cx)
		}
		if l := n.ChildByFieldName("left"); l != nil && l.Kind() == "identifier" {
			f.local(l, t, cx)
		}
	case pCatch, pDeclarationExpression, pDeclarationPattern:
		var t *lang.Chain
		if tn := n.ChildByFieldName("type"); tn != nil && tn.Kind() != "implicit_type" {
			t = f.typeChain(tn, cx)
		}
		f.local(n.ChildByFieldName("name"), t, cx)
	case pRecursivePattern:
		f.local(n.ChildByFieldName("name"), f.typeChain(n.ChildByFieldName("type"), cx), cx)
	case pLambda, pAnonymousMethod:
		lc := cx.with(cloneLocals(cx.locals))
		if ps := n.ChildByFieldName("parameters"); ps != nil {
			if ps.Kind() == "implicit_parameter" {
				lc.locals[string(f.src[ps.StartByte():ps.EndByte()])] = nil
			} else {
				f.params(ps, lc)
			}
		}
		*open = append(*open, scope{end: n.EndByte(), cx: lc})
	case pLocalFunction:
		if cx.member != nil {
			if cx.member.localFn == nil {
				cx.member.localFn = map[string]bool{}
			}
			cx.member.localFn[f.text(n.ChildByFieldName("name"))] = true
		}
		lc := cx.with(cloneLocals(cx.locals))
		lc.tparams = typeParams(n.ChildByFieldName("type_parameters"), f.src, cloneSet(cx.tparams))
		f.params(n.ChildByFieldName("parameters"), lc)
		*open = append(*open, scope{end: n.EndByte(), cx: lc})
	case pInvocation:
		f.call(n, cx)
	case pObjectCreation:
		f.classRef(cx, int(n.StartPosition().Row)+1, f.typeChain(n.ChildByFieldName("type"), cx))
	}
}

// declaration types the variables of a variable declaration (var from
// its initialiser); T x = new() calls T.
func (f *file) declaration(n *sitter.Node, cx *ctx) {
	tn := n.ChildByFieldName("type")
	isVar := tn == nil || tn.Kind() == "implicit_type"
	var t *lang.Chain
	if !isVar {
		t = f.typeChain(tn, cx)
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		d := n.NamedChild(i)
		if d.Kind() != "variable_declarator" {
			continue
		}
		v := initialiser(d)
		dt := t
		if v != nil {
			if t != nil && v.Kind() == "implicit_object_creation_expression" {
				f.classRef(cx, int(v.StartPosition().Row)+1, t) // T x = new(…)
			}
			if isVar {
				dt = f.exprChain(v, cx)
			}
		}
		f.local(d.ChildByFieldName("name"), dt, cx)
	}
}

// dropLocalCalls removes the unqualified calls that name a local
// function of the member they were made in.
func (f *file) dropLocalCalls(members []*member) {
	skip := map[int]bool{}
	for _, m := range members {
		if m == nil || len(m.localFn) == 0 {
			continue
		}
		for _, i := range m.unq {
			if m.localFn[f.fr.Refs[i].Name] {
				skip[i] = true
			}
		}
	}
	if len(skip) == 0 {
		return
	}
	kept := f.fr.Refs[:0]
	for i, r := range f.fr.Refs {
		if !skip[i] {
			kept = append(kept, r)
		}
	}
	f.fr.Refs = kept
}
