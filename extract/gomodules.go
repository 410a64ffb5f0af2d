package extract

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
)

// goWorkspace is how one go list run of a module of the tree sees its
// dependencies: through the go.work the go tool would use for that module
// (a go.work above that lists it); alone when a go.work above does not
// list it (the go tool would refuse the module; it is listed as with
// GOWORK=off); and, when the module is in no go.work and requires, with
// no replace, a module whose source is another module of the tree or
// another root of the state folder, through an alternate go.mod (go list
// -modfile) that adds a replace of that module by its folder: its working
// tree is then read in place of the version the go.mod requires, which
// the module cache (never reached while indexing) would otherwise have to
// supply. A replace, unlike a generated go.work, keeps the module graph
// pruned: the versions the working tree requires need not be in the
// module cache.
type goWorkspace struct {
	// modPath is the module path of the module listed.
	modPath string
	// gowork is the GOWORK the run sets: "" keeps the environment's, or
	// "off".
	gowork string
	// modfile is the alternate go.mod ("" none): the module's own with
	// the replaces added; gosum is the module's go.sum, copied beside it.
	modfile, gosum []byte
	// goflags is the run's GOFLAGS, to which -modfile is added.
	goflags string
	// workingTree are the module paths read from a working tree in place
	// of the required version, sorted.
	workingTree []string
}

// goModInfo is what the plan reads of one go.mod.
type goModInfo struct {
	dir       string // absolute folder
	path      string // module path
	goVersion string // "1.22", "" when the file names none
	requires  []string
	replaced  map[string]bool // module paths a replace directive names
	vendored  bool            // dir/vendor/modules.txt exists
}

// readGoModInfo parses dir/go.mod; false when it is missing or declares
// no module.
func readGoModInfo(dir string) (goModInfo, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return goModInfo{}, false
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil || f.Module == nil || f.Module.Mod.Path == "" {
		return goModInfo{}, false
	}
	m := goModInfo{dir: dir, path: f.Module.Mod.Path, replaced: map[string]bool{}}
	if f.Go != nil {
		m.goVersion = f.Go.Version
	}
	for _, r := range f.Require {
		m.requires = append(m.requires, r.Mod.Path)
	}
	for _, r := range f.Replace {
		m.replaced[r.Old.Path] = true
	}
	if _, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt")); err == nil {
		m.vendored = true
	}
	return m, true
}

// goModuleSources are the folders whose go.mod declares a module path:
// the tree's modules and the modules of the state folder's other roots.
type goModuleSources struct {
	tree, other map[string][]string // module path → absolute folders
}

// source returns the one folder a required module is read from: the
// tree's module of that path when there is exactly one, else another
// root's when there is exactly one; false when there is none or the
// choice is ambiguous (two copies of the module).
func (s goModuleSources) source(modPath string) (string, bool) {
	switch t := s.tree[modPath]; {
	case len(t) == 1:
		return t[0], true
	case len(t) > 1:
		return "", false
	}
	if o := s.other[modPath]; len(o) == 1 {
		return o[0], true
	}
	return "", false
}

// findGoModuleSources reads the go.mod files of the tree (modDirs,
// repo-relative under absRoot) and walks each other root (others:
// absolute folder → name) for its own. Modules in folders the go tool's
// "..." skips (testdata, names starting with "." or "_") are left out, as
// are vendor and node_modules folders of other roots.
func findGoModuleSources(absRoot string, modDirs []string, others map[string]string) goModuleSources {
	s := goModuleSources{tree: map[string][]string{}, other: map[string][]string{}}
	for _, d := range modDirs {
		if !wildcardMatches(d) {
			continue
		}
		dir := filepath.Join(absRoot, filepath.FromSlash(d))
		if m, ok := readGoModInfo(dir); ok {
			s.tree[m.path] = append(s.tree[m.path], dir)
		}
	}
	for _, root := range slices.Sorted(maps.Keys(others)) {
		for _, dir := range GoModuleFolders(root) {
			if m, ok := readGoModInfo(dir); ok {
				s.other[m.path] = append(s.other[m.path], dir)
			}
		}
	}
	return s
}

// GoModuleFolders returns the absolute folders under root (root included)
// that hold a go.mod, sorted, skipping the folders the go tool's "..."
// skips (testdata, names starting with "." or "_") and vendor and
// node_modules folders. A folder that cannot be read is skipped.
func GoModuleFolders(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" && d.Type().IsRegular() {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// planGoWorkspace returns the workspace of the go list run of the module
// at dir (absolute), given the sources of module paths
// and the GOFLAGS of the run. A required module is read from a working
// tree only when sources name one folder for it (two copies of a module
// leave it to the module cache: a stub), when neither the module
// nor the go.work it is in replaces it, and when the module is not
// vendored (its vendor folder is what the go tool reads) and goflags
// name no -mod other than readonly (workspace mode refuses them).
func planGoWorkspace(dir string, sources goModuleSources, goflags string) (goWorkspace, bool) {
	m, ok := readGoModInfo(dir)
	if !ok {
		return goWorkspace{}, false
	}
	ws := goWorkspace{modPath: m.path, goflags: goflags}
	if work := findGoWork(dir); work != "" {
		if inGoWork(work, dir) {
			return ws, true // the go.work decides
		}
		ws.gowork = "off" // the go tool would refuse the module under this go.work
	}
	if m.vendored || strings.Contains(goflags, "-mod=vendor") || strings.Contains(goflags, "-modfile") {
		return ws, true
	}
	// Bare requires of a module whose source is one folder, transitively.
	provided := map[string]bool{m.path: true}
	replaced := maps.Clone(m.replaced)
	var b strings.Builder
	queue := append([]string(nil), m.requires...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if provided[p] || replaced[p] {
			continue
		}
		src, ok := sources.source(p)
		if !ok {
			continue
		}
		sm, ok := readGoModInfo(src)
		if !ok {
			continue
		}
		provided[p] = true
		ws.workingTree = append(ws.workingTree, p)
		fmt.Fprintf(&b, "replace %s => %s\n", strconv.Quote(p), strconv.Quote(src))
		queue = append(queue, sm.requires...)
	}
	if len(ws.workingTree) == 0 {
		return ws, true
	}
	slices.Sort(ws.workingTree)
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return goWorkspace{modPath: m.path, gowork: ws.gowork}, true
	}
	ws.modfile = append(append(data, "\n// Added by the index: modules read from their working tree.\n"...), b.String()...)
	ws.gosum, _ = os.ReadFile(filepath.Join(dir, "go.sum"))
	return ws, true
}

// inGoWork reports whether the go.work file work lists the module folder
// dir.
func inGoWork(work, dir string) bool {
	data, err := os.ReadFile(work)
	if err != nil {
		return false
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return false
	}
	for _, u := range wf.Use {
		ud := u.Path
		if !filepath.IsAbs(ud) {
			ud = filepath.Join(filepath.Dir(work), filepath.FromSlash(ud))
		}
		if filepath.Clean(ud) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// findGoWork returns the go.work the go tool would use for a run in dir:
// GOWORK when set to a file (none when "off"), else the first go.work in
// dir or a folder above it; "" when there is none.
func findGoWork(dir string) string {
	switch env := os.Getenv("GOWORK"); env {
	case "off":
		return ""
	case "":
	default:
		if filepath.IsAbs(env) {
			return env
		}
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		f := filepath.Join(d, "go.work")
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// planWorkspaces fills the Work of every run listed from a module folder
// of the tree.
func planWorkspaces(roots []goListRoot, absRoot string, modDirs []string, others map[string]string, goflags string) {
	var sources *goModuleSources
	for i := range roots {
		rel, err := filepath.Rel(absRoot, roots[i].Dir)
		if rel = filepath.ToSlash(rel); rel == "." {
			rel = ""
		}
		if err != nil || !slices.Contains(modDirs, rel) {
			continue
		}
		if sources == nil {
			s := findGoModuleSources(absRoot, modDirs, others)
			sources = &s
		}
		if ws, ok := planGoWorkspace(roots[i].Dir, *sources, goflags); ok {
			roots[i].Work = &ws
		}
	}
}

// loadInWorkspace runs packages.Load for r under its workspace: with
// GOWORK=off, and with the alternate go.mod written to a temporary folder
// for the run. A run the alternate go.mod breaks is run again without it.
func loadInWorkspace(cfg *packages.Config, r goListRoot) ([]*packages.Package, error) {
	if r.Work == nil {
		return packages.Load(cfg, r.Patterns...)
	}
	base := *cfg
	base.Env = slices.Clip(cfg.Env)
	if r.Work.gowork != "" {
		base.Env = append(base.Env, "GOWORK="+r.Work.gowork)
	}
	if r.Work.modfile == nil {
		return packages.Load(&base, r.Patterns...)
	}
	tmp, err := os.MkdirTemp("", "cos-gomod-")
	if err == nil && !strings.ContainsAny(tmp, " \t") {
		defer func() { _ = os.RemoveAll(tmp) }()
		mod := filepath.Join(tmp, "go.mod")
		err = os.WriteFile(mod, r.Work.modfile, 0o600)
		if err == nil && r.Work.gosum != nil {
			err = os.WriteFile(filepath.Join(tmp, "go.sum"), r.Work.gosum, 0o600)
		}
		if err == nil {
			c := base
			c.Env = append(slices.Clip(base.Env), "GOFLAGS="+strings.TrimSpace(r.Work.goflags+" -modfile="+mod))
			if pkgs, err := packages.Load(&c, r.Patterns...); err == nil || cfg.Context.Err() != nil {
				return pkgs, err
			}
		}
	}
	r.Work.workingTree = nil
	return packages.Load(&base, r.Patterns...)
}
