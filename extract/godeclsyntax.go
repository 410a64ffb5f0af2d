package extract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sync"

	"github.com/cos-dev/cos/extract/lang"

	"golang.org/x/tools/go/packages"
)

// declSyntax holds the parsed files of the packages a goChecker checks
// without function bodies, each file parsed once and shared by every such
// check that reads it. A package recompiled for a test ("q [p.test]")
// has the files of its plain package: on GOROOT/src about 1,500 such
// variants read 10,000 files, so without sharing each file of a low-level
// package is parsed once per test that recompiles it.
//
// A shared file has its function bodies emptied (an empty block spanning
// the old one: the declarations, positions and scope extents stay as
// parsed), so holding it costs little; it is dropped after the last check
// that reads it. go/types only reads the syntax it checks, so concurrent
// checks may share a file.
type declSyntax struct {
	// mu guards files and each entry's uses.
	mu    sync.Mutex
	files map[string]*declFile
}

// declFile is one file of declSyntax.
type declFile struct {
	once sync.Once
	f    *ast.File // nil when the file could not be read
	// uses counts the checks still to read the file (guarded by
	// declSyntax.mu).
	uses int
}

// newDeclSyntax counts, for the packages of order that are checked
// without bodies (not in extract), how many checks read each file.
func newDeclSyntax(order []string, pkgs map[string]*packages.Package, extract map[string]bool) *declSyntax {
	d := &declSyntax{files: map[string]*declFile{}}
	for _, id := range order {
		p := pkgs[id]
		if extract[id] || p.PkgPath == "unsafe" {
			continue
		}
		for _, name := range p.GoFiles {
			e := d.files[name]
			if e == nil {
				e = &declFile{}
				d.files[name] = e
			}
			e.uses++
		}
	}
	return d
}

// file returns the parsed file name (its function bodies emptied), nil
// when it cannot be read; a file with syntax errors is returned as far as
// it parsed. The entry is dropped with its last use.
func (d *declSyntax) file(fset *token.FileSet, name string) *ast.File {
	d.mu.Lock()
	e := d.files[name]
	d.mu.Unlock()
	if e == nil { // not counted: parse it for this check alone
		e = &declFile{uses: 1}
	}
	e.once.Do(func() { e.f = parseDeclOnly(fset, name) })
	d.mu.Lock()
	e.uses--
	if e.uses <= 0 {
		delete(d.files, name)
	}
	d.mu.Unlock()
	return e.f
}

// len is the number of files still held.
func (d *declSyntax) len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.files)
}

// parseDeclOnly parses a file for a check without bodies: no comments, no
// object resolution, every function body emptied.
func parseDeclOnly(fset *token.FileSet, name string) *ast.File {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	f, _ := parser.ParseFile(fset, name, lang.SourceText(src), parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
			fd.Body = &ast.BlockStmt{Lbrace: fd.Body.Lbrace, Rbrace: fd.Body.Rbrace}
		}
	}
	return f
}
