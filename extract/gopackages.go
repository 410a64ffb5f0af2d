package extract

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"

	"golang.org/x/tools/go/packages"
)

// goListMode is what the type-checked Go extraction asks go list for: the
// package graph (names, files, imports, test variants), never syntax or
// types — those are produced by goCheck, which can drop a package's syntax
// as soon as its files are extracted.
const goListMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedForTest | packages.NeedModule

// goPackageGraph is the package graph of the indexed tree as go list sees
// it, with the tree's own files mapped to the package each is extracted
// from.
type goPackageGraph struct {
	// pkgs holds every package listed, in-tree or not, by go list ID
	// ("net/http", "net/http [net/http.test]", "net/http_test [net/http.test]").
	pkgs map[string]*packages.Package
	// owner maps a repo-relative Go file to the package its edges are
	// extracted from: the test variant of its own package when there is
	// one ("p [p.test]" holds p's files and its in-package tests), else the
	// plain package, else the external test package.
	owner map[string]*packages.Package
	// inTree maps the ID of each package with files in the tree to those
	// files (repo-relative).
	inTree map[string][]string
	// failed maps repo-relative Go files of packages that could not be
	// listed to the first error.
	failed map[string]string
	// listedDirs are the repo-relative folders of every package listed
	// (in-tree), so a Go file no package holds can be told apart as
	// build-excluded (its folder has a package) or in no package at all.
	listedDirs map[string]bool
	// ignored holds the repo-relative Go files go list names as left out
	// of their package by build constraints.
	ignored map[string]bool
	// rel maps go list's absolute file names to repo-relative paths.
	rel *relMapper
	// workingTree maps the ID of a package of the tree to the module
	// paths its run read from a working tree (another module of the tree,
	// another root) in place of the version its go.mod requires.
	workingTree map[string][]string
}

// goListRoot is one `go list` run: a folder and the patterns listed in it.
type goListRoot struct {
	Dir      string   // absolute folder go list runs in
	Patterns []string // "./...", "./<sub>/..." or single folders "./<sub>"
	// Work is the workspace of a run in a module folder of the tree (nil:
	// the environment's, as for the module enclosing the tree).
	Work *goWorkspace
}

// goListRoots returns the go list runs that cover the Go files of the tree
// at absRoot: one per go.mod in the tree (each module's "./..." stops at
// nested modules), and, when the root has no go.mod of its own, the module
// enclosing it (a go.mod above, or GOROOT/src for the standard library)
// listed from its own root with the pattern of the indexed sub-folder.
// modDirs are the repo-relative folders of the tree's go.mod files.
func goListRoots(absRoot string, modDirs []string, enclosing string) []goListRoot {
	var roots []goListRoot
	hasRoot := false
	for _, d := range modDirs {
		if d == "" {
			hasRoot = true
		}
		roots = append(roots, goListRoot{Dir: filepath.Join(absRoot, filepath.FromSlash(d)), Patterns: []string{"./..."}})
	}
	if !hasRoot && enclosing != "" {
		rel, err := filepath.Rel(enclosing, absRoot)
		if err == nil && !strings.HasPrefix(rel, "..") {
			p := "./..."
			if rel != "." {
				p = "./" + filepath.ToSlash(rel) + "/..."
			}
			roots = append(roots, goListRoot{Dir: enclosing, Patterns: []string{p}})
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].Dir < roots[j].Dir })
	return roots
}

// narrowListRoots returns go list runs for the given repo-relative folders
// alone (their packages, tests and dependencies), each listed from the
// module that governs it: the deepest go.mod of the tree above it, else the
// enclosing module.
func narrowListRoots(absRoot string, modDirs []string, enclosing string, dirs []string) []goListRoot {
	byDir := map[string][]string{}
	for _, d := range dirs {
		mod, found := "", false
		for _, m := range modDirs {
			if (m == "" || d == m || strings.HasPrefix(d, m+"/")) && (!found || len(m) > len(mod)) {
				mod, found = m, true
			}
		}
		var runDir, rel string
		switch {
		case found:
			runDir = filepath.Join(absRoot, filepath.FromSlash(mod))
			rel = strings.TrimPrefix(strings.TrimPrefix(d, mod), "/")
			if !wildcardMatches(rel) {
				continue // "./..." from the module leaves it out
			}
		case enclosing != "":
			if !wildcardMatches(d) {
				continue // "./<root>/..." leaves it out
			}
			r, err := filepath.Rel(enclosing, filepath.Join(absRoot, filepath.FromSlash(d)))
			if err != nil || strings.HasPrefix(r, "..") {
				continue
			}
			runDir, rel = enclosing, filepath.ToSlash(r)
		default:
			continue
		}
		p := "."
		if rel != "" && rel != "." {
			p = "./" + rel
		}
		byDir[runDir] = append(byDir[runDir], p)
	}
	var roots []goListRoot
	for _, d := range slices.Sorted(maps.Keys(byDir)) {
		ps := byDir[d]
		sort.Strings(ps)
		roots = append(roots, goListRoot{Dir: d, Patterns: slices.Compact(ps)})
	}
	return roots
}

// wildcardMatches reports whether the go tool's "..." matches the folder
// rel (slash-separated, relative to where the wildcard starts): it skips
// every folder named testdata and every one whose name begins with "." or
// "_", and all below them. A folder a full run's "./..." leaves out must
// stay out of a narrow run too, or an incremental index would type-check
// what a fresh one extracts by syntax.
func wildcardMatches(rel string) bool {
	if rel == "" || rel == "." {
		return true
	}
	for part := range strings.SplitSeq(rel, "/") {
		if part == "testdata" || strings.HasPrefix(part, ".") || strings.HasPrefix(part, "_") {
			return false
		}
	}
	return true
}

// enclosingModule returns the folder of the go.mod governing absRoot from
// above (absRoot itself excluded) and its module path, or "" when there is
// none. GOROOT/src's go.mod ("module std") is found like any other.
func enclosingModule(absRoot string) (dir, modPath string) {
	for d := filepath.Dir(absRoot); ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if mp := lang.ParseGoMod(lang.ValidUTF8(data)).Module; mp != "" {
				return d, mp
			}
			return "", ""
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// enclosingImportPath returns the import path of the package in absRoot
// when it lies below modDir, the root of module modPath: the module path
// joined with the folder below it, without the module path for the
// standard library ("std", "cmd" keeps its prefix).
func enclosingImportPath(absRoot, modDir, modPath string) string {
	rel, err := filepath.Rel(modDir, absRoot)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	rel = filepath.ToSlash(rel)
	switch {
	case rel == ".":
		return modPath
	case modPath == "std":
		return rel
	}
	return modPath + "/" + rel
}

// goBuild is the build configuration the Go extraction depends on, read
// once per run.
type goBuild struct {
	// key names what selects files and packages (GOOS, GOARCH,
	// CGO_ENABLED, GOEXPERIMENT, GOFLAGS with its -tags, GOWORK) as the go
	// command resolves them — the environment and the GOENV file of `go env
	// -w` — and the go command's version; without a go command, the
	// environment and "(none)". An index under another key extracts the
	// whole tree again.
	key string
	// flags is the GOFLAGS go list runs with: the resolved one, with
	// -mod=readonly unless it names a -mod (go list never changes go.mod).
	flags string
}

// readGoBuild runs `go env` once for the build settings.
func readGoBuild() goBuild {
	vars := []string{"GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOFLAGS", "GOWORK", "GOVERSION"}
	flags := os.Getenv("GOFLAGS")
	key := ""
	if goBin, err := exec.LookPath("go"); err == nil {
		if out, err := exec.Command(goBin, append([]string{"env"}, vars...)...).Output(); err == nil {
			key = goBin + "\n" + string(out)
			if lines := strings.Split(string(out), "\n"); len(lines) > 4 {
				flags = strings.TrimSpace(lines[4]) // GOFLAGS, in vars' order
			}
		}
	}
	if key == "" {
		var b strings.Builder
		for _, k := range vars {
			b.WriteString(k + "=" + os.Getenv(k) + ";")
		}
		b.WriteString("go=(none)")
		key = b.String()
	}
	if !strings.Contains(flags, "-mod=") {
		flags = strings.TrimSpace(flags + " -mod=readonly")
	}
	return goBuild{key: key, flags: flags}
}

// goAvailable reports whether the go command can be run.
func goAvailable() bool {
	_, err := exec.LookPath("go")
	return err == nil
}

// loadGoPackageGraph lists the packages of every root (go list with
// goflags as GOFLAGS), tests included, and
// maps the tree's Go files (goFiles: repo-relative path → absolute path as
// on disk) to their packages. A root that cannot be listed marks the Go
// files below it failed; nothing is fatal but ctx's end.
func loadGoPackageGraph(ctx context.Context, absRoot string, roots []goListRoot, goFiles map[string]string, goflags string, others map[string]string) (*goPackageGraph, error) {
	g := &goPackageGraph{pkgs: map[string]*packages.Package{}, owner: map[string]*packages.Package{}, inTree: map[string][]string{}, failed: map[string]string{}, listedDirs: map[string]bool{}, ignored: map[string]bool{}, workingTree: map[string][]string{}}
	rel := newRelMapper(absRoot, goFiles)
	rel.others = others
	g.rel = rel
	for _, r := range roots {
		cfg := &packages.Config{
			Context: ctx,
			Mode:    goListMode,
			Dir:     r.Dir,
			Tests:   true,
			// Never reach the network while indexing: a module missing from
			// the cache is a load error for the packages that need it.
			// Nor switch toolchains: a go.mod asking for a newer Go is a
			// load error, not a download.
			Env: append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS="+goflags),
		}
		pkgs, err := loadInWorkspace(cfg, r)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			g.failRoot(r, rel, goFiles, err.Error())
			continue
		}
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			if cur, seen := g.pkgs[p.ID]; seen && !sameFiles(cur, p) {
				// Two modules of the tree declare the same module path: the
				// second one's packages get IDs of their own.
				p.ID += " [" + r.Dir + "]"
			}
			if _, seen := g.pkgs[p.ID]; !seen {
				g.pkgs[p.ID] = p
			}
		})
		if r.Work != nil && len(r.Work.workingTree) > 0 {
			g.markWorkingTree(pkgs, r.Work)
		}
	}
	// go list reports file names as JSON, where a byte that is not UTF-8
	// becomes U+FFFD: give such names back their bytes on disk.
	for _, p := range g.pkgs {
		for i, f := range p.GoFiles {
			if raw, ok := rel.lossy[f]; ok {
				p.GoFiles[i] = raw
			}
		}
		for i, f := range p.IgnoredFiles {
			if raw, ok := rel.lossy[f]; ok {
				p.IgnoredFiles[i] = raw
			}
		}
	}
	// Files of each package that lie in the tree; owners by preference.
	ids := make([]string, 0, len(g.pkgs))
	for id := range g.pkgs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := g.pkgs[id]
		for _, f := range p.IgnoredFiles {
			if rp, ok := rel.of(f); ok {
				g.ignored[rp] = true
			}
		}
		if !extractable(p) {
			continue
		}
		for _, f := range p.GoFiles {
			rp, ok := rel.of(f)
			if !ok {
				continue
			}
			g.inTree[id] = append(g.inTree[id], rp)
			g.listedDirs[path.Dir(rp)] = true
			if cur, ok := g.owner[rp]; !ok || ownerRank(p) > ownerRank(cur) {
				g.owner[rp] = p
			}
		}
		if len(p.Errors) > 0 {
			for _, f := range p.GoFiles {
				if rp, ok := rel.of(f); ok {
					if _, dup := g.failed[rp]; !dup {
						g.failed[rp] = p.Errors[0].Error()
					}
				}
			}
		}
	}
	return g, nil
}

// markWorkingTree records, for each package of the run's own module,
// the modules of ws.workingTree it reaches through its imports
// (transitively): its edges into them name their working tree's nodes.
func (g *goPackageGraph) markWorkingTree(pkgs []*packages.Package, ws *goWorkspace) {
	reach := map[*packages.Package][]string{}
	var visit func(p *packages.Package) []string
	visit = func(p *packages.Package) []string {
		if r, ok := reach[p]; ok {
			return r
		}
		reach[p] = nil // an import cycle (a test variant) ends here
		set := map[string]bool{}
		if p.Module != nil && slices.Contains(ws.workingTree, p.Module.Path) {
			set[p.Module.Path] = true
		}
		for _, d := range p.Imports {
			for _, m := range visit(d) {
				set[m] = true
			}
		}
		r := slices.Sorted(maps.Keys(set))
		reach[p] = r
		return r
	}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Path == ws.modPath {
			if r := visit(p); len(r) > 0 {
				g.workingTree[p.ID] = r
			}
		}
	}
}

// failRoot marks every Go file below a root that could not be listed.
func (g *goPackageGraph) failRoot(r goListRoot, rel *relMapper, goFiles map[string]string, msg string) {
	for rp, abs := range goFiles {
		if strings.HasPrefix(abs, r.Dir+string(filepath.Separator)) {
			if _, dup := g.failed[rp]; !dup {
				g.failed[rp] = msg
			}
		}
	}
}

// extractable reports whether files are extracted from p: a plain package,
// or a test variant of the package under test itself ("p [p.test]",
// "p_test [p.test]") — never another package recompiled for a test, whose
// files are extracted from its own plain package — and never the generated
// test main.
func extractable(p *packages.Package) bool {
	if strings.HasSuffix(p.ID, ".test") && p.Name == "main" && p.ForTest == "" && len(p.GoFiles) > 0 && strings.HasSuffix(p.PkgPath, ".test") {
		return false
	}
	if p.ForTest == "" {
		return true
	}
	return strings.TrimSuffix(p.PkgPath, "_test") == p.ForTest
}

// ownerRank orders the packages a file may be extracted from: the test
// variant of its own package (it holds the most files and sees the test
// helpers) before the plain package.
func ownerRank(p *packages.Package) int {
	if p.ForTest != "" {
		return 1
	}
	return 0
}

// relMapper turns the absolute file names go list reports into the tree's
// repo-relative paths, through the walk's own absolute names and, for a
// root reached through a symbolic link, its resolved form.
type relMapper struct {
	byAbs    map[string]string
	root     string
	realRoot string
	// lossy maps the JSON reading of an absolute name that is not valid
	// UTF-8 (each bad byte U+FFFD) to the name on disk.
	lossy map[string]string
	// others are the folders of the state folder's other roots, by
	// absolute folder, with their names (Options.OtherRoots).
	others map[string]string
}

func newRelMapper(absRoot string, goFiles map[string]string) *relMapper {
	m := &relMapper{byAbs: make(map[string]string, len(goFiles)), root: absRoot, realRoot: absRoot}
	if r, err := filepath.EvalSymlinks(absRoot); err == nil {
		m.realRoot = r
	}
	m.lossy = map[string]string{}
	for rp, abs := range goFiles {
		m.byAbs[abs] = rp
		if !utf8.ValidString(abs) {
			m.lossy[jsonString(abs)] = abs
		}
	}
	return m
}

// unindexed returns the base names of the files of a package that lie in
// the tree but are not files the walk accepted (too large, ignored,
// unreadable).
func (m *relMapper) unindexed(files []string) []string {
	var out []string
	for _, f := range files {
		if _, ok := m.of(f); ok {
			continue
		}
		for _, root := range []string{m.root, m.realRoot} {
			if strings.HasPrefix(f, root+string(filepath.Separator)) {
				out = append(out, filepath.Base(f))
				break
			}
		}
	}
	return out
}

// of returns the repo-relative path of an absolute file name, and false
// when the file is not one the walk accepted.
func (m *relMapper) of(abs string) (string, bool) {
	if rp, ok := m.byAbs[abs]; ok {
		return rp, true
	}
	if m.realRoot != m.root {
		if rest, ok := strings.CutPrefix(abs, m.realRoot+string(filepath.Separator)); ok {
			rp, ok := m.byAbs[filepath.Join(m.root, rest)]
			return rp, ok
		}
	}
	return "", false
}

// targetOf is of for the target of an edge: a file of another root of the
// state folder (a module the tree replaces with that folder or shares a go.work
// with) is named by its graph path there (graph.RootedPath), so a call
// into it lands on that root's node rather than a stub.
func (m *relMapper) targetOf(abs string) (string, bool) {
	if rp, ok := m.of(abs); ok {
		return rp, true
	}
	for dir, name := range m.others {
		if rest, ok := strings.CutPrefix(abs, dir+string(filepath.Separator)); ok && filepath.Ext(rest) == ".go" {
			return graph.RootedPath(name, filepath.ToSlash(rest)), true
		}
	}
	return "", false
}

// errString is a package error's text, bounded.
func errString(err error) string {
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// sameFiles reports whether two listed packages are the same package: the
// same files (the standard library listed from two modules of the tree).
func sameFiles(a, b *packages.Package) bool {
	if len(a.GoFiles) != len(b.GoFiles) {
		return false
	}
	for i := range a.GoFiles {
		if a.GoFiles[i] != b.GoFiles[i] {
			return false
		}
	}
	return true
}

// plainPackages returns the IDs of the tree's plain (non-test) packages,
// sorted, and maps each test variant of a tree package to its plain
// package's ID.
func (g *goPackageGraph) plainPackages() ([]string, map[string]string) {
	var plain []string
	byFirst := map[string]string{} // first Go file → plain ID
	for _, id := range slices.Sorted(maps.Keys(g.inTree)) {
		p := g.pkgs[id]
		if p.ForTest == "" {
			plain = append(plain, id)
			if len(p.GoFiles) > 0 {
				byFirst[p.GoFiles[0]] = id
			}
		}
	}
	plainOf := map[string]string{}
	for id := range g.inTree {
		p := g.pkgs[id]
		if p.ForTest == "" {
			continue
		}
		for _, f := range p.GoFiles {
			if pid, ok := byFirst[f]; ok && g.pkgs[pid].PkgPath == p.PkgPath {
				plainOf[id] = pid
				break
			}
		}
	}
	return plain, plainOf
}

// jsonString is s as encoding/json reads it back after writing it: every
// byte that is not part of valid UTF-8 becomes U+FFFD.
func jsonString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
