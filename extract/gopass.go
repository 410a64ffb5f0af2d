package extract

import (
	"go/token"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// typedRun is the state of typedGo's passes.
type typedRun struct {
	r        *runner
	results  map[string]*lang.Result
	byPath   map[string]entry
	e        *lang.Env
	fset     *token.FileSet
	plainIDs []string
	plainOf  map[string]string

	// g is the package graph listed last; full says it covers the whole
	// tree (not only the seeds' folders). importers, pathImporters,
	// byDir and allPaths are derived from it: package ID → IDs of the
	// listed packages importing it (test variants and packages recompiled
	// for a test included), import path → IDs of the listed packages
	// importing a package of that path, folder → import paths of its
	// packages, every import path.
	g             *goPackageGraph
	full          bool
	noModule      bool // no go.mod in the tree or above it
	importers     map[string][]string
	pathImporters map[string][]string
	byDir         map[string][]string
	allPaths      map[string]bool

	// mu guards the maps below and results' values while a pass runs.
	mu    sync.Mutex
	typed map[string]bool // files extracted with types
	// passTyped are the files extracted with types by the current pass
	// (kept when a cancel stops it: see typedGo).
	passTyped map[string]bool
	// kept are the files a cancelled pass finished (cancelled).
	kept       map[string]bool
	typeErrs   map[string]string // files whose package did not type-check
	loadErrs   map[string]bool   // … because an import failed
	syntaxErrs map[string]bool   // … because a file of it does not parse
	shapes     map[string]string // package ID → shapeDigest, of the packages extracted
	jobs       []implJob         // the last pass's named types
	// interfaces is the digest of the tree's interfaces, once a pass saw
	// the whole tree, and ifaces the record of each, by uid.
	interfaces string
	ifaces     map[string]ifaceRecord
	// methods maps the import path of each package a pass extracted to
	// the method names of its named types (methodNames), those of its
	// test files included; methodsAll says every package of the tree was.
	methods    map[string][][]string
	methodsAll bool
}

func newTypedRun(r *runner, results map[string]*lang.Result, byPath map[string]entry, e *lang.Env) *typedRun {
	return &typedRun{r: r, results: results, byPath: byPath, e: e, fset: token.NewFileSet(),
		typed: map[string]bool{}, typeErrs: map[string]string{}, loadErrs: map[string]bool{}, syntaxErrs: map[string]bool{}, shapes: map[string]string{},
		methods: map[string][][]string{}}
}

// listAll lists every package of the tree.
func (tr *typedRun) listAll(in goInputFiles) error {
	roots := goListRoots(tr.r.root, in.modDirs, in.enclosing)
	planWorkspaces(roots, tr.r.root, in.modDirs, tr.r.o.OtherRoots, tr.r.build.flags)
	g, err := loadGoPackageGraph(tr.r.ctx, tr.r.root, roots, in.files, tr.r.build.flags, tr.r.o.OtherRoots)
	tr.r.phase("go list")
	if err != nil {
		return err
	}
	tr.use(g, true)
	return nil
}

// listFolders lists the packages of the folders holding a changed or
// removed Go file, with their tests and dependencies.
func (tr *typedRun) listFolders(in goInputFiles, results map[string]*lang.Result, removed []string) error {
	dirs := map[string]bool{}
	for p := range results {
		if extractorFor(p) == lang.ExtractorGo {
			dirs[dirOf(p)] = true
		}
	}
	for _, p := range removed {
		if extractorFor(p) == lang.ExtractorGo {
			dirs[dirOf(p)] = true
		}
	}
	live := map[string]bool{} // folders that still hold a Go file
	for p := range in.files {
		live[dirOf(p)] = true
	}
	for d := range dirs {
		if !live[d] {
			delete(dirs, d)
		}
	}
	roots := narrowListRoots(tr.r.root, in.modDirs, in.enclosing, slices.Sorted(maps.Keys(dirs)))
	planWorkspaces(roots, tr.r.root, in.modDirs, tr.r.o.OtherRoots, tr.r.build.flags)
	g, err := loadGoPackageGraph(tr.r.ctx, tr.r.root, roots, in.files, tr.r.build.flags, tr.r.o.OtherRoots)
	tr.r.phase("go list (touched folders)")
	if err != nil {
		return err
	}
	tr.use(g, false)
	return nil
}

// use makes g the package graph of the next passes.
func (tr *typedRun) use(g *goPackageGraph, full bool) {
	tr.g, tr.full = g, full
	tr.plainIDs, tr.plainOf = g.plainPackages()
	tr.importers, tr.pathImporters, tr.byDir, tr.allPaths = map[string][]string{}, map[string][]string{}, map[string][]string{}, map[string]bool{}
	for id, files := range g.inTree {
		p := g.pkgs[id]
		tr.allPaths[p.PkgPath] = true
		for _, f := range files {
			if d := dirOf(f); !slices.Contains(tr.byDir[d], p.PkgPath) {
				tr.byDir[d] = append(tr.byDir[d], p.PkgPath)
			}
		}
	}
	for id, p := range g.pkgs {
		for _, d := range p.Imports {
			tr.importers[d.ID] = append(tr.importers[d.ID], id)
			tr.pathImporters[d.PkgPath] = append(tr.pathImporters[d.PkgPath], id)
		}
	}
}

// importersOf returns the import paths of the tree's packages that import
// a package of one of the import paths changed, directly or through other
// packages. It follows the imports of each package as listed (by ID): a
// package whose test alone imports a changed one has its own files
// extracted again, not its importers (they import the package without its
// test files).
func (tr *typedRun) importersOf(changed []string) map[string]bool {
	seen := map[string]bool{}
	var queue []string
	for _, pp := range changed {
		queue = append(queue, tr.pathImporters[pp]...)
	}
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		queue = append(queue, tr.importers[id]...)
	}
	out := map[string]bool{}
	for id := range seen {
		if _, ok := tr.g.inTree[id]; ok {
			out[tr.g.pkgs[id].PkgPath] = true
		}
	}
	return out
}

// importersPass lists the whole tree and extracts the seeds and every
// package importing one of changed (import paths), transitively
// (importersOf), with
// the tree's interfaces. When the tree's interfaces no longer have the
// cached digest, the packages declaring a type with every method name of
// an interface that changed (in its old or its new version) are extracted
// too: only their types can gain or lose an implements edge (the method
// sets of the other packages' types are those of the last run, since
// their package and what it imports kept their shapes). Every package is
// when the cache does not say which interfaces and method names the tree
// had.
func (tr *typedRun) importersPass(in goInputFiles, seeds map[string]bool, changed []string, dc *declCache) error {
	if err := tr.listAll(in); err != nil {
		return err
	}
	set := tr.importersOf(changed)
	for pp := range seeds {
		set[pp] = true
	}
	tr.r.o.Logger.Debug("go: shapes changed", "packages", len(changed), "extracting", len(set))
	if err := tr.pass(set, true); err != nil {
		return err
	}
	if tr.interfaces == dc.Interfaces || len(set) >= len(tr.allPaths) {
		return nil
	}
	if dc.GoInterfaces == nil || dc.GoMethods == nil {
		tr.r.o.Logger.Debug("go: the tree's interfaces changed and the cache lacks their records: every package is extracted again")
		tr.methodsAll = true
		return tr.pass(tr.allPaths, true)
	}
	ifaces := changedInterfaces(dc.GoInterfaces, tr.ifaces)
	extra := map[string]bool{}
	for pp := range implementerPackages(ifaces, dc.GoMethods) {
		if !set[pp] && tr.allPaths[pp] {
			extra[pp] = true
		}
	}
	tr.r.o.Logger.Debug("go: the tree's interfaces changed", "interfaces", len(ifaces), "extracting", len(extra))
	if len(extra) == 0 {
		return nil
	}
	return tr.pass(extra, true)
}

// save records the shapes, the interfaces digest and the package folders
// in the declarations cache for the next run.
func (tr *typedRun) save(dc *declCache, full bool) {
	if dc.Shapes == nil || full {
		dc.Shapes = map[string]string{}
	}
	for id, d := range tr.shapes {
		dc.Shapes[id] = d
	}
	if tr.interfaces != "" {
		dc.Interfaces, dc.GoInterfaces = tr.interfaces, tr.ifaces
	}
	switch {
	case full || tr.methodsAll:
		dc.GoMethods = map[string][][]string{}
	case dc.GoMethods == nil:
		// Records of some packages only would hide the others' types from
		// implementerPackages: keep none until a pass extracts them all.
		tr.methods = nil
	}
	for pp, ms := range tr.methods {
		if len(ms) == 0 {
			delete(dc.GoMethods, pp)
		} else {
			dc.GoMethods[pp] = ms
		}
	}
	if dc.GoDirs == nil || tr.full {
		dc.GoDirs = map[string][]string{}
	}
	for d, pps := range tr.byDir {
		dc.GoDirs[d] = pps
	}
	if !tr.full {
		return
	}
	// A whole listing: forget packages that are gone.
	for id := range dc.Shapes {
		if _, ok := tr.g.inTree[id]; !ok {
			delete(dc.Shapes, id)
		}
	}
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
	for pp := range set {
		tr.methods[pp] = nil // a package that does not type-check has no implements edges
	}
	if err := r.extractAll(missing, tr.e, tr.results, false); err != nil {
		return err
	}
	tr.jobs = nil
	tr.passTyped = map[string]bool{}
	var x *typedExtractor
	chk := newGoChecker(tr.fset, g.pkgs, r.o.Workers, func(cp *checkedPackage) {
		if cp.typeErr != "" && (!cp.cgo || cp.syntaxErr) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			for _, name := range cp.pkg.GoFiles {
				if p, ok := g.rel.of(name); ok && g.owner[p] == cp.pkg {
					tr.typeErrs[p] = cp.typeErr
					tr.loadErrs[p] = cp.importErr && !cp.syntaxErr
					tr.syntaxErrs[p] = cp.syntaxErr
				}
			}
			return
		}
		out := x.extractPackage(cp, func(p string) bool { return want[p] })
		if missing := g.rel.unindexed(cp.pkg.GoFiles); len(missing) > 0 {
			detail := strings.Join(missing, ", ") + " of this package is not indexed (over the size limit, ignored or unreadable): its calls and declarations are missing"
			for _, tf := range out {
				// The file node comes first; its edges stay exact.
				tf.Nodes[0].Metadata[graph.MetaFallback] = graph.FallbackIncompletePackage
				tf.Nodes[0].Metadata[graph.MetaFallbackDetail] = lang.CleanString(detail)
			}
		}
		if mods := g.workingTree[cp.pkg.ID]; len(mods) > 0 {
			for _, tf := range out {
				tf.Nodes[0].Metadata[graph.MetaGoWorkingTree] = mods
			}
		}
		shape := x.shapeDigest(cp)
		var methods [][]string
		for _, tf := range out {
			for _, j := range tf.impl {
				if names := methodNames(j.tn); len(names) > 0 {
					methods = append(methods, names)
				}
			}
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.shapes[cp.pkg.ID] = shape
		tr.methods[cp.pkg.PkgPath] = append(tr.methods[cp.pkg.PkgPath], methods...)
		for p, tf := range out {
			fr := tr.results[p]
			if fr == nil {
				continue // unreadable a moment ago: recorded as failed
			}
			fr.Nodes, fr.Edges, fr.Refs = tf.Nodes, tf.Edges, nil
			tr.typed[p] = true
			tr.passTyped[p] = true
			delete(tr.typeErrs, p)
			tr.jobs = append(tr.jobs, tf.impl...)
			if fr.Decl != nil {
				fr.Decl.Impl, fr.Decl.ImplKnown = nil, false
			}
		}
	})
	x = newTypedExtractor(tr.fset, g.rel, g, chk.typesOf)
	var declOnly []string
	if tree {
		declOnly = tr.plainIDs
	}
	chk.onChecked = r.o.TypeChecked
	n, err := chk.run(r.ctx, ids, declOnly)
	r.st.GoPackagesChecked += n
	if err != nil {
		r.phase("go type-check and extract")
		tr.cancelled(x)
		return err
	}
	// A test variant that does not type-check (a test file being edited)
	// must not take its package's other files down with it: those are
	// extracted again from the plain package, with a checker of their own.
	retry := map[string]bool{}
	for p := range want {
		o := g.owner[p]
		if tr.typeErrs[p] == "" || o.ForTest == "" || strings.HasSuffix(p, "_test.go") {
			continue
		}
		if pid, ok := tr.plainOf[o.ID]; ok {
			g.owner[p] = g.pkgs[pid]
			retry[pid] = true
		}
	}
	if len(retry) > 0 {
		first := x
		chk = newGoChecker(tr.fset, g.pkgs, r.o.Workers, chk.onPackage)
		chk.onChecked = r.o.TypeChecked
		x = newTypedExtractor(tr.fset, g.rel, g, chk.typesOf)
		n, err := chk.run(r.ctx, retry, nil)
		r.st.GoPackagesChecked += n
		x = first // implements: against the interfaces of the first check
		if err != nil {
			r.phase("go type-check and extract")
			tr.cancelled(x)
			return err
		}
	}
	r.phase("go type-check and extract")
	if !tree {
		return nil
	}
	tr.interfaces, tr.ifaces = tr.implements(x)
	for p := range want {
		if fr := tr.results[p]; fr != nil && fr.Decl != nil && tr.typed[p] {
			fr.Decl.ImplKnown = true
		}
	}
	r.phase("go implements")
	return nil
}

// cancelled gives the files of the pass a cancel stopped (passTyped) their
// implements edges against the interfaces of the packages checked so far:
// their other edges are exact, and the next run checks them again for the
// rest (their ImplKnown stays false; see typedGo).
func (tr *typedRun) cancelled(x *typedExtractor) {
	if len(tr.passTyped) > 0 {
		tr.implements(x) // the jobs are passTyped's
	}
	tr.kept = tr.passTyped
}

// implements adds the implements edges of the pass's named types (jobs)
// against the tree's interfaces (those of the packages x checked), the
// interfaces their package imports from outside the tree and, for a test
// file, its test variant's; it returns the digest of the tree's
// interfaces and their records (treeInterfaces).
func (tr *typedRun) implements(x *typedExtractor) (string, map[string]ifaceRecord) {
	treeSet, digest, recs := x.treeInterfaces(tr.plainIDs)
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
	return digest, recs
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
		fr.Decl.Impl = append(fr.Decl.Impl, lang.ImplRecord{Source: e.Source, Target: e.Target, Line: e.Line, MethodSet: set, Stub: stubs[e.Target]})
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
			fr.Decl.ImplKnown = true // no named type: no implements edge
			continue
		}
		var edges []graph.Edge
		var nodes []graph.Node
		for _, ir := range rec.Impl {
			edges = append(edges, graph.Edge{Source: ir.Source, Target: ir.Target, Type: graph.EdgeImplements, Extractor: lang.ExtractorGo, Line: ir.Line,
				Metadata: map[string]any{graph.MetaMethodSet: ir.MethodSet}})
			if ir.Stub != "" {
				nodes = append(nodes, graph.Node{UID: ir.Target, Kind: graph.KindExternal, Label: ir.Stub, Extractor: lang.ExtractorGo, Metadata: map[string]any{"stub": true}})
			}
		}
		tr.addImpl(p, edges, nodes)
		fr.Decl.ImplKnown = true
	}
	return true
}
