package resolve

import (
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// scalaScope prefixes the scope of a Scala package ("scala:a.b").
const scalaScope = "scala:"

// resolveScalaImport turns a Scala import (r.Name, a class, object or
// top-level def of the package r.Scope) into an imports edge to the file
// declaring it; a name no in-tree file declares is dropped.
func resolveScalaImport(fr *lang.Result, t *Table, r lang.Ref, add func(graph.Edge)) {
	c, ok := t.lookup(r.Scope, r.Name, fr.Path)
	if !ok || c.Path == fr.Path {
		return
	}
	add(graph.Edge{Source: r.From, Target: lang.FileUID(c.Path), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
}

// isScalaImport reports whether r is a Scala import reference.
func isScalaImport(r lang.Ref) bool {
	return r.Recv == nil && strings.HasPrefix(r.Scope, scalaScope)
}

// scalaSearchScope prefixes the scope of a Scala name that the file
// neither declares nor imports by name: "scalasearch:<own>|<p1>|<p2>…",
// its own package, then the packages visible through chained package
// clauses and wildcard imports, in the order Scala looks.
const scalaSearchScope = lang.ScalaSearchScope

// scalaSearch picks the first package of a "scalasearch:" scope that
// declares the name's first segment, else the file's own package.
func (t *Table) scalaSearch(list, name string) (string, string) {
	head := name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		head = name[:i]
	}
	pkgs := strings.Split(list, "|")
	for _, p := range pkgs {
		if names, _ := t.names(scalaScope + p); len(names[head]) > 0 {
			return scalaScope + p, name
		}
	}
	return scalaScope + pkgs[0], name
}
