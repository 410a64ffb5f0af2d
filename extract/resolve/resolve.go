package resolve

import (
	"path"
	"runtime"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// Candidate is one declaration of a name in a scope.
type Candidate struct {
	Path string
	Kind string
}

// Table is the declarations table of the whole repository: scope → name →
// the files declaring it. It is built from the fresh declarations of the
// files parsed in this run and the cached declarations of the others; a
// scope's names are expanded on its first lookup, so a run that resolves a
// few files touches a few scopes.
type Table struct {
	modules *lang.GoModules
	byScope map[string][]string // scope → paths declaring in it, sorted
	fresh   map[string]*lang.Decl
	cached  map[string]lang.DeclRecord
	// scopes and alias are filled lazily by names().
	scopes  map[string]map[string][]Candidate
	alias   map[string]map[string]string
	results map[string]map[string]string
	factsOf map[string]map[string]string
	// touched, when set, collects every scope and fine-scope name looked
	// into (the Deps and Keys of the file being resolved; namedeps.go).
	touched *depSet
	// memos and cut memoise the inference's lookups (infermemo.go).
	memos map[string]*memoEntry
	cut   bool
	// foreign gives the declarations of a file of another root (SetForeign).
	foreign     func(scope string) (string, *lang.Decl)
	foreignPath map[string]string // scope → the file of another root declaring it
}

// pathsOf returns the files declaring in scope: those of the tree, or the
// file of another root the scope names (SetForeign).
func (t *Table) pathsOf(scope string) []string {
	if ps, ok := t.byScope[scope]; ok {
		return ps
	}
	if t.foreign == nil || !strings.Contains(scope, graph.RootSep) {
		return nil
	}
	t.names(scope)
	if p, ok := t.foreignPath[scope]; ok {
		return []string{p}
	}
	return nil
}

// SetForeign makes the table look up a scope naming a file of another
// root ("js:lib//src/x.ts", "py://a/b.py": a graph.RootedPath after the
// language's prefix) with f, which returns that file's graph path and
// declarations, their scopes already in that form (nil when there is no
// such file, or it declares nothing).
func (t *Table) SetForeign(f func(scope string) (string, *lang.Decl)) { t.foreign = f }

// NewTable returns the table of fresh (the declarations of the files
// parsed in this run, by path) over cached (those of the other files, by
// path); mods maps Go folders to import paths for the goimport: scopes.
func NewTable(fresh map[string]*lang.Decl, cached map[string]lang.DeclRecord, mods *lang.GoModules) *Table {
	t := &Table{modules: mods, byScope: map[string][]string{}, fresh: fresh, cached: cached,
		scopes: map[string]map[string][]Candidate{}, alias: map[string]map[string]string{}, results: map[string]map[string]string{},
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

// names returns the declarations of scope, expanding them on first use,
// and records the scope as looked into as a whole.
func (t *Table) names(scope string) (map[string][]Candidate, map[string]string) {
	t.touch(scope)
	return t.expand(scope)
}

// expand returns the declarations of scope, expanding them on first use;
// it records nothing.
func (t *Table) expand(scope string) (map[string][]Candidate, map[string]string) {
	if n, ok := t.scopes[scope]; ok {
		return n, t.alias[scope]
	}
	names := map[string][]Candidate{}
	var alias, results, facts map[string]string
	type declared struct {
		path string
		d    *lang.Decl
	}
	var decls []declared
	for _, p := range t.byScope[scope] {
		d := t.fresh[p]
		if d == nil {
			d = t.cached[p].Decl()
		}
		decls = append(decls, declared{p, d})
	}
	if len(decls) == 0 && t.foreign != nil && strings.Contains(scope, graph.RootSep) {
		if p, d := t.foreign(scope); d != nil {
			decls = append(decls, declared{p, d})
			if t.foreignPath == nil {
				t.foreignPath = map[string]string{}
			}
			t.foreignPath[scope] = p
		}
	}
	for _, dp := range decls {
		p, d := dp.path, dp.d
		for n, k := range d.Names {
			names[n] = append(names[n], Candidate{Path: p, Kind: k})
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
			if old, dup := facts[k]; !dup {
				facts[k] = v
			} else if k == lang.FactStar && strings.HasPrefix(scope, swiftScope) {
				facts[k] = unionStars(old, v)
			}
		}
	}
	t.scopes[scope], t.alias[scope], t.results[scope], t.factsOf[scope] = names, alias, results, facts
	return names, alias
}

// NormScope maps a "goimport:<import path>" scope to the "go:<dir>" scope of
// the repository package with that import path, and a Ruby "rbnest:…"
// scope to "rb:"; other scopes are returned unchanged. ok is false for an
// import path outside the repository.
func (t *Table) NormScope(scope string) (string, bool) {
	if crate, ok := strings.CutPrefix(scope, "rustcrate:"); ok {
		return t.rustCrateScope(crate)
	}
	if list, ok := strings.CutPrefix(scope, scalaSearchScope); ok {
		own, _, _ := strings.Cut(list, "|")
		return scalaScope + own, true // a Scala name looked up in several packages
	}
	if strings.HasPrefix(scope, rubyNestScope) {
		return "rb:", true // a Ruby constant read inside modules (nested)
	}
	ip, isImport := strings.CutPrefix(scope, "goimport:")
	if !isImport {
		return scope, true
	}
	dir, ok := t.modules.DirOf(ip)
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
func (t *Table) lookup(scope, name, fromPath string) (Candidate, bool) {
	scope, name = t.nested(scope, name)
	s, ok := t.NormScope(scope)
	if !ok {
		return Candidate{}, false
	}
	if a, ok := t.aliasOf(s, name); ok {
		name = a
	}
	cands := t.cands(s, name)
	switch len(cands) {
	case 0:
		return Candidate{}, false
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
func (t *Table) resultOf(scope, name string) (string, bool) {
	s, ok := t.NormScope(scope)
	if !ok {
		return "", false
	}
	return t.result(s, name)
}

// withName carries the declared name in Kind's place for uid building.
func withName(c Candidate, name string) Candidate {
	return Candidate{Path: c.Path, Kind: c.Kind + "\x00" + name}
}

// uidOf returns the uid of a looked-up candidate.
func uidOf(c Candidate) (uid, kind string) {
	kind, name, _ := strings.Cut(c.Kind, "\x00")
	if level, ok := strings.CutPrefix(kind, lang.HeadingKindPrefix); ok {
		return lang.ClampUID("doc:heading:" + lang.UIDPart(c.Path) + "#" + lang.UIDPart(name) + ":" + level), graph.KindHeading
	}
	if kind == graph.KindClass {
		return lang.CodeUID("class", c.Path, name), kind
	}
	return lang.CodeUID("function", c.Path, name), kind
}

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

// Resolve turns fr's references into edges (and stub or package nodes),
// using t, and records the scopes they looked into as fr.Decl.Deps and the
// names they read in fine scopes as fr.Decl.Keys (namedeps.go).
func Resolve(fr *lang.Result, t *Table) {
	touched := newDepSet()
	deps := touched.scopes
	t.touched = touched
	defer func() { t.touched = nil }()
	seenStub := map[string]bool{}
	seenEdge := map[graph.EdgeKey]bool{}
	for _, e := range fr.Edges {
		seenEdge[e.Key()] = true
	}
	add := func(e graph.Edge) {
		if lang.SelfLoop(e) {
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
	found := false // a reference of the current run of Else alternatives found its target
	for _, r := range fr.Refs {
		if s, ok := t.NormScope(r.Scope); ok && s != "" && !FineScope(s) {
			deps[s] = true // in a fine scope, the lookups record the names
		}
		if !r.Else {
			found = false
		} else if found {
			continue
		}
		switch r.Type {
		case lang.RefWatch:
			continue
		case lang.RefImport:
			if strings.HasPrefix(r.Scope, csharpScope) {
				resolveCSharpUsing(fr, t, r, add)
				continue
			}
			if r.Recv != nil {
				resolveRustUse(fr, t, r, add)
				continue
			}
			if strings.HasPrefix(r.Scope, kotlinScope) {
				resolveKotlinImport(fr, t, r, add)
				continue
			}
			if isScalaImport(r) {
				resolveScalaImport(fr, t, r, add)
				continue
			}
			resolveImport(fr, t, r, add, addNode)
			continue
		case lang.RefContainedBy:
			if c, ok := t.lookup(r.Scope, r.Name, fr.Path); ok {
				if uid, kind := uidOf(c); kind == graph.KindClass {
					add(graph.Edge{Source: uid, Target: r.From, Type: graph.EdgeContains, Extractor: fr.Extractor, Line: r.Line})
					continue
				}
			}
			add(graph.Edge{Source: lang.FileUID(fr.Path), Target: r.From, Type: graph.EdgeContains, Extractor: fr.Extractor, Line: r.Line})
			continue
		}
		typ := r.Type
		if typ == lang.RefSwiftBase {
			typ = graph.EdgeInheritsFrom
		}
		if c, ok := t.Target(r, fr); ok {
			found = true
			uid, kind := uidOf(c)
			if r.Type == lang.RefCall && kind == graph.KindClass && fr.Extractor == lang.ExtractorGo {
				continue // a Go conversion T(x), not a call
			}
			if r.Type == lang.RefSwiftBase && t.swiftProtocol(c) {
				typ = graph.EdgeImplements
			}
			add(graph.Edge{Source: r.From, Target: uid, Type: typ, Extractor: fr.Extractor, Line: r.Line})
			continue
		}
		if r.Stub == "" {
			continue
		}
		uid := lang.ExternalUID(r.Stub)
		addNode(graph.Node{UID: uid, Kind: graph.KindExternal, Label: lang.CleanString(r.Stub), Extractor: fr.Extractor, Metadata: map[string]any{"stub": true}})
		add(graph.Edge{Source: r.From, Target: uid, Type: typ, Extractor: fr.Extractor, Line: r.Line})
	}
	fr.Refs = nil
	if fr.Decl != nil {
		fr.Decl.Deps = fr.Decl.Deps[:0]
		for d := range deps {
			switch {
			case FineScope(d):
				// Read as a whole: any change in it makes fr a dependent,
				// its own scope included.
				touched.keys[WholeKey(d)] = true
			case d != fr.Decl.Scope:
				fr.Decl.Deps = append(fr.Decl.Deps, d)
			}
		}
		sort.Strings(fr.Decl.Deps)
		fr.Decl.Keys, fr.Decl.KeysKnown = packKeys(touched.keys), true
	}
}

// Target finds the declaration a reference points at: the member of a
// receiver's value (Recv), the method of a Go function's result (Then), or
// the name in its scope — for Python and JavaScript also through imports,
// re-exports and base classes.
func (t *Table) Target(r lang.Ref, fr *lang.Result) (Candidate, bool) {
	if r.Recv != nil {
		return t.receiverTarget(r.Recv, r.Name)
	}
	if r.Then != "" {
		typ, ok := t.resultOf(r.Scope, r.Name)
		if !ok {
			return Candidate{}, false // unknown result type: the stub
		}
		r.Name = typ + "." + r.Then
	}
	if c, ok := t.lookup(r.Scope, r.Name, fr.Path); ok {
		return c, true
	}
	if r.Scope == "" || (fr.Extractor != lang.ExtractorPython && fr.Extractor != lang.ExtractorJSTS) {
		return Candidate{}, false
	}
	// A module, or a variable holding an instance (DEFAULT = Registry()),
	// is no declaration to point at: calling DEFAULT() is not calling
	// the class.
	v, ok := t.symbol(r.Scope, r.Name, 0)
	if !ok || v.kind == valModule || v.kind == valInst || v.cand.Path == "" {
		return Candidate{}, false
	}
	return v.cand, true
}

// resolveImport handles a Go import: a repository package becomes an
// imports edge to its code:module: node, anything else a go:package: node.
func resolveImport(fr *lang.Result, t *Table, r lang.Ref, add func(graph.Edge), addNode func(graph.Node)) {
	ip := strings.TrimPrefix(r.Scope, "goimport:")
	if _, ok := t.NormScope(r.Scope); ok {
		add(graph.Edge{Source: r.From, Target: lang.ClampUID("code:module:" + lang.UIDPart(ip)), Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
		return
	}
	n := lang.GoPackageNode(ip)
	n.Extractor = fr.Extractor
	addNode(n)
	add(graph.Edge{Source: r.From, Target: n.UID, Type: graph.EdgeImports, Extractor: fr.Extractor, Line: r.Line})
}
