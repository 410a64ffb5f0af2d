package extract

import (
	"go/build"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"strings"
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
func (r *runner) typedGo(results map[string]*fileResult, present map[string]string, byPath map[string]entry, e *env, removed []string, modsChanged bool, dc *declCache) error {
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
	need := modsChanged && len(goFiles) > 0
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
		return nil
	}
	if !goAvailable() {
		for p, fr := range results {
			if extractorFor(p) == ExtractorGo {
				r.markSyntax(fr, graph.FallbackLoadError, "the go command is not installed")
			}
		}
		return nil
	}
	sort.Strings(modDirs)
	enclosing := ""
	if len(modDirs) == 0 || modDirs[0] != "" {
		enclosing, _ = enclosingModule(r.root)
	}
	full := modsChanged || dc.Shapes == nil || dc.Interfaces == ""
	listAll := func() (*goPackageGraph, error) {
		g, err := loadGoPackageGraph(r.ctx, r.root, goListRoots(r.root, modDirs, enclosing), goFiles)
		r.phase("go list")
		return g, err
	}
	var g *goPackageGraph
	var err error
	if full {
		g, err = listAll()
	} else {
		// The first pass needs the touched folders' packages only.
		dirs := map[string]bool{}
		for p := range results {
			if extractorFor(p) == ExtractorGo {
				dirs[dirOf(p)] = true
			}
		}
		for _, p := range removed {
			if extractorFor(p) == ExtractorGo {
				dirs[dirOf(p)] = true
			}
		}
		g, err = loadGoPackageGraph(r.ctx, r.root, narrowListRoots(r.root, modDirs, enclosing, sortedKeys(dirs)), goFiles)
		r.phase("go list (touched folders)")
	}
	if err != nil {
		return err
	}

	tr := &typedRun{r: r, results: results, byPath: byPath, e: e, fset: token.NewFileSet(),
		typed: map[string]bool{}, typeErrs: map[string]string{}, loadErrs: map[string]bool{}, shapes: map[string]string{}}
	var importers, byDir map[string][]string
	var allPaths map[string]bool
	useGraph := func(ng *goPackageGraph) {
		g = ng
		tr.g = g
		tr.plainIDs, tr.plainOf = g.plainPackages()
		importers, byDir, allPaths = map[string][]string{}, map[string][]string{}, map[string]bool{}
		for id, files := range g.inTree {
			p := g.pkgs[id]
			allPaths[p.PkgPath] = true
			for _, f := range files {
				byDir[path.Dir(f)] = append(byDir[path.Dir(f)], p.PkgPath)
			}
			for _, d := range p.Imports {
				importers[d.PkgPath] = append(importers[d.PkgPath], p.PkgPath)
			}
		}
	}
	useGraph(g)

	// The seeds: packages holding a changed, re-extracted or removed file.
	seeds := map[string]bool{}
	for p := range results {
		if o := g.owner[p]; o != nil {
			seeds[o.PkgPath] = true
		}
	}
	for _, p := range removed {
		for _, pp := range byDir[path.Dir(p)] {
			seeds[pp] = true
		}
	}
	if full {
		seeds = allPaths
	}
	// Pass 1: the seeds alone, their imports without bodies. When no
	// seed's shape (what an importer can see of it) changed, no other
	// file's edges can change, and the seeds' implements edges are the
	// ones cached.
	if err := tr.pass(seeds, full); err != nil {
		return err
	}
	if !full {
		var changed []string
		for id, d := range tr.shapes {
			if dc.Shapes[id] != d {
				changed = append(changed, g.pkgs[id].PkgPath)
			}
		}
		if len(changed) == 0 && tr.reuseImpl(dc) {
			r.o.Logger.Debug("go: no package's shape changed", "seeds", len(seeds))
		} else {
			// Pass 2: the seeds and every package importing one whose
			// shape changed, transitively, with the whole tree's
			// interfaces for implements.
			ng, err := listAll()
			if err != nil {
				return err
			}
			useGraph(ng)
			set := map[string]bool{}
			var queue []string
			touch := func(pp string) {
				if !set[pp] {
					set[pp] = true
					queue = append(queue, pp)
				}
			}
			for pp := range seeds {
				set[pp] = true
			}
			queue = append(queue, changed...)
			for len(queue) > 0 {
				pp := queue[0]
				queue = queue[1:]
				for _, imp := range importers[pp] {
					touch(imp)
				}
			}
			r.o.Logger.Debug("go: shapes changed", "packages", len(changed), "extracting", len(set))
			if err := tr.pass(set, true); err != nil {
				return err
			}
			if tr.interfaces != dc.Interfaces && len(set) < len(allPaths) {
				// An interface of the tree changed: any type of the tree
				// may have gained or lost an implements edge.
				r.o.Logger.Debug("go: the tree's interfaces changed: every package is extracted again")
				if err := tr.pass(allPaths, true); err != nil {
					return err
				}
			}
		}
	}
	if dc.Shapes == nil || full {
		dc.Shapes = map[string]string{}
	}
	for id, d := range tr.shapes {
		dc.Shapes[id] = d
	}
	for id := range dc.Shapes {
		if _, ok := g.inTree[id]; !ok {
			delete(dc.Shapes, id)
		}
	}
	if tr.interfaces != "" {
		dc.Interfaces = tr.interfaces
	}

	// Everything else keeps its syntax edges, and says why.
	for p, fr := range results {
		if extractorFor(p) != ExtractorGo {
			continue
		}
		if tr.typed[p] {
			r.st.GoFilesTyped++
			continue
		}
		switch {
		case g.failed[p] != "":
			r.markSyntax(fr, graph.FallbackLoadError, g.failed[p])
		case tr.loadErrs[p]:
			r.markSyntax(fr, graph.FallbackLoadError, tr.typeErrs[p])
		case tr.typeErrs[p] != "":
			r.markSyntax(fr, graph.FallbackTypeError, tr.typeErrs[p])
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
	return nil
}

// typedRun is the state of typedGo's passes.
type typedRun struct {
	r        *runner
	g        *goPackageGraph
	results  map[string]*fileResult
	byPath   map[string]entry
	e        *env
	fset     *token.FileSet
	plainIDs []string
	plainOf  map[string]string

	// mu guards the maps below and results' values while a pass runs.
	mu       sync.Mutex
	typed    map[string]bool   // files extracted with types
	typeErrs map[string]string // files whose package did not type-check
	loadErrs map[string]bool   // … because an import failed
	shapes   map[string]string // package ID → shapeDigest, of the packages extracted
	jobs     []implJob         // the last pass's named types
	// interfaces is the digest of the tree's interfaces, once a pass saw
	// the whole tree.
	interfaces string
}

// pass type-checks and extracts the files of the packages whose import
// paths are in set, with a checker of its own (types from two passes are
// never mixed). With tree, every plain package of the tree is checked
// too (without bodies), and the extracted types get their implements
// edges against all of the tree's interfaces.
func (tr *typedRun) pass(set map[string]bool, tree bool) error {
	r, g := tr.r, tr.g
	want := map[string]bool{}
	ids := map[string]bool{}
	var missing []entry
	for p, o := range g.owner {
		if !set[o.PkgPath] {
			continue
		}
		want[p] = true
		ids[o.ID] = true
		if _, ok := tr.results[p]; !ok {
			missing = append(missing, tr.byPath[p])
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].Rel < missing[j].Rel })
	if err := r.extractAll(missing, tr.e, tr.results, false); err != nil {
		return err
	}
	tr.jobs = nil
	var x *typedExtractor
	chk := newGoChecker(tr.fset, g.pkgs, r.o.Workers, func(cp *checkedPackage) {
		if cp.typeErr != "" && !cp.cgo {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			for _, name := range cp.pkg.GoFiles {
				if p, ok := g.rel.of(name); ok && g.owner[p] == cp.pkg {
					tr.typeErrs[p] = cp.typeErr
					tr.loadErrs[p] = cp.importErr
				}
			}
			return
		}
		out := x.extractPackage(cp, func(p string) bool { return want[p] })
		shape := x.shapeDigest(cp)
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.shapes[cp.pkg.ID] = shape
		for p, tf := range out {
			fr := tr.results[p]
			if fr == nil {
				continue // unreadable a moment ago: recorded as failed
			}
			fr.Nodes, fr.Edges, fr.Refs = tf.Nodes, tf.Edges, nil
			tr.typed[p] = true
			delete(tr.typeErrs, p)
			tr.jobs = append(tr.jobs, tf.impl...)
			if fr.Decl != nil {
				fr.Decl.impl, fr.Decl.implKnown = nil, false
			}
		}
	})
	x = newTypedExtractor(tr.fset, g.rel, g, chk.typesOf)
	var declOnly []string
	if tree {
		declOnly = tr.plainIDs
	}
	n, err := chk.run(r.ctx, ids, declOnly)
	if err != nil {
		return err
	}
	r.st.GoPackagesChecked += n
	r.phase("go type-check and extract")
	if !tree {
		return nil
	}
	treeSet, digest := x.treeInterfaces(tr.plainIDs)
	tr.interfaces = digest
	outside := map[string]*implCandidates{}
	variant := map[string]*implCandidates{} // by test variant ID
	sort.Slice(tr.jobs, func(i, j int) bool {
		if tr.jobs[i].path != tr.jobs[j].path {
			return tr.jobs[i].path < tr.jobs[j].path
		}
		return tr.jobs[i].uid < tr.jobs[j].uid
	})
	for _, j := range tr.jobs {
		oc, ok := outside[j.pkg.ID]
		if !ok {
			oc = x.outsideInterfaces(j.pkg)
			outside[j.pkg.ID] = oc
		}
		sets := []*implCandidates{treeSet, oc}
		if j.pkg.ForTest != "" && strings.HasSuffix(j.path, "_test.go") {
			vc, ok := variant[j.pkg.ID]
			if !ok {
				vc = x.variantInterfaces(j.pkg)
				variant[j.pkg.ID] = vc
			}
			sets = append(sets, vc)
		}
		edges, nodes := implementsEdges(j.uid, x.plainTypeName(j, tr.plainOf), tr.fset.Position(j.tn.Pos()).Line, sets...)
		tr.addImpl(j.path, edges, nodes)
	}
	for p := range want {
		if fr := tr.results[p]; fr != nil && fr.Decl != nil && tr.typed[p] {
			fr.Decl.implKnown = true
		}
	}
	r.phase("go implements")
	return nil
}

// addImpl appends implements edges (and outside interfaces' stubs) to a
// file's result and to its declarations record, for reuse.
func (tr *typedRun) addImpl(p string, edges []graph.Edge, nodes []graph.Node) {
	fr := tr.results[p]
	if fr == nil {
		return
	}
	fr.Edges = append(fr.Edges, edges...)
	fr.Nodes = append(fr.Nodes, nodes...)
	if fr.Decl == nil {
		return
	}
	stubs := map[string]string{}
	for _, n := range nodes {
		stubs[n.UID] = n.Label
	}
	for _, e := range edges {
		set, _ := e.Metadata[graph.MetaMethodSet].(string)
		fr.Decl.impl = append(fr.Decl.impl, implRecord{Source: e.Source, Target: e.Target, Line: e.Line, MethodSet: set, Stub: stubs[e.Target]})
	}
}

// reuseImpl gives the files of the last pass the implements edges cached
// from the run that last extracted them; false (nothing changed) when one
// of them has none cached.
func (tr *typedRun) reuseImpl(dc *declCache) bool {
	byFile := map[string]bool{}
	for _, j := range tr.jobs {
		byFile[j.path] = true
	}
	for p := range byFile {
		if rec, ok := dc.Decls[p]; !ok || !rec.ImplKnown {
			return false
		}
	}
	for p, isTyped := range tr.typed {
		fr := tr.results[p]
		if !isTyped || fr == nil || fr.Decl == nil {
			continue
		}
		rec := dc.Decls[p]
		if !byFile[p] {
			fr.Decl.implKnown = true // no named type: no implements edge
			continue
		}
		var edges []graph.Edge
		var nodes []graph.Node
		for _, ir := range rec.Impl {
			edges = append(edges, graph.Edge{Source: ir.Source, Target: ir.Target, Type: graph.EdgeImplements, Extractor: ExtractorGo, Line: ir.Line,
				Metadata: map[string]any{graph.MetaMethodSet: ir.MethodSet}})
			if ir.Stub != "" {
				nodes = append(nodes, graph.Node{UID: ir.Target, Kind: graph.KindExternal, Label: ir.Stub, Extractor: ExtractorGo, Metadata: map[string]any{"stub": true}})
			}
		}
		tr.addImpl(p, edges, nodes)
		fr.Decl.implKnown = true
	}
	return true
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

// dirOf is path.Dir with "" for the root.
func dirOf(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}
