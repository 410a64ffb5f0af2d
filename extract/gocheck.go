package extract

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"go/version"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/cos-dev/cos/extract/lang"

	"golang.org/x/tools/go/packages"
)

// checkedPackage is one package type-checked with its function bodies, as
// handed to goChecker.onPackage. Its syntax and Info are dropped once the
// callback returns.
type checkedPackage struct {
	pkg   *packages.Package
	types *types.Package
	info  *types.Info
	// files are the parsed GoFiles, in order; names their absolute names.
	files []*ast.File
	names []string
	// typeErr is the first hard type error ("" when the package
	// type-checked); soft errors (an unused variable or import) leave the
	// types complete and are not reported.
	typeErr string
	// cgo is set when a file imports "C": go/types sees a fake, empty C
	// package, so type errors about C values are expected and the types
	// found are kept (typeErr is then informational).
	cgo bool
	// syntaxErr is set when a file did not parse or could not be read.
	syntaxErr bool
	// importErr is set when an import of the package failed (a package
	// missing from the module cache): its type errors are load errors.
	importErr bool
	// parseErrs are the syntax errors of each file, by absolute name.
	parseErrs map[string][]string
}

// goChecker type-checks packages from source in dependency order, the
// dependencies of the extracted packages without function bodies (their
// declarations are all an importer sees). It plays the part of
// go/packages' LoadAllSyntax, but holds a package's syntax and Info only
// while onPackage runs, so peak memory is the types of the whole program
// plus a few packages' syntax, not the syntax of all of them.
type goChecker struct {
	fset  *token.FileSet
	pkgs  map[string]*packages.Package
	sizes types.Sizes
	// workers bounds the packages parsed and checked at once.
	workers int
	// onPackage is called for each package of the extract set after its
	// check, from the goroutine that checked it; it must be safe for
	// concurrent use.
	onPackage func(*checkedPackage)
	// onChecked, when set, is called under progressMu after each package's
	// check with (checked so far, packages of the run).
	onChecked  func(done, total int)
	progressMu sync.Mutex

	// state is filled before any check starts; each entry's types is
	// written by its own goroutine before its done channel closes and
	// read only after.
	state map[string]*checkState
	// decls are the files of the checks without bodies, parsed once
	// (set by run before any check starts).
	decls *declSyntax
}

// checkState is the outcome of one package's check.
type checkState struct {
	done  chan struct{}
	types *types.Package
	// deps are the IDs this package waits for (import cycles cut).
	deps []string
}

func newGoChecker(fset *token.FileSet, pkgs map[string]*packages.Package, workers int, onPackage func(*checkedPackage)) *goChecker {
	arch := os.Getenv("GOARCH")
	if arch == "" {
		arch = runtime.GOARCH
	}
	sizes := types.SizesFor("gc", arch)
	if sizes == nil {
		sizes = types.SizesFor("gc", "amd64")
	}
	return &goChecker{fset: fset, pkgs: pkgs, sizes: sizes, workers: max(workers, 1), onPackage: onPackage, state: map[string]*checkState{}}
}

// run checks the packages of extract (IDs) with bodies, and the packages
// of declOnly and every package imported, transitively, without; it
// returns how many packages were checked, and ctx's error when ctx ended
// first (the packages whose check had begun are finished, and handed to
// onPackage, before it returns).
func (c *goChecker) run(ctx context.Context, extract map[string]bool, declOnly []string) (int, error) {
	// The packages needed, with import cycles cut (go list -e reports a
	// cycle as an error but may still list its edges).
	const (
		unvisited = iota
		visiting
		visited
	)
	mark := map[string]int{}
	var order []string
	var visit func(id string)
	visit = func(id string) {
		mark[id] = visiting
		p := c.pkgs[id]
		st := &checkState{done: make(chan struct{})}
		c.state[id] = st
		imports := importIDs(p)
		for _, path := range slices.Sorted(maps.Keys(imports)) {
			dep := imports[path]
			switch mark[dep] {
			case visiting:
				continue // a cycle: the import fails to resolve
			case unvisited:
				if _, ok := c.pkgs[dep]; !ok {
					continue
				}
				visit(dep)
			}
			st.deps = append(st.deps, dep)
		}
		mark[id] = visited
		order = append(order, id)
	}
	roots := slices.Sorted(maps.Keys(extract))
	roots = append(roots, declOnly...)
	for _, id := range roots {
		if mark[id] == unvisited {
			if _, ok := c.pkgs[id]; ok {
				visit(id)
			}
		}
	}
	c.decls = newDeclSyntax(order, c.pkgs, extract)
	sem := make(chan struct{}, c.workers)
	var wg sync.WaitGroup
	checked := 0 // guarded by progressMu
	for _, id := range order {
		st := c.state[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(st.done)
			for _, d := range st.deps {
				<-c.state[d].done
			}
			if ctx.Err() != nil {
				return
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			c.check(id, st, extract[id])
			c.progressMu.Lock()
			checked++
			if c.onChecked != nil {
				c.onChecked(checked, len(order))
			}
			c.progressMu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return checked, err // every goroutine is done: no lock needed
	}
	return len(order), nil
}

// importIDs maps p's import paths (as written in its files) to package IDs.
func importIDs(p *packages.Package) map[string]string {
	m := make(map[string]string, len(p.Imports))
	for path, d := range p.Imports {
		m[path] = d.ID
	}
	return m
}

// check parses and type-checks one package; with bodies it also fills a
// types.Info and hands the result to onPackage.
func (c *goChecker) check(id string, st *checkState, bodies bool) {
	p := c.pkgs[id]
	if p.PkgPath == "unsafe" {
		// Importers see go/types' own unsafe; its documentation source is
		// checked only to be extracted.
		st.types = types.Unsafe
		if !bodies {
			return
		}
		st = &checkState{}
	}
	cp := &checkedPackage{pkg: p, parseErrs: map[string][]string{}}
	if bodies {
		cp.parse(c.fset)
	} else {
		// Only the declarations are read: the files are shared with the
		// package's other variants (declSyntax).
		for _, name := range p.GoFiles {
			if f := c.decls.file(c.fset, name); f != nil {
				cp.files = append(cp.files, f)
			}
		}
	}
	var firstErr string
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			tp, err := c.importPackage(p, path)
			if err != nil {
				cp.importErr = true
			}
			return tp, err
		}),
		FakeImportC:      true,
		IgnoreFuncBodies: !bodies,
		Sizes:            c.sizes,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) && te.Soft {
				return
			}
			if firstErr == "" {
				firstErr = errString(err)
			}
		},
	}
	// The language version of the module (go.mod's go line), as the
	// compiler applies it; file-level //go:build go1.N lines still win.
	if p.Module != nil && p.Module.GoVersion != "" {
		if v := "go" + p.Module.GoVersion; version.IsValid(v) {
			conf.GoVersion = v
		}
	}
	if bodies {
		cp.info = &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
			Instances:  map[*ast.Ident]types.Instance{},
		}
	}
	tp, _ := conf.Check(p.PkgPath, c.fset, cp.files, cp.info)
	st.types = tp
	if !bodies {
		return
	}
	if len(cp.parseErrs) > 0 {
		// The type errors follow from the syntax ones: name the first of
		// those (in file order).
		for _, name := range p.GoFiles {
			if errs := cp.parseErrs[name]; len(errs) > 0 {
				firstErr = errString(errors.New(errs[0]))
				break
			}
		}
		cp.syntaxErr = true
	}
	cp.types, cp.typeErr = tp, firstErr
	c.onPackage(cp)
}

// parse reads and parses the package's files with their comments (build
// constraints and directives stay visible) and bodies, recording each
// file's syntax errors and whether it imports "C".
func (cp *checkedPackage) parse(fset *token.FileSet) {
	for _, name := range cp.pkg.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			cp.parseErrs[name] = append(cp.parseErrs[name], err.Error())
			continue
		}
		f, err := parser.ParseFile(fset, name, lang.SourceText(src), parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			if list, ok := err.(scanner.ErrorList); ok {
				for _, e := range list {
					cp.parseErrs[name] = append(cp.parseErrs[name], e.Error())
				}
			} else {
				cp.parseErrs[name] = append(cp.parseErrs[name], err.Error())
			}
		}
		if f != nil {
			for _, imp := range f.Imports {
				if imp.Path.Value == `"C"` {
					cp.cgo = true
				}
			}
			cp.files = append(cp.files, f)
			cp.names = append(cp.names, name)
		}
	}
}

// importPackage resolves an import of p, once its check has finished.
func (c *goChecker) importPackage(p *packages.Package, path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	d, ok := p.Imports[path]
	if !ok {
		return nil, fmt.Errorf("package %q is not listed", path)
	}
	st, ok := c.state[d.ID]
	if !ok {
		return nil, fmt.Errorf("package %q was not loaded", path)
	}
	if len(d.Errors) > 0 && len(d.GoFiles) == 0 {
		return nil, fmt.Errorf("package %q could not be loaded: %v", path, d.Errors[0])
	}
	select {
	case <-st.done:
	default:
		return nil, fmt.Errorf("import cycle through %q", path)
	}
	if st.types == nil {
		return nil, fmt.Errorf("package %q did not type-check", path)
	}
	return st.types, nil
}

// typesOf returns the checked package of an ID, nil when it was not checked.
func (c *goChecker) typesOf(id string) *types.Package {
	st, ok := c.state[id]
	if !ok {
		return nil
	}
	select {
	case <-st.done:
		return st.types
	default:
		return nil
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
