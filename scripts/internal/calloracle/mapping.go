package calloracle

import "strings"

// How a declaration was mapped (doc.go, "Mapping a declaration").
const (
	ByPlace = "place"
	ByName  = "name"
	NoNode  = "no cos node"
)

// Mapper maps oracle declarations to cos uids over one graph.
type Mapper struct {
	g    *Graph
	uids map[string]Node
}

// NewMapper indexes g's nodes.
func NewMapper(g *Graph) *Mapper {
	m := &Mapper{g: g, uids: map[string]Node{}}
	for _, ns := range g.Nodes {
		for _, n := range ns {
			m.uids[n.UID] = n
		}
	}
	return m
}

// Callee maps a declaration in the sources to a uid and says how.
func (m *Mapper) Callee(d Decl) (uid, how string) {
	places := append([]Place{{File: d.File, Line: d.Line, EndLine: d.EndLine}}, d.Decls...)
	for _, p := range places {
		if n, ok := m.atPlace(d, p); ok {
			return n.UID, ByPlace
		}
	}
	for _, p := range places {
		if u := expectedUID(d, p.File); m.uids[u].UID != "" {
			return u, ByName
		}
	}
	return expectedUID(d, d.File), NoNode
}

// Caller maps the caller of a site: the innermost cos node holding the
// site's line, else the oracle's caller declaration.
func (m *Mapper) Caller(c Call) string {
	var best *Node
	for i, n := range m.g.Nodes[c.Site.File] {
		if n.Line <= c.Site.Line && c.Site.Line <= n.EndLine && (best == nil || n.EndLine-n.Line < best.EndLine-best.Line) {
			best = &m.g.Nodes[c.Site.File][i]
		}
	}
	if best != nil {
		return best.UID
	}
	if c.Caller.Kind == DeclFile || c.Caller.Name == "" {
		return "code:file:" + c.Site.File
	}
	uid, _ := m.Callee(c.Caller)
	return uid
}

// atPlace finds the node of p.File overlapping p named as d.
func (m *Mapper) atPlace(d Decl, p Place) (Node, bool) {
	end := max(p.EndLine, p.Line)
	var best Node
	found := false
	for _, n := range m.g.Nodes[p.File] {
		if n.Line > end || max(n.EndLine, n.Line) < p.Line || !nameMatches(d, n) {
			continue
		}
		if !found || better(n, best, p.Line) {
			best, found = n, true
		}
	}
	return best, found
}

// better prefers a method to a class (a constructor's own node), then the
// node starting nearest line, then the smallest.
func better(a, b Node, line int) bool {
	am, bm := a.Kind != DeclClass, b.Kind != DeclClass
	if am != bm {
		return am
	}
	da, db := abs(a.Line-line), abs(b.Line-line)
	if da != db {
		return da < db
	}
	return a.EndLine-a.Line < b.EndLine-b.Line
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// nameMatches reports whether node n can stand for declaration d.
func nameMatches(d Decl, n Node) bool {
	last := lastSegment(n.Label)
	isClass := strings.HasPrefix(n.UID, "code:class:")
	switch d.Kind {
	case DeclClass:
		return isClass && last == d.Name
	case DeclConstructor:
		if isClass {
			return last == d.Name
		}
		return last == d.Name || last == "constructor" || last == "<init>" || last == "__init__"
	default:
		return !isClass && last == d.Name
	}
}

// expectedUID is the uid cos gives d when declared in file.
func expectedUID(d Decl, file string) string {
	switch {
	case d.Kind == DeclClass || d.Kind == DeclConstructor:
		cls := d.Class
		if cls == "" {
			cls = d.Name
		}
		return "code:class:" + file + "::" + cls
	case d.Class != "":
		return "code:function:" + file + "::" + d.Class + "." + d.Name
	default:
		return "code:function:" + file + "::" + d.Name
	}
}

func lastSegment(label string) string {
	if i := strings.LastIndex(label, "."); i >= 0 {
		return label[i+1:]
	}
	return label
}
