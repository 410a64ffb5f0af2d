package ts

import (
	"fmt"
	"sync"

	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// parserPools keep one pool of parsers per grammar: a tree-sitter parser
// is not safe for concurrent use, and creating one per file is wasteful.
var parserPools sync.Map // *sitter.Language → *sync.Pool

// Parse parses src with lang. The caller closes the tree.
func Parse(grammar *sitter.Language, src []byte) (*sitter.Tree, error) {
	pv, _ := parserPools.LoadOrStore(grammar, &sync.Pool{New: func() any {
		p := sitter.NewParser()
		if err := p.SetLanguage(grammar); err != nil {
			p.Close()
			return err
		}
		return p
	}})
	pool := pv.(*sync.Pool)
	got := pool.Get()
	p, ok := got.(*sitter.Parser)
	if !ok {
		return nil, fmt.Errorf("tree-sitter: %v", got)
	}
	defer pool.Put(p)
	tree := parseString(p, src)
	if tree == nil {
		p.Reset()
		return nil, fmt.Errorf("tree-sitter: parse returned no tree")
	}
	return tree, nil
}

// Text returns the source text of n as valid UTF-8.
func Text(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	s, e := startByte(n), endByte(n)
	if e > uint(len(src)) || s > e {
		return ""
	}
	return lang.CleanString(string(src[s:e]))
}

// Line returns the 1-based start line of n.
func Line(n *sitter.Node) int { return int(startRow(n)) + 1 }

// EndLine returns the 1-based end line of n.
func EndLine(n *sitter.Node) int { return int(n.EndPosition().Row) + 1 }

// Children returns n's named children, read by one call into the core
// (a cursor step per child through cgo cost more than the extraction).
func Children(n *sitter.Node) []sitter.Node {
	if n == nil {
		return nil
	}
	return namedChildren(n)
}

// ParseFile parses src with grammar for the file fr extracts: a parser
// failure is recorded as fr's parse error and nil returned; otherwise the
// tree's syntax errors are recorded (SyntaxErrors) and the tree returned,
// which the caller closes.
func ParseFile(fr *lang.Result, grammar *sitter.Language, src []byte) *sitter.Tree {
	tree, err := Parse(grammar, src)
	if err != nil {
		fr.ParseError(err.Error())
		return nil
	}
	SyntaxErrors(fr, tree.RootNode())
	return tree
}

// SyntaxErrors records where tree-sitter found errors (ERROR or MISSING
// nodes), up to maxParseErrors; the rest of the tree is still extracted.
func SyntaxErrors(fr *lang.Result, root *sitter.Node) {
	if !root.HasError() {
		return
	}
	var rec func(n *sitter.Node)
	rec = func(n *sitter.Node) {
		if len(fr.ParseErrors) >= lang.MaxParseErrors {
			return
		}
		if n.IsError() || n.IsMissing() {
			fr.ParseError(fmt.Sprintf("%s:%d:%d: syntax error (%s)", fr.Path, Line(n), n.StartPosition().Column+1, n.Kind()))
			return
		}
		if !n.HasError() {
			return
		}
		for _, c := range Children(n) {
			rec(&c)
		}
	}
	rec(root)
	if len(fr.ParseErrors) == 0 {
		fr.ParseError(fr.Path + ": syntax error")
	}
}

// WalkSkip visits n and its descendants in document order; a visit that
// returns false skips the node's descendants. The subtree is read by one
// call into the core (a cursor step per node through cgo cost as much as
// the parse), so each visited *sitter.Node stays valid after the visit.
func WalkSkip(n *sitter.Node, visit func(*sitter.Node) bool) {
	if n == nil {
		return
	}
	walkPreorder(n, false, func(x *sitter.Node, _ uint16, _ string) bool { return visit(x) })
}

// WalkSym is WalkSkip with each node's KindId, read with the subtree (no
// call into the core per node).
func WalkSym(n *sitter.Node, visit func(x *sitter.Node, sym uint16) bool) {
	if n == nil {
		return
	}
	walkPreorder(n, false, func(x *sitter.Node, sym uint16, _ string) bool { return visit(x, sym) })
}

// WalkKind is WalkSkip with each node's Kind, read with the subtree (no
// call into the core per node).
func WalkKind(n *sitter.Node, visit func(x *sitter.Node, kind string) bool) {
	if n == nil {
		return
	}
	walkPreorder(n, true, func(x *sitter.Node, _ uint16, kind string) bool { return visit(x, kind) })
}
