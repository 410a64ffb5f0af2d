package extract

import (
	"fmt"
	"go/version"
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

// goWorkspace is the workspace one go list run of a module of the tree
// uses: the go.work the go tool would use for that module (a go.work above
// that lists it), none when a go.work above does not list it (the go tool
// would refuse the module; it is listed alone, as with GOWORK=off), or a
// generated go.work when the module requires, with no replace, a module
// whose source is another module of the tree or another root of the state
// folder: then that module's working tree is used in place of the version
// the go.mod requires, which the module cache (never reached while
// indexing) would otherwise have to supply.
type goWorkspace struct {
	// modPath is the module path of the module listed.
	modPath string
	// gowork is the GOWORK the run sets: "" keeps the environment's,
	// "off", or "generated" for the content below.
	gowork string
	// base is the GOWORK without the generated go.work ("" or "off"), for
	// a run the generated one breaks.
	base string
	// content is the generated go.work, written to a temporary folder for
	// the run.
	content []byte
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
	ws := goWorkspace{modPath: m.path}
	work, workDir := findGoWork(dir)
	var wf *modfile.WorkFile
	if work != "" {
		if data, err := os.ReadFile(work); err == nil {
			wf, _ = modfile.ParseWork(work, data, nil)
		}
	}
	// The modules the workspace already holds, and the replaces in force.
	uses := []string{dir}
	provided := map[string]bool{m.path: true}
	replaced := maps.Clone(m.replaced)
	if wf != nil {
		listed := false
		var wsUses []string
		for _, u := range wf.Use {
			ud := u.Path
			if !filepath.IsAbs(ud) {
				ud = filepath.Join(workDir, filepath.FromSlash(ud))
			}
			ud = filepath.Clean(ud)
			if ud == filepath.Clean(dir) {
				listed = true
				continue
			}
			wsUses = append(wsUses, ud)
		}
		if !listed {
			ws.gowork, wf = "off", nil // the go tool would refuse the module under this go.work
		} else {
			for _, ud := range wsUses {
				if um, ok := readGoModInfo(ud); ok {
					provided[um.path] = true
					uses = append(uses, ud)
					for p := range um.replaced {
						replaced[p] = true
					}
				}
			}
			for _, r := range wf.Replace {
				replaced[r.Old.Path] = true
			}
		}
	}
	if m.vendored || strings.Contains(goflags, "-mod=mod") || strings.Contains(goflags, "-mod=vendor") {
		return ws, true
	}
	// Bare requires of a module whose source is one folder, transitively.
	goVer := m.goVersion
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
		uses = append(uses, sm.dir)
		ws.workingTree = append(ws.workingTree, p)
		for r := range sm.replaced {
			replaced[r] = true
		}
		queue = append(queue, sm.requires...)
	}
	if len(ws.workingTree) == 0 {
		return ws, true
	}
	slices.Sort(ws.workingTree)
	for _, u := range uses[1:] {
		if um, ok := readGoModInfo(u); ok && laterGo(um.goVersion, goVer) {
			goVer = um.goVersion
		}
	}
	var b strings.Builder
	if wf != nil && wf.Go != nil && laterGo(wf.Go.Version, goVer) {
		goVer = wf.Go.Version
	}
	if goVer == "" {
		goVer = "1.21"
	}
	fmt.Fprintf(&b, "go %s\n\nuse (\n", goVer)
	for _, u := range uses {
		fmt.Fprintf(&b, "\t%s\n", strconv.Quote(u))
	}
	b.WriteString(")\n")
	if wf != nil {
		for _, r := range wf.Replace {
			old := strconv.Quote(r.Old.Path)
			if r.Old.Version != "" {
				old += " " + r.Old.Version
			}
			target := r.New.Path
			if r.New.Version != "" {
				target = strconv.Quote(target) + " " + r.New.Version
			} else {
				if !filepath.IsAbs(target) {
					target = filepath.Join(workDir, filepath.FromSlash(target))
				}
				target = strconv.Quote(target)
			}
			fmt.Fprintf(&b, "replace %s => %s\n", old, target)
		}
	}
	ws.base = ws.gowork
	ws.gowork, ws.content = "generated", []byte(b.String())
	return ws, true
}

// laterGo reports whether the go version a is later than b ("" is the
// earliest).
func laterGo(a, b string) bool {
	if a == "" {
		return false
	}
	if b == "" {
		return true
	}
	return version.Compare("go"+a, "go"+b) > 0
}

// findGoWork returns the go.work the go tool would use for a run in dir,
// and its folder: GOWORK when set (none when "off"), else the first
// go.work in dir or a folder above it.
func findGoWork(dir string) (file, folder string) {
	switch env := os.Getenv("GOWORK"); env {
	case "off":
		return "", ""
	case "":
	default:
		if filepath.IsAbs(env) {
			return env, filepath.Dir(env)
		}
		return "", ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		f := filepath.Join(d, "go.work")
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, d
		}
		if filepath.Dir(d) == d {
			return "", ""
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

// loadInWorkspace runs packages.Load for r under its workspace: GOWORK=off,
// or a generated go.work written to a temporary folder for the run. A run
// the generated go.work breaks (conflicting replaces of two modules) is
// run again under the environment's workspace.
func loadInWorkspace(cfg *packages.Config, r goListRoot) ([]*packages.Package, error) {
	if r.Work == nil || r.Work.gowork == "" {
		return packages.Load(cfg, r.Patterns...)
	}
	if r.Work.gowork == "off" {
		c := *cfg
		c.Env = append(slices.Clip(cfg.Env), "GOWORK=off")
		return packages.Load(&c, r.Patterns...)
	}
	tmp, err := os.MkdirTemp("", "cos-gowork-")
	if err == nil {
		defer func() { _ = os.RemoveAll(tmp) }()
		work := filepath.Join(tmp, "go.work")
		if err = os.WriteFile(work, r.Work.content, 0o600); err == nil {
			c := *cfg
			c.Env = append(slices.Clip(cfg.Env), "GOWORK="+work)
			if pkgs, err := packages.Load(&c, r.Patterns...); err == nil || cfg.Context.Err() != nil {
				return pkgs, err
			}
		}
	}
	r.Work.workingTree = nil
	c := *cfg
	if r.Work.base != "" {
		c.Env = append(slices.Clip(cfg.Env), "GOWORK="+r.Work.base)
	}
	return packages.Load(&c, r.Patterns...)
}
