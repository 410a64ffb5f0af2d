package extract

import (
	"fmt"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Tree-sitter grammars, loaded once.
var (
	langPython     = sitter.NewLanguage(tspy.Language())
	langJavaScript = sitter.NewLanguage(tsjs.Language())
	langTypeScript = sitter.NewLanguage(tsts.LanguageTypescript())
	langTSX        = sitter.NewLanguage(tsts.LanguageTSX())
)

// parserPools keep one pool of parsers per grammar: a tree-sitter parser
// is not safe for concurrent use, and creating one per file is wasteful.
var parserPools sync.Map // *sitter.Language → *sync.Pool

// parseTree parses src with lang. The caller closes the tree.
func parseTree(lang *sitter.Language, src []byte) (*sitter.Tree, error) {
	pv, _ := parserPools.LoadOrStore(lang, &sync.Pool{New: func() any {
		p := sitter.NewParser()
		if err := p.SetLanguage(lang); err != nil {
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
	tree := p.Parse(src, nil)
	if tree == nil {
		p.Reset()
		return nil, fmt.Errorf("tree-sitter: parse returned no tree")
	}
	return tree, nil
}

// tsText returns the source text of n as valid UTF-8.
func tsText(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	s, e := n.StartByte(), n.EndByte()
	if e > uint(len(src)) || s > e {
		return ""
	}
	return cleanString(string(src[s:e]))
}

// tsLine returns the 1-based start line of n.
func tsLine(n *sitter.Node) int { return int(n.StartPosition().Row) + 1 }

// tsEndLine returns the 1-based end line of n.
func tsEndLine(n *sitter.Node) int { return int(n.EndPosition().Row) + 1 }

// tsChildren returns n's named children.
func tsChildren(n *sitter.Node) []sitter.Node {
	if n == nil {
		return nil
	}
	c := n.Walk()
	defer c.Close()
	return n.NamedChildren(c)
}

// tsSyntaxErrors records where tree-sitter found errors (ERROR or MISSING
// nodes), up to maxParseErrors; the rest of the tree is still extracted.
func tsSyntaxErrors(fr *fileResult, root *sitter.Node) {
	if !root.HasError() {
		return
	}
	var rec func(n *sitter.Node)
	rec = func(n *sitter.Node) {
		if len(fr.ParseErrors) >= maxParseErrors {
			return
		}
		if n.IsError() || n.IsMissing() {
			fr.parseError(fmt.Sprintf("%s:%d:%d: syntax error (%s)", fr.Path, tsLine(n), n.StartPosition().Column+1, n.Kind()))
			return
		}
		if !n.HasError() {
			return
		}
		for _, c := range tsChildren(n) {
			rec(&c)
		}
	}
	rec(root)
	if len(fr.ParseErrors) == 0 {
		fr.parseError(fr.Path + ": syntax error")
	}
}

// tsWalkSkip visits n and its descendants in document order with one
// cursor (far cheaper through cgo than recursing over child lists); a
// visit that returns false skips the node's descendants.
func tsWalkSkip(n *sitter.Node, visit func(*sitter.Node) bool) {
	if n == nil {
		return
	}
	cur := n.Walk()
	defer cur.Close()
	depth := 0
	for {
		if visit(cur.Node()) && cur.GotoFirstChild() {
			depth++
			continue
		}
		for {
			if depth == 0 {
				return
			}
			if cur.GotoNextSibling() {
				break
			}
			cur.GotoParent()
			depth--
		}
	}
}
