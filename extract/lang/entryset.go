package lang

import (
	"strings"

	"github.com/cos-dev/cos/graph"
)

// EntrySet emits the entry points of one file (graph.KindEntrypoint nodes
// named by graph.EntryUID, contained by the file) once per uid: a second
// registration of the same name in the file (one route declared by two
// test apps) adds its handlers to the first one's node.
type EntrySet struct {
	fr      *Result
	fileUID string
	seen    map[string]bool
	edges   map[[2]string]bool
}

// NewEntrySet returns the entry points of fr, whose file node is fileUID.
func NewEntrySet(fr *Result, fileUID string) *EntrySet {
	return &EntrySet{fr: fr, fileUID: fileUID, seen: map[string]bool{}, edges: map[[2]string]bool{}}
}

// Add emits the entry point of kind (a graph.Entry* constant) named name,
// registered at line by framework, with the metadata meta (entry_kind and
// framework are set here), and returns its uid.
func (s *EntrySet) Add(kind, name, framework string, line int, meta map[string]any) string {
	uid := graph.EntryUID(kind, s.fr.Path, name)
	if s.seen[uid] {
		return uid
	}
	s.seen[uid] = true
	if meta == nil {
		meta = map[string]any{}
	}
	meta["entry_kind"] = kind
	meta["framework"] = framework
	for k, v := range meta {
		if str, ok := v.(string); ok {
			meta[k] = CleanString(str)
		}
	}
	s.fr.AddNode(graph.Node{UID: uid, Kind: graph.KindEntrypoint, Label: CleanString(graph.EntryLabel(kind, name)), Line: line, Metadata: meta})
	s.fr.AddEdge(s.fileUID, uid, graph.EdgeContains, line)
	return uid
}

// HandledBy adds the handled_by edge from the entry point entry to the
// declaration uid, once.
func (s *EntrySet) HandledBy(entry, uid string, line int) {
	k := [2]string{entry, uid}
	if uid == "" || s.edges[k] {
		return
	}
	s.edges[k] = true
	s.fr.AddEdge(entry, uid, graph.EdgeHandledBy, line)
}

// Anonymous marks entry as handled by a function without a name (an
// inline arrow or lambda): its handled_by edge goes to the function or
// method declared around line, or to the file at module level, the node
// the extractors give that code's calls to.
func (s *EntrySet) Anonymous(entry string, line int) {
	for i := range s.fr.Nodes {
		if s.fr.Nodes[i].UID == entry {
			s.fr.Nodes[i].Metadata["anonymous"] = true
		}
	}
	s.HandledBy(entry, s.Enclosing(line), line)
}

// Enclosing is the uid of the innermost function or method whose lines
// hold line, the file's uid when none does.
func (s *EntrySet) Enclosing(line int) string {
	best, span := s.fileUID, -1
	for _, n := range s.fr.Nodes {
		if (n.Kind != graph.KindFunction && n.Kind != graph.KindMethod) || n.Line > line || n.EndLine < line {
			continue
		}
		if d := n.EndLine - n.Line; span < 0 || d < span {
			best, span = n.UID, d
		}
	}
	return best
}

// JoinRoute joins a route prefix and a route with one slash between them
// and a leading slash ("/api" + "users/:id" is "/api/users/:id"; a route
// of "" or "/" under a prefix is the prefix).
func JoinRoute(prefix, route string) string {
	prefix = strings.TrimRight(prefix, "/")
	if route == "" || route == "/" {
		if prefix == "" {
			return "/"
		}
		return ensureSlash(prefix)
	}
	return ensureSlash(prefix + "/" + strings.TrimLeft(route, "/"))
}

func ensureSlash(s string) string {
	if strings.HasPrefix(s, "/") {
		return s
	}
	return "/" + s
}

// HandlerStub is the stub a handled_by reference keeps when its target
// is not found: an imported name outside the repository ("pkg.f") is one,
// a bare name or a member of an unknown receiver ("f", "*.m") says
// nothing and is dropped ("").
func HandlerStub(stub string) string {
	if strings.HasPrefix(stub, "*.") || !strings.Contains(stub, ".") {
		return ""
	}
	return stub
}
