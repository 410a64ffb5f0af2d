package indexing

import (
	"context"
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
	"github.com/cos-dev/cos/state"
)

// filesOfRoots returns the files of each root of others (absolute folder
// → name), by folder, as paths inside the root: the extractor resolves
// imports into them (extract.Options.OtherFiles).
func filesOfRoots(all map[string]string, others map[string]string) map[string][]string {
	if len(others) == 0 {
		return nil
	}
	folder := make(map[string]string, len(others))
	for abs, name := range others {
		folder[name] = abs
	}
	out := map[string][]string{}
	for p := range all {
		name, rel := graph.SplitRoot(p)
		if abs, ok := folder[name]; ok {
			out[abs] = append(out[abs], rel)
		}
	}
	return out
}

// jsExts are the files the JavaScript and TypeScript extractor reads,
// extracted again when a tsconfig.json maps paths into a new root.
var jsExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// reextractImporters extracts again the JavaScript, TypeScript and
// Python files of the other roots that import what the root just added
// (name, at folder) provides: a package named by one of its package.json
// files (the importers' imports edges to npm:package:<name>), a Python
// package of it (their imports edges to code:module:<module>), and every
// JavaScript or TypeScript file of a root whose tsconfig.json maps paths
// into it. Their imports were packages and stubs and now land on its
// nodes. Like reextractDependents, a failure is logged and left for the
// next index of that root; Report.Dependents names the roots.
func (x *Indexer) reextractImporters(ctx context.Context, rep *Report, folder, name string, others map[string]string) {
	if len(others) == 0 {
		return
	}
	byName := make(map[string]string, len(others))
	for abs, n := range others {
		byName[n] = abs
	}
	found := map[string]map[string]bool{} // folder → paths inside it
	add := func(dir, rel string) {
		if found[dir] == nil {
			found[dir] = map[string]bool{}
		}
		found[dir][rel] = true
	}
	var all map[string]string
	if err := x.st.ReadStrict(ctx, func(v state.View) {
		all = v.Graph.FileHashes()
		files := rootFiles(all, name)
		for _, uid := range providedUIDs(folder, files) {
			for _, e := range v.Graph.In(uid) {
				if e.Type != graph.EdgeImports {
					continue
				}
				src, ok := v.Graph.Node(e.Source)
				if !ok || src.Path == "" {
					continue
				}
				if n, rel := graph.SplitRoot(src.Path); n != name {
					if dir, ok := byName[n]; ok {
						add(dir, rel)
					}
				}
			}
		}
	}); err != nil {
		x.logger.Warn("the files that import the new root were not looked for", "err", err)
		return
	}
	for dir, files := range filesOfRoots(all, others) {
		if !pathsInto(dir, files, folder) {
			continue
		}
		for _, f := range files {
			if slices.Contains(jsExts, path.Ext(f)) {
				add(dir, f)
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(found)) {
		paths := slices.Sorted(maps.Keys(found[dir]))
		sub, err := x.indexLocked(ctx, dir, RunOptions{Paths: paths, forceOnly: paths})
		if err != nil {
			x.logger.Warn("the files that import the new root were not extracted again; index their root again", "root", dir, "err", err)
			continue
		}
		rep.addDependent(Dependent{Root: dir, Name: others[dir], FilesChanged: sub.FilesChanged, LastSeq: sub.LastSeq})
	}
}

// addDependent records in rep a root extracted again for it, merged with
// an earlier record of the same root.
func (rep *Report) addDependent(d Dependent) {
	rep.LastSeq = max(rep.LastSeq, d.LastSeq)
	for i := range rep.Dependents {
		if rep.Dependents[i].Root == d.Root {
			rep.Dependents[i].FilesChanged += d.FilesChanged
			rep.Dependents[i].LastSeq = max(rep.Dependents[i].LastSeq, d.LastSeq)
			return
		}
	}
	rep.Dependents = append(rep.Dependents, d)
}

// reextractStaleCallers extracts again the files of the other roots whose
// edges point at a declaration of the root name that the run just ended
// removed (renamed, moved, deleted): their calls resolve afresh, to the
// declaration's new place or to a stub, instead of pointing at nothing.
// It looks at every edge leaving the other roots' nodes, so it runs only
// after a run that changed files of a state folder with several roots. A
// failure is logged and left for the next index of that root.
func (x *Indexer) reextractStaleCallers(ctx context.Context, rep *Report, name string, others map[string]string) {
	byName := make(map[string]string, len(others))
	for abs, n := range others {
		byName[n] = abs
	}
	found := map[string]map[string]bool{} // folder → paths inside it
	if err := x.st.ReadStrict(ctx, func(v state.View) {
		g := v.Graph
		g.Nodes(func(n graph.Node) bool {
			if n.Path == "" {
				return true
			}
			owner, rel := graph.SplitRoot(n.Path)
			dir, ok := byName[owner]
			if owner == name || !ok || found[dir][rel] {
				return true
			}
			for _, e := range g.Out(n.UID) {
				if declRoot(e.Target) == name && !g.HasNode(e.Target) {
					if found[dir] == nil {
						found[dir] = map[string]bool{}
					}
					found[dir][rel] = true
					break
				}
			}
			return true
		})
	}); err != nil {
		x.logger.Warn("the files of other roots that call into this one were not looked at", "err", err)
		return
	}
	for _, dir := range slices.Sorted(maps.Keys(found)) {
		paths := slices.Sorted(maps.Keys(found[dir]))
		sub, err := x.indexLocked(ctx, dir, RunOptions{Paths: paths, forceOnly: paths})
		if err != nil {
			x.logger.Warn("the files whose calls into a changed root point at nothing were not extracted again; index their root again", "root", dir, "err", err)
			continue
		}
		rep.addDependent(Dependent{Root: dir, Name: others[dir], FilesChanged: sub.FilesChanged, LastSeq: sub.LastSeq})
	}
}

// declRoot returns the root name of a declaration uid (code:function:,
// code:class:) from its path, and "-" for any other uid.
func declRoot(uid string) string {
	for _, p := range []string{"code:function:", "code:class:"} {
		if body, ok := strings.CutPrefix(uid, p); ok {
			if i := strings.Index(body, "::"); i >= 0 {
				body = body[:i]
			}
			name, _ := graph.SplitRoot(body)
			return name
		}
	}
	return "-"
}

// providedUIDs are the uids another root's imports of what the tree at
// folder provides take while it is not a root: npm:package:<name> of its
// package.json names, code:module:<module> of its Python packages
// (python.ForeignModules).
func providedUIDs(folder string, files map[string]string) []string {
	var out []string
	set := make(map[string]bool, len(files))
	for f := range files {
		set[f] = true
		if path.Base(f) != "package.json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(folder, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		if name, _, ok := jsts.Package(f, data); ok {
			out = append(out, lang.ClampUID("npm:package:"+lang.UIDPart(name)))
		}
	}
	for m := range python.ForeignModules(set, pyProject(folder), "") {
		out = append(out, lang.ClampUID("code:module:"+lang.UIDPart(m)))
	}
	slices.Sort(out)
	return out
}

// pyProject returns the [project] name of folder's pyproject.toml, ""
// without one.
func pyProject(folder string) string {
	data, err := os.ReadFile(filepath.Join(folder, "pyproject.toml"))
	if err != nil {
		return ""
	}
	return python.ProjectName(data)
}

// pathsInto reports whether a tsconfig.json among files (of the root at
// dir) maps a path into folder.
func pathsInto(dir string, files []string, folder string) bool {
	read := func(abs string) ([]byte, error) { return os.ReadFile(abs) }
	for _, f := range files {
		if path.Base(f) != "tsconfig.json" {
			continue
		}
		for _, targets := range jsts.TSConfigPaths(filepath.Join(dir, filepath.FromSlash(f)), read) {
			for _, t := range targets {
				if rel, err := filepath.Rel(folder, t); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					return true
				}
			}
		}
	}
	return false
}
