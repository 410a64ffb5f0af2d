package resolve

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// kotlinScope prefixes the scope of a Kotlin package ("kt:<package>").
// Kotlin does not tie a package to a folder nor a class to a file, so an
// import is resolved here, by the declarations table, not by the
// extractor.
const kotlinScope = "kt:"

// kotlinImportStar is the Name of the reference of import p.*.
const kotlinImportStar = "*"

// resolveKotlinImport turns a Kotlin import into imports edges: to the
// in-tree file declaring the imported class, object, function or
// property (an extension function through its bare name), or, for
// import p.*, to each folder holding a file of package p. An import of
// something outside the tree gives no edge.
func resolveKotlinImport(fr *lang.Result, t *Table, r lang.Ref, add func(graph.Edge)) {
	edge := func(target string) {
		add(graph.Edge{Source: r.From, Target: target, Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
	}
	if r.Name == kotlinImportStar {
		t.names(r.Scope) // records the dependency
		seen := map[string]bool{}
		for _, p := range t.byScope[r.Scope] {
			d := path.Dir(p)
			if p == fr.Path || seen[d] || d == path.Dir(fr.Path) {
				continue
			}
			seen[d] = true
			edge(lang.ClampUID("folder:" + lang.UIDPart(d)))
		}
		return
	}
	names, alias := t.names(r.Scope)
	if _, ext := alias[r.Name]; ext && len(names[r.Name]) == 0 {
		// The bare name of extension functions: every file declaring
		// one of that name (T.name, U.name, …).
		suffix := "." + r.Name
		seen := map[string]bool{fr.Path: true}
		for n, cands := range names {
			if !strings.HasSuffix(n, suffix) {
				continue
			}
			for _, c := range cands {
				if c.Kind == graph.KindFunction && !seen[c.Path] {
					seen[c.Path] = true
					edge(lang.FileUID(c.Path))
				}
			}
		}
		return
	}
	c, ok := t.lookup(r.Scope, r.Name, fr.Path)
	if !ok {
		// import a.b.Outer.Inner of a file declaring only Outer's node
		// name, or a member of an object: the file of the top name.
		head, _, dotted := strings.Cut(r.Name, ".")
		if !dotted {
			return
		}
		if c, ok = t.lookup(r.Scope, head, fr.Path); !ok {
			return
		}
	}
	if c.Path != fr.Path {
		edge(lang.FileUID(c.Path))
	}
}
