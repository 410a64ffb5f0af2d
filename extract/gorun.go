package extract

import (
	"go/build"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"sync"

	"github.com/cos-dev/cos/graph"
)

// typedGo is the type-checked pass over Go files. It runs after the
// changed files and their syntax dependents were extracted (results) and
// before resolution, and replaces the syntax edges of every Go file it can
// type-check with exact ones.
//
// Which packages: those holding a changed, re-extracted or removed Go file,
// and every package of the tree that imports one of them, directly or not
// (an edge's target names the file declaring it, and promoted methods and
// interfaces reach through several packages). All of the tree's packages
// when a go.mod changed. Their files are added to results when missing.
// Nothing is listed or checked when no Go file changed.
//
// A file whose package cannot be listed or type-checked keeps its syntax
// edges, and its file node says so (graph.MetaExtraction, MetaFallback);
// a file left out by build constraints, or in no package at all
// (testdata), likewise.
func (r *runner) typedGo(results map[string]*fileResult, present map[string]string, byPath map[string]entry, e *env, removed []string, modsChanged, forceAll bool) (typedOutcome, error) {
	var out typedOutcome
	r.st.GoFilesTyped, r.st.GoFallback = 0, nil // a second pass counts anew
	goFiles := map[string]string{}
	var modDirs []string
	for p := range present {
		switch {
		case extractorFor(p) == ExtractorGo:
			goFiles[p] = byPath[p].Abs
		case path.Base(p) == "go.mod":
			d := path.Dir(p)
			if d == "." {
				d = ""
			}
			modDirs = append(modDirs, d)
		}
	}
	need := (modsChanged || forceAll) && len(goFiles) > 0
	for p := range results {
		if extractorFor(p) == ExtractorGo {
			need = true
		}
	}
	for _, p := range removed {
		if extractorFor(p) == ExtractorGo {
			need = true
		}
	}
	if !need {
		return out, nil
	}
	if !goAvailable() {
		for p, fr := range results {
			if extractorFor(p) == ExtractorGo {
				r.markSyntax(fr, graph.FallbackLoadError, "the go command is not installed")
			}
		}
		return out, nil
	}
	sort.Strings(modDirs)
	enclosing := ""
	if len(modDirs) == 0 || modDirs[0] != "" {
		enclosing, _ = enclosingModule(r.root)
	}
	g, err := loadGoPackageGraph(r.ctx, r.root, goListRoots(r.root, modDirs, enclosing), goFiles)
	if err != nil {
		return out, err
	}
	r.phase("go list")

	// The packages to extract: those touched, and their importers.
	byDir := map[string][]string{}
	importers := map[string][]string{}
	for id, files := range g.inTree {
		p := g.pkgs[id]
		for _, f := range files {
			byDir[path.Dir(f)] = append(byDir[path.Dir(f)], p.PkgPath)
		}
		for _, d := range p.Imports {
			importers[d.PkgPath] = append(importers[d.PkgPath], p.PkgPath)
		}
	}
	affected := map[string]bool{}
	var queue []string
	touch := func(pp string) {
		if !affected[pp] {
			affected[pp] = true
			queue = append(queue, pp)
		}
	}
	for p := range results {
		if o := g.owner[p]; o != nil {
			touch(o.PkgPath)
		}
	}
	for _, p := range removed {
		for _, pp := range byDir[path.Dir(p)] {
			touch(pp)
		}
	}
	if modsChanged || forceAll {
		for _, o := range g.owner {
			touch(o.PkgPath)
		}
	}
	for len(queue) > 0 {
		pp := queue[0]
		queue = queue[1:]
		for _, imp := range importers[pp] {
			touch(imp)
		}
	}
	want := map[string]bool{}
	ids := map[string]bool{}
	var missing []entry
	for p, o := range g.owner {
		if !affected[o.PkgPath] {
			continue
		}
		want[p] = true
		ids[o.ID] = true
		if _, ok := results[p]; !ok {
			missing = append(missing, byPath[p])
		}
	}
	r.o.Logger.Debug("go packages to extract", "affected", len(affected), "files", len(want), "missing", len(missing))
	sort.Slice(missing, func(i, j int) bool { return missing[i].Rel < missing[j].Rel })
	if err := r.extractAll(missing, e, results, false); err != nil {
		return out, err
	}
	out.ran, out.all = true, len(want) == len(g.owner)

	// Type-check and extract, package by package.
	fset := token.NewFileSet()
	var mu sync.Mutex // guards results' values and typeErrs
	typeErrs := map[string]string{}
	loadErrs := map[string]bool{} // type errors caused by an import that failed
	typed := map[string]bool{}
	var jobs []implJob
	var x *typedExtractor
	chk := newGoChecker(fset, g.pkgs, r.o.Workers, func(cp *checkedPackage) {
		if cp.typeErr != "" && !cp.cgo {
			mu.Lock()
			defer mu.Unlock()
			for _, name := range cp.pkg.GoFiles {
				if p, ok := g.rel.of(name); ok && g.owner[p] == cp.pkg {
					typeErrs[p] = cp.typeErr
					if cp.importErr {
						loadErrs[p] = true
					}
				}
			}
			return
		}
		out := x.extractPackage(cp, func(p string) bool { return want[p] })
		mu.Lock()
		defer mu.Unlock()
		for p, tf := range out {
			fr := results[p]
			if fr == nil {
				continue // unreadable a moment ago: recorded as failed
			}
			fr.Nodes, fr.Edges, fr.Refs = tf.Nodes, tf.Edges, nil
			typed[p] = true
			jobs = append(jobs, tf.impl...)
		}
	})
	x = newTypedExtractor(fset, g.rel, g, chk.typesOf)
	plainIDs, plainOf := g.plainPackages()
	n, err := chk.run(r.ctx, ids, plainIDs)
	if err != nil {
		return out, err
	}
	r.st.GoPackagesChecked += n
	r.phase("go type-check and extract")

	// implements, against the interfaces of the whole tree.
	tree, digest := x.treeInterfaces(plainIDs)
	out.interfaces = digest
	outside := map[string]*implCandidates{}
	sort.Slice(jobs, func(i, j int) bool {
		if jobs[i].path != jobs[j].path {
			return jobs[i].path < jobs[j].path
		}
		return jobs[i].uid < jobs[j].uid
	})
	for _, j := range jobs {
		oc, ok := outside[j.pkg.ID]
		if !ok {
			oc = x.outsideInterfaces(j.pkg)
			outside[j.pkg.ID] = oc
		}
		edges, nodes := implementsEdges(j.uid, x.plainTypeName(j, plainOf), fset.Position(j.tn.Pos()).Line, tree, oc)
		fr := results[j.path]
		fr.Edges = append(fr.Edges, edges...)
		fr.Nodes = append(fr.Nodes, nodes...)
	}
	r.phase("go implements")

	// Everything else keeps its syntax edges, and says why.
	for p, fr := range results {
		if extractorFor(p) != ExtractorGo {
			continue
		}
		if typed[p] {
			r.st.GoFilesTyped++
			continue
		}
		switch {
		case g.failed[p] != "":
			r.markSyntax(fr, graph.FallbackLoadError, g.failed[p])
		case loadErrs[p]:
			r.markSyntax(fr, graph.FallbackLoadError, typeErrs[p])
		case typeErrs[p] != "":
			r.markSyntax(fr, graph.FallbackTypeError, typeErrs[p])
		case g.owner[p] != nil:
			r.markSyntax(fr, graph.FallbackTypeError, "not type-checked")
		case g.ignored[p] || g.listedDirs[path.Dir(p)]:
			r.markSyntax(fr, graph.FallbackBuildExcluded, "")
		case !buildMatches(byPath[p].Abs):
			r.markSyntax(fr, graph.FallbackBuildExcluded, "")
		default:
			r.markSyntax(fr, graph.FallbackNotInPackage, "")
		}
	}
	return out, nil
}

// typedOutcome is what typedGo reports to Run.
type typedOutcome struct {
	// ran is set when packages were type-checked; all when every package
	// of the tree was extracted.
	ran, all bool
	// interfaces is the digest of the tree's interfaces (treeInterfaces).
	interfaces string
}

// markSyntax records on a Go file's nodes that its edges come from the
// syntax alone, and why; a build-excluded file's declarations carry
// graph.MetaBuildExcluded too.
func (r *runner) markSyntax(fr *fileResult, reason, detail string) {
	if r.st.GoFallback == nil {
		r.st.GoFallback = map[string]int{}
	}
	r.st.GoFallback[reason]++
	fu := fileUID(fr.Path)
	for i := range fr.Nodes {
		n := &fr.Nodes[i]
		isFile := n.UID == fu
		excluded := reason == graph.FallbackBuildExcluded && n.Path == fr.Path && n.Kind != graph.KindExternal
		if !isFile && !excluded {
			continue
		}
		if n.Metadata == nil {
			n.Metadata = map[string]any{}
		} else {
			n.Metadata = cloneMeta(n.Metadata)
		}
		if excluded {
			n.Metadata[graph.MetaBuildExcluded] = true
		}
		if isFile {
			n.Metadata[graph.MetaExtraction] = graph.ExtractionSyntax
			n.Metadata[graph.MetaFallback] = reason
			if detail != "" {
				n.Metadata[graph.MetaFallbackDetail] = cleanString(detail)
			}
		}
	}
}

func cloneMeta(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// buildMatches reports whether go/build's default context (this GOOS,
// GOARCH, cgo setting and release tags) keeps the file at abs: its name
// suffixes and its //go:build line. go list leaves out a folder whose
// files are all excluded, so this tells such files (arena.go's
// goexperiment tag, a //go:build ignore generator) from files in no
// package (testdata).
func buildMatches(abs string) bool {
	ok, err := build.Default.MatchFile(filepath.Dir(abs), filepath.Base(abs))
	return err != nil || ok
}
