package scala

import (
	"sync"

	"github.com/cos-dev/cos/extract/internal/ts"
	"github.com/cos-dev/cos/extract/lang"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// readChunk is how many bytes the parser's input callback hands over at
// a time. The binding copies each chunk into C memory, and the Scala
// grammar's lexer re-reads from earlier offsets often: handing over the
// whole rest of the file each time (sitter.Parser.Parse) copied O(n²)
// bytes and took a third of the extraction time; 256-byte chunks took 6%
// (1,024: 14%, 16,384: 31%) on a 26,000-line project.
const readChunk = 256

// parsers keeps Scala parsers for reuse (one is not safe for concurrent
// use).
var parsers = sync.Pool{New: func() any {
	p := sitter.NewParser()
	if err := p.SetLanguage(language); err != nil {
		p.Close()
		return err
	}
	return p
}}

// parse parses src as ts.ParseFile does (a parser failure is fr's parse
// error and nil; otherwise the syntax errors are recorded), reading the
// input in chunks of readChunk bytes. The caller closes the tree.
func parse(fr *lang.Result, src []byte) *sitter.Tree {
	p, ok := parsers.Get().(*sitter.Parser)
	if !ok {
		return ts.ParseFile(fr, language, src) // records the grammar's load failure
	}
	defer parsers.Put(p)
	n := len(src)
	tree := p.ParseWithOptions(func(i int, _ sitter.Point) []byte {
		if i >= n {
			return nil
		}
		return src[i:min(i+readChunk, n)]
	}, nil, nil)
	if tree == nil {
		p.Reset()
		fr.ParseError("tree-sitter: parse returned no tree")
		return nil
	}
	ts.SyntaxErrors(fr, tree.RootNode())
	return tree
}
