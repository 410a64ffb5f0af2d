package extract

import (
	"go/build"
	"path"
	"path/filepath"
	"sort"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// typedGo is the type-checked pass over Go files. It runs after the
// changed files and their syntax dependents were extracted (results) and
// before resolution, and replaces the syntax edges of every Go file it can
// type-check with exact ones (typedRun.pass). Nothing is listed or checked
// when no Go file changed.
//
// Which packages, with the declarations cache dc of the previous run:
//
//  1. The seeds — packages holding a changed, re-extracted or removed Go
//     file — listed alone (go list of their folders) and checked. When
//     none of their shapes (shapeDigest: what importers see and point at)
//     changed and no package folder vanished, no other file's edges can
//     change: the seeds' implements edges are the cached ones. Done.
//  2. Otherwise the whole tree is listed, and the seeds and every package
//     importing a changed one, transitively, are checked again, with all
//     of the tree's interfaces for implements.
//  3. If the digest of the tree's interfaces changed, the packages
//     declaring a type with every method name of a changed interface
//     are too (implementerPackages); every package when the cache lacks
//     the records that tell them.
//
// Without a cache, or when a go.mod changed, every package is extracted
// in one pass. A file that cannot be type-checked keeps its syntax edges,
// and its file node says why (classifyFallbacks).
//
// When ctx ends while packages are checked, it returns ctx's error and
// kept, the Go files of the packages the interrupted pass had extracted:
// their results are complete but for implements edges towards interfaces
// of packages not checked yet, and dc is left as it was.
func (r *runner) typedGo(results map[string]*lang.Result, present map[string]string, byPath map[string]entry, e *lang.Env, removed []string, modsChanged bool, dc *declCache) (kept map[string]bool, err error) {
	in := goInputs(present, byPath)
	need := modsChanged && len(in.files) > 0
	for p := range results {
		need = need || extractorFor(p) == lang.ExtractorGo
	}
	for _, p := range removed {
		need = need || extractorFor(p) == lang.ExtractorGo
	}
	if !need {
		return nil, nil
	}
	if !goAvailable() {
		for p, fr := range results {
			if extractorFor(p) == lang.ExtractorGo {
				r.markSyntax(fr, graph.FallbackGoUnavailable, "go not found on PATH")
			}
		}
		return nil, nil
	}
	if len(in.modDirs) == 0 || in.modDirs[0] != "" {
		in.enclosing, _ = enclosingModule(r.root)
	}
	full := modsChanged || dc.Shapes == nil || dc.Interfaces == ""
	tr := newTypedRun(r, results, byPath, e)
	tr.noModule = len(in.modDirs) == 0 && in.enclosing == ""
	defer func() {
		if err != nil && r.ctx.Err() != nil {
			kept = tr.kept
		}
	}()
	if full {
		err = tr.listAll(in)
	} else {
		err = tr.listFolders(in, results, removed)
	}
	if err != nil {
		return nil, err
	}

	seeds := map[string]bool{}
	for p := range results {
		if o := tr.g.owner[p]; o != nil {
			seeds[o.PkgPath] = true
		}
	}
	// A removed file's package changed shape; a folder with no Go file
	// left is a package gone, whose importers must be extracted again.
	var gone []string
	for _, p := range removed {
		if extractorFor(p) != lang.ExtractorGo {
			continue
		}
		if pps := tr.byDir[dirOf(p)]; len(pps) > 0 {
			for _, pp := range pps {
				seeds[pp] = true
			}
		} else {
			gone = append(gone, dc.GoDirs[dirOf(p)]...)
		}
	}
	if full {
		seeds = tr.allPaths
		tr.methodsAll = true
	}
	if err := tr.pass(seeds, full); err != nil {
		return nil, err
	}
	if !full {
		changed := gone
		for id, d := range tr.shapes {
			if dc.Shapes[id] != d {
				changed = append(changed, tr.g.pkgs[id].PkgPath)
			}
		}
		if len(changed) == 0 && tr.reuseImpl(dc) {
			r.o.Logger.Debug("go: no package's shape changed", "seeds", len(seeds))
		} else if err := tr.importersPass(in, seeds, changed, dc); err != nil {
			return nil, err
		}
	}
	tr.save(dc, full)
	tr.classifyFallbacks()
	return nil, nil
}

// goInputs are the tree's Go files and go.mod folders.
type goInputFiles struct {
	files     map[string]string // repo-relative Go file → absolute path on disk
	modDirs   []string          // repo-relative folders holding a go.mod, sorted ("" the root)
	enclosing string            // the module folder above the root, if any
}

func goInputs(present map[string]string, byPath map[string]entry) goInputFiles {
	in := goInputFiles{files: map[string]string{}}
	for p := range present {
		switch {
		case extractorFor(p) == lang.ExtractorGo:
			in.files[p] = byPath[p].Abs
		case path.Base(p) == "go.mod":
			in.modDirs = append(in.modDirs, dirOf(p))
		}
	}
	sort.Strings(in.modDirs)
	return in
}

// classifyFallbacks counts the typed files and marks every other Go file
// of results with the reason it kept its syntax edges.
func (tr *typedRun) classifyFallbacks() {
	r, g := tr.r, tr.g
	for p, fr := range tr.results {
		if extractorFor(p) != lang.ExtractorGo {
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
		case tr.syntaxErrs[p]:
			r.markSyntax(fr, graph.FallbackSyntaxError, tr.typeErrs[p])
		case tr.typeErrs[p] != "":
			r.markSyntax(fr, graph.FallbackTypeError, tr.typeErrs[p])
		case g.owner[p] != nil:
			r.markSyntax(fr, graph.FallbackTypeError, "not type-checked")
		case g.ignored[p] || g.listedDirs[path.Dir(p)]:
			r.markSyntax(fr, graph.FallbackBuildExcluded, "")
		case !buildMatches(tr.byPath[p].Abs):
			r.markSyntax(fr, graph.FallbackBuildExcluded, "")
		case tr.noModule:
			r.markSyntax(fr, graph.FallbackNotInPackage, "no go.mod in or above the indexed folder")
		default:
			r.markSyntax(fr, graph.FallbackNotInPackage, "")
		}
	}
}

// markSyntax records on a Go file's nodes that its edges come from the
// syntax alone, and why; a build-excluded file's declarations carry
// graph.MetaBuildExcluded too.
func (r *runner) markSyntax(fr *lang.Result, reason, detail string) {
	if r.st.GoFallback == nil {
		r.st.GoFallback = map[string]int{}
	}
	r.st.GoFallback[reason]++
	fu := lang.FileUID(fr.Path)
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
				n.Metadata[graph.MetaFallbackDetail] = lang.CleanString(detail)
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
