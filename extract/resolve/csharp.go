package resolve

import (
	"path"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// C# namespaces are scopes "cs:<namespace>" (package csharp). A type name
// read in a file is named with the list of namespaces it may live in,
// "csns:<ns>|<parent>|…||<using>|…", in C#'s lookup order.

// Scope prefixes of C# declarations and namespace lists.
const (
	csharpScope     = "cs:"
	csharpListScope = "csns:"
)

// csharpNested resolves a name read through a C# namespace list: the first
// namespace of the list declaring its first segment (or, for a type of a
// nested namespace declared by a file of a parent namespace, the parent
// with the remainder: "Inner.T" in "cs:A" for A.Inner.T), else a
// namespace-qualified name (A.B.T: T in "cs:A.B", also relative to each
// namespace of the list); the first namespace with the name unchanged when
// none declares it.
func (t *Table) csharpNested(list, name string) (string, string) {
	nss := strings.Split(list, "|")
	head, _, dotted := strings.Cut(name, ".")
	has := func(ns, n string) bool {
		names, _ := t.names(csharpScope + ns)
		return len(names[n]) > 0
	}
	for _, ns := range nss {
		if has(ns, head) {
			return csharpScope + ns, name
		}
		for i := len(ns) - 1; i > 0; i-- {
			if ns[i] == '.' && len(t.byScope[csharpScope+ns[:i]]) > 0 && has(ns[:i], ns[i+1:]+"."+head) {
				return csharpScope + ns[:i], ns[i+1:] + "." + name
			}
		}
		if ns != "" && !strings.Contains(ns, ".") && len(t.byScope[csharpScope]) > 0 && has("", ns+"."+head) {
			return csharpScope, ns + "." + name
		}
	}
	if dotted {
		segs := strings.Split(name, ".")
		for _, base := range nss {
			for i := 1; i < len(segs); i++ {
				ns := segs[0]
				if i > 1 {
					ns = strings.Join(segs[:i], ".")
				}
				if base != "" {
					ns = base + "." + ns
				}
				if len(t.byScope[csharpScope+ns]) > 0 && has(ns, segs[i]) {
					return csharpScope + ns, strings.Join(segs[i:], ".")
				}
			}
		}
	}
	return csharpScope + nss[0], name
}

// resolveCSharpUsing turns a C# using directive (r.Scope "cs:<namespace>")
// into an imports edge to the in-tree file declaring the namespace, or to
// the folder holding all of them when several do; a namespace no other
// file declares gives no edge.
func resolveCSharpUsing(fr *lang.Result, t *Table, r lang.Ref, add func(graph.Edge)) {
	t.touch(r.Scope)
	var dir string
	var only string
	n := 0
	for _, p := range t.byScope[r.Scope] {
		if p == fr.Path {
			continue
		}
		n++
		only = p
		d := path.Dir(p)
		if n == 1 {
			dir = d
			continue
		}
		for dir != "." && dir != d && !strings.HasPrefix(d, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	switch n {
	case 0:
		return
	case 1:
		add(graph.Edge{Source: r.From, Target: lang.FileUID(only), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
	default:
		add(graph.Edge{Source: r.From, Target: lang.ClampUID("folder:" + lang.UIDPart(dir)), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
	}
}
