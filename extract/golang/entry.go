package golang

import (
	"go/ast"
	"go/token"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// FrameworkGo is the metadata framework of the entry points the language
// itself defines: func main of package main and func init.
const FrameworkGo = "go"

// EntryLabel is the label of an entry point of kind named name: the kind
// and the name ("http GET /users", "mcp_tool add"), "func main" and "func
// init", so that the name of a handler (a tool's function is often named
// as the tool) resolves to the function alone.
func EntryLabel(kind, name string) string {
	if kind == graph.EntryMain || kind == graph.EntryInit {
		return "func " + name
	}
	return graph.EntryLabel(kind, name)
}

// MainEntry returns the entry point a function declaration of the file at
// p (package pkgName) is, with its handled_by edge to the function and the
// file's contains edge: func main of package main (kind main) and func init
// (kind init), outside _test.go files; ok false for any other declaration.
// Both passes call it, so a file the type checker could not load still has
// its main and init, and nothing else is guessed from the syntax alone.
func MainEntry(p, pkgName string, d *ast.FuncDecl, line func(token.Pos) int) (n graph.Node, edges []graph.Edge, ok bool) {
	if d.Recv != nil || d.Body == nil || strings.HasSuffix(p, "_test.go") {
		return graph.Node{}, nil, false
	}
	name := d.Name.Name
	var kind string
	switch {
	case name == "init":
		kind = graph.EntryInit
	case name == "main" && pkgName == "main" && d.Type.TypeParams == nil:
		kind = graph.EntryMain
	default:
		return graph.Node{}, nil, false
	}
	uid := graph.EntryUID(kind, p, name)
	l := line(d.Pos())
	n = graph.Node{UID: uid, Kind: graph.KindEntrypoint, Label: EntryLabel(kind, name), Path: p, Line: l, Extractor: lang.ExtractorGo,
		Metadata: map[string]any{"entry_kind": kind, "framework": FrameworkGo}}
	edges = []graph.Edge{
		{Source: lang.FileUID(p), Target: uid, Type: graph.EdgeContains, Extractor: lang.ExtractorGo, Line: l},
		{Source: uid, Target: lang.CodeUID("function", p, name), Type: graph.EdgeHandledBy, Extractor: lang.ExtractorGo, Line: l},
	}
	return n, edges, true
}
