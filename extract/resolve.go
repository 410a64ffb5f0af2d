package extract

import (
	"path"
	"runtime"
	"sort"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// candidate is one declaration of a name in a scope.
type candidate struct {
	Path string
	Kind string
}

// table is the declarations table of the whole repository: scope → name →
// the files declaring it. It is built from the fresh declarations of the
// files parsed in this run and the cached declarations of the others; a
// scope's names are expanded on its first lookup, so a run that resolves a
// few files touches a few scopes.
type table struct {
	modules *goModules
	byScope map[string][]string // scope → paths declaring in it, sorted
	fresh   map[string]*decl
	cached  map[string]declRecord
	// scopes and alias are filled lazily by names().
	scopes  map[string]map[string][]candidate
	alias   map[string]map[string]string
	results map[string]map[string]string
	factsOf map[string]map[string]string
	// touched, when set, collects every scope looked into (the Deps of
	// the file being resolved).
	touched map[string]bool
	// memos and cut memoise the inference's lookups (infermemo.go).
	memos map[string]*memoEntry
	cut   bool
}

func newTable(fresh map[string]*decl, cached map[string]declRecord, mods *goModules) *table {
	t := &table{modules: mods, byScope: map[string][]string{}, fresh: fresh, cached: cached,
		scopes: map[string]map[string][]candidate{}, alias: map[string]map[string]string{}, results: map[string]map[string]string{},
		factsOf: map[string]map[string]string{}}
	for p, d := range fresh {
		if d != nil && d.Scope != "" {
			t.byScope[d.Scope] = append(t.byScope[d.Scope], p)
		}
	}
	for p, r := range cached {
		if r.Scope != "" {
			t.byScope[r.Scope] = append(t.byScope[r.Scope], p)
		}
	}
	for _, ps := range t.byScope {
		sort.Strings(ps)
	}
	return t
}

// names returns the declarations of scope, expanding them on first use.
func (t *table) names(scope string) (map[string][]candidate, map[string]string) {
	if t.touched != nil {
		t.touched[scope] = true
	}
	if n, ok := t.scopes[scope]; ok {
		return n, t.alias[scope]
	}
	names := map[string][]candidate{}
	var alias, results, facts map[string]string
	for _, p := range t.byScope[scope] {
		d := t.fresh[p]
		if d == nil {
			d = t.cached[p].decl()
		}
		for n, k := range d.Names {
			names[n] = append(names[n], candidate{Path: p, Kind: k})
		}
		for k, v := range d.Alias {
			if alias == nil {
				alias = map[string]string{}
			}
			alias[k] = v
		}
		for k, v := range d.Results {
			if results == nil {
				results = map[string]string{}
			}
			if _, dup := results[k]; !dup {
				results[k] = v
			}
		}
		for k, v := range d.Facts {
			if facts == nil {
				facts = map[string]string{}
			}
			if _, dup := facts[k]; !dup {
				facts[k] = v
			}
		}
	}
	t.scopes[scope], t.alias[scope], t.results[scope], t.factsOf[scope] = names, alias, results, facts
	return names, alias
}

// normScope maps a "goimport:<import path>" scope to the "go:<dir>" scope of
// the repository package with that import path; other scopes are returned
// unchanged. ok is false for an import path outside the repository.
func (t *table) normScope(scope string) (string, bool) {
	ip, isImport := strings.CutPrefix(scope, "goimport:")
	if !isImport {
		return scope, true
	}
	dir, ok := t.modules.dirOf(ip)
	if !ok {
		return "", false
	}
	s := "go:" + dir
	if _, known := t.byScope[s]; !known {
		return "", false
	}
	return s, true
}

// lookup finds name in scope, preferring a declaration in the file fromPath,
// then one whose file name suits this platform (no foreign _GOOS/_GOARCH
// suffix), then the first by path.
func (t *table) lookup(scope, name, fromPath string) (candidate, bool) {
	s, ok := t.normScope(scope)
	if !ok {
		return candidate{}, false
	}
	names, alias := t.names(s)
	if a, ok := alias[name]; ok {
		name = a
	}
	cands := names[name]
	switch len(cands) {
	case 0:
		return candidate{}, false
	case 1:
		return withName(cands[0], name), true
	}
	best, bestScore := cands[0], -1
	for _, c := range cands {
		score := 0
		if c.Path == fromPath {
			score = 3
		} else if platformFile(c.Path) {
			score = 1
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return withName(best, name), true
}

// resultOf returns the type the function name of scope returns, if known.
func (t *table) resultOf(scope, name string) (string, bool) {
	s, ok := t.normScope(scope)
	if !ok {
		return "", false
	}
	t.names(s)
	r, ok := t.results[s][name]
	return r, ok
}

// withName carries the declared name in Kind's place for uid building.
func withName(c candidate, name string) candidate {
	return candidate{Path: c.Path, Kind: c.Kind + "\x00" + name}
}

// uidOf returns the uid of a looked-up candidate.
func uidOf(c candidate) (uid, kind string) {
	kind, name, _ := strings.Cut(c.Kind, "\x00")
	if level, ok := strings.CutPrefix(kind, headingKindPrefix); ok {
		return clampUID("doc:heading:" + uidPart(c.Path) + "#" + uidPart(name) + ":" + level), graph.KindHeading
	}
	if kind == graph.KindClass {
		return codeUID("class", c.Path, name), kind
	}
	return codeUID("function", c.Path, name), kind
}

// codeUID builds code:<what>:<path>::<name>.
func codeUID(what, p, name string) string { return graph.CodeUID(what, p, name) }

// externalUID builds the uid of an unresolved target's stub.
func externalUID(name string) string { return graph.ExternalUID(name) }

// knownGOOS and knownGOARCH are the file name suffixes go/build treats as
// build constraints.
var knownGOOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}
var knownGOARCH = map[string]bool{"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true, "riscv64": true, "s390x": true, "wasm": true, "sparc64": true}

// platformFile reports whether a file's _GOOS/_GOARCH name suffixes, if
// any, match the running platform; used only to prefer one of several
// same-named declarations split by build constraints.
func platformFile(p string) bool {
	base := strings.TrimSuffix(path.Base(p), ".go")
	base = strings.TrimSuffix(base, "_test")
	parts := strings.Split(base, "_")
	if len(parts) < 2 {
		return true
	}
	last := parts[len(parts)-1]
	if knownGOARCH[last] {
		if last != runtime.GOARCH {
			return false
		}
		if len(parts) >= 3 && knownGOOS[parts[len(parts)-2]] {
			return parts[len(parts)-2] == runtime.GOOS
		}
		return true
	}
	if knownGOOS[last] {
		return last == runtime.GOOS
	}
	return true
}

// resolve turns fr's references into edges (and stub or package nodes),
// using t, and records the scopes they looked into as fr.Decl.Deps.
func resolve(fr *fileResult, t *table) {
	deps := map[string]bool{}
	t.touched = deps
	defer func() { t.touched = nil }()
	seenStub := map[string]bool{}
	seenEdge := map[graph.EdgeKey]bool{}
	for _, e := range fr.Edges {
		seenEdge[e.Key()] = true
	}
	add := func(e graph.Edge) {
		if e.Source == e.Target {
			return
		}
		if seenEdge[e.Key()] {
			return
		}
		seenEdge[e.Key()] = true
		fr.Edges = append(fr.Edges, e)
	}
	addNode := func(n graph.Node) {
		if seenStub[n.UID] {
			return
		}
		seenStub[n.UID] = true
		fr.Nodes = append(fr.Nodes, n)
	}
	for _, r := range fr.Refs {
		if s, ok := t.normScope(r.Scope); ok && s != "" {
			deps[s] = true
		}
		switch r.Type {
		case refWatch:
			continue
		case refImport:
			resolveImport(fr, t, r, add, addNode)
			continue
		case refContainedBy:
			if c, ok := t.lookup(r.Scope, r.Name, fr.Path); ok {
				if uid, kind := uidOf(c); kind == graph.KindClass {
					add(graph.Edge{Source: uid, Target: r.From, Type: graph.EdgeContains, Extractor: fr.Extractor, Line: r.Line})
					continue
				}
			}
			add(graph.Edge{Source: fileUID(fr.Path), Target: r.From, Type: graph.EdgeContains, Extractor: fr.Extractor, Line: r.Line})
			continue
		}
		if c, ok := t.target(r, fr); ok {
			uid, kind := uidOf(c)
			if r.Type == refCall && kind == graph.KindClass && fr.Extractor == ExtractorGo {
				continue // a Go conversion T(x), not a call
			}
			add(graph.Edge{Source: r.From, Target: uid, Type: r.Type, Extractor: fr.Extractor, Line: r.Line})
			continue
		}
		if r.Stub == "" {
			continue
		}
		uid := externalUID(r.Stub)
		addNode(graph.Node{UID: uid, Kind: graph.KindExternal, Label: cleanString(r.Stub), Extractor: fr.Extractor, Metadata: map[string]any{"stub": true}})
		add(graph.Edge{Source: r.From, Target: uid, Type: r.Type, Extractor: fr.Extractor, Line: r.Line})
	}
	fr.Refs = nil
	if fr.Decl != nil {
		fr.Decl.Deps = fr.Decl.Deps[:0]
		for d := range deps {
			if d != fr.Decl.Scope {
				fr.Decl.Deps = append(fr.Decl.Deps, d)
			}
		}
		sort.Strings(fr.Decl.Deps)
	}
}

// target finds the declaration a reference points at: the member of a
// receiver's value (Recv), the method of a Go function's result (Then), or
// the name in its scope — for Python and JavaScript also through imports,
// re-exports and base classes.
func (t *table) target(r ref, fr *fileResult) (candidate, bool) {
	if r.Recv != nil {
		return t.receiverTarget(r.Recv, r.Name)
	}
	if r.Then != "" {
		typ, ok := t.resultOf(r.Scope, r.Name)
		if !ok {
			return candidate{}, false // unknown result type: the stub
		}
		r.Name = typ + "." + r.Then
	}
	if c, ok := t.lookup(r.Scope, r.Name, fr.Path); ok {
		return c, true
	}
	if r.Scope == "" || (fr.Extractor != ExtractorPython && fr.Extractor != ExtractorJSTS) {
		return candidate{}, false
	}
	// A module, or a variable holding an instance (DEFAULT = Registry()),
	// is no declaration to point at: calling DEFAULT() is not calling
	// the class.
	v, ok := t.symbol(r.Scope, r.Name, 0)
	if !ok || v.kind == valModule || v.kind == valInst || v.cand.Path == "" {
		return candidate{}, false
	}
	return v.cand, true
}

// goPackageNode is the go:package: node of an import or module path, the
// same whether a Go file imports it or a go.mod requires it.
func goPackageNode(p string) graph.Node {
	first, _, _ := strings.Cut(p, "/")
	return graph.Node{UID: clampUID("go:package:" + uidPart(p)), Kind: graph.KindDependency, Label: cleanString(p),
		Metadata: map[string]any{"ecosystem": "go", "stdlib": !strings.Contains(first, ".")}}
}

// resolveImport handles a Go import: a repository package becomes an
// imports edge to its code:module: node, anything else a go:package: node.
func resolveImport(fr *fileResult, t *table, r ref, add func(graph.Edge), addNode func(graph.Node)) {
	ip := strings.TrimPrefix(r.Scope, "goimport:")
	if _, ok := t.normScope(r.Scope); ok {
		add(graph.Edge{Source: r.From, Target: clampUID("code:module:" + uidPart(ip)), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
		return
	}
	n := goPackageNode(ip)
	n.Extractor = fr.Extractor
	addNode(n)
	add(graph.Edge{Source: r.From, Target: n.UID, Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
}
