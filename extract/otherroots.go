package extract

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cos-dev/cos/extract/jsts"
	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/python"

	"github.com/cos-dev/cos/graph"
)

// How a JavaScript, TypeScript or Python import reaches a file of another
// root of the state folder: the environment names the other roots' files
// by their graph paths there (graph.RootedPath), their package.json
// packages and importable Python modules, and the tsconfig.json path
// mappings of this tree (which may point into them); the declarations of
// a file of another root are parsed when a reference first looks into it
// (foreignDecl) and named in that root's terms.

// otherRoot is another root of the state folder as a run sees it.
type otherRoot struct {
	abs, name string
	files     map[string]bool // paths inside the root
	env       *lang.Env       // the root's own environment, built on first use
}

// otherRoots is what a run knows of the other roots (Options.OtherRoots,
// Options.OtherFiles).
type otherRoots struct {
	byName  map[string]*otherRoot
	sorted  []*otherRoot // by folder
	maxSize int64
	memo    map[string]foreignDecl // scope → parsed declarations
}

type foreignDecl struct {
	path string
	decl *lang.Decl
}

// newOtherRoots indexes the other roots of o that have files.
func newOtherRoots(o Options) *otherRoots {
	or := &otherRoots{byName: map[string]*otherRoot{}, memo: map[string]foreignDecl{}, maxSize: o.MaxFileSize}
	for abs, name := range o.OtherRoots {
		files := o.OtherFiles[abs]
		if len(files) == 0 {
			continue
		}
		r := &otherRoot{abs: abs, name: name, files: make(map[string]bool, len(files))}
		for _, f := range files {
			r.files[f] = true
		}
		or.byName[name] = r
		or.sorted = append(or.sorted, r)
	}
	slices.SortFunc(or.sorted, func(a, b *otherRoot) int { return strings.Compare(a.abs, b.abs) })
	return or
}

// fill sets what e needs to resolve imports across roots and through
// this tree's package.json names and tsconfig.json paths: Foreign,
// JSPackages, TSPaths, and the other roots' Python packages in PyModules
// (this tree's own modules win).
func (or *otherRoots) fill(e *lang.Env, root string) {
	read := func(abs string) ([]byte, error) { return readSmall(abs, or.maxSize) }
	for _, r := range or.sorted {
		if e.Foreign == nil {
			e.Foreign = map[string]bool{}
		}
		for f := range r.files {
			e.Foreign[graph.RootedPath(r.name, f)] = true
		}
	}
	addPackages := func(prefix, abs string, files map[string]bool) {
		for _, f := range slices.Sorted(maps.Keys(files)) {
			if path.Base(f) != "package.json" {
				continue
			}
			data, err := read(filepath.Join(abs, filepath.FromSlash(f)))
			if err != nil {
				continue
			}
			if name, pkg, ok := jsts.Package(prefix+f, data); ok {
				if _, taken := e.JSPackages[name]; !taken {
					if e.JSPackages == nil {
						e.JSPackages = map[string]lang.JSPackage{}
					}
					e.JSPackages[name] = pkg
				}
			}
		}
	}
	addPackages("", root, e.Files)
	for _, r := range or.sorted {
		addPackages(graph.RootedPath(r.name, ""), r.abs, r.files)
		for m, p := range python.ForeignModules(r.files, pyProjectName(filepath.Join(r.abs, "pyproject.toml")), graph.RootedPath(r.name, "")) {
			if _, taken := e.PyModules[m]; !taken {
				e.PyModules[m] = p
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(e.Files)) {
		if path.Base(f) != "tsconfig.json" {
			continue
		}
		dir := path.Dir(f)
		if dir == "." {
			dir = ""
		}
		for pat, targets := range jsts.TSConfigPaths(filepath.Join(root, filepath.FromSlash(f)), read) {
			m := lang.TSPathMap{Dir: dir, Pattern: pat}
			for _, t := range targets {
				if gp := or.graphPath(root, t); gp != "" {
					m.Targets = append(m.Targets, gp)
				}
			}
			if len(m.Targets) > 0 {
				e.TSPaths = append(e.TSPaths, m)
			}
		}
	}
}

// graphPath names the absolute path abs (which may hold a '*') by its
// graph path: inside this tree (root) or another root; "" elsewhere.
func (or *otherRoots) graphPath(root, abs string) string {
	if rel, ok := inside(root, abs); ok {
		return rel
	}
	for _, r := range or.sorted {
		if rel, ok := inside(r.abs, abs); ok {
			return graph.RootedPath(r.name, rel)
		}
	}
	return ""
}

// inside returns abs relative to dir, slash-separated, when it lies
// strictly inside it.
func inside(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// decl returns the declarations of the file of another root a scope
// names ("js:lib//src/x.ts"), parsed from disk on first use and re-rooted
// (reroot); "" and nil when there is no such file or it declares nothing
// in that language.
func (or *otherRoots) decl(scope string) (string, *lang.Decl) {
	if d, ok := or.memo[scope]; ok {
		return d.path, d.decl
	}
	or.memo[scope] = foreignDecl{}
	prefix, gp, ok := strings.Cut(scope, ":")
	if !ok || (prefix != "js" && prefix != "py") {
		return "", nil
	}
	i := strings.Index(gp, graph.RootSep)
	if i < 0 {
		return "", nil
	}
	r := or.byName[gp[:i]]
	rel := gp[i+len(graph.RootSep):]
	if r == nil || !r.files[rel] || !declares(rel) {
		return "", nil
	}
	data, err := readSmall(filepath.Join(r.abs, filepath.FromSlash(rel)), or.maxSize)
	if err != nil {
		return "", nil
	}
	fr := extractFile(rel, data, "", r.environment())
	if fr.Decl == nil || fr.Decl.Scope != prefix+":"+rel {
		return "", nil
	}
	d := foreignDecl{path: gp, decl: reroot(fr.Decl, r.name)}
	or.memo[scope] = d
	return d.path, d.decl
}

// environment is the root's own environment: its files and Python
// modules, as its own run sees them.
func (r *otherRoot) environment() *lang.Env {
	if r.env == nil {
		r.env = &lang.Env{Modules: lang.NewGoModules(nil), Files: r.files, MaxDepth: DefaultMaxConfigDepth}
		r.env.PyModules = python.Modules(r.files)
	}
	return r.env
}

// reroot returns a copy of d, declared by a file of the root name, with
// its scope and the scopes of its facts naming that root's files
// (graph.RootedPath).
func reroot(d *lang.Decl, name string) *lang.Decl {
	out := *d
	out.Scope = rerootScope(d.Scope, name)
	out.Facts = make(map[string]string, len(d.Facts))
	for k, v := range d.Facts {
		cs := lang.DecodeChains(v)
		for _, c := range cs {
			c.Scope = rerootScope(c.Scope, name)
		}
		if len(cs) > 0 {
			v = lang.EncodeChains(cs...)
		}
		out.Facts[k] = v
	}
	return &out
}

// rerootScope turns a "js:" or "py:" scope of a path inside the root name
// into one naming it from elsewhere; other scopes are kept.
func rerootScope(s, name string) string {
	for _, p := range []string{"js:", "py:"} {
		if rel, ok := strings.CutPrefix(s, p); ok && rel != "" && !strings.Contains(rel, graph.RootSep) {
			return p + graph.RootedPath(name, rel)
		}
	}
	return s
}

// readSmall reads a file of at most max bytes.
func readSmall(name string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if max > 0 && fi.Size() > max {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(name)
}

// pyProjectName returns the [project] name of a pyproject.toml, "" when
// there is none.
func pyProjectName(name string) string {
	data, err := readSmall(name, 1<<20)
	if err != nil {
		return ""
	}
	return python.ProjectName(data)
}
