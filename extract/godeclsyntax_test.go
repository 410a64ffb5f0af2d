package extract

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestDeclSyntax_SharedOnceThenDropped: a file read by two checks without
// bodies (a package and its variant recompiled for a test) is parsed once,
// both get the same syntax with its function bodies emptied over their old
// span, and it is dropped after its last use; a package checked with
// bodies does not count.
func TestDeclSyntax_SharedOnceThenDropped(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "b.go")
	src := "package b\n\nimport \"example.com/a\"\n\nfunc F() a.T {\n\tvar x a.T\n\treturn x\n}\n\nvar V = func() int { return 1 }\n"
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]*packages.Package{
		"example.com/b":                      {ID: "example.com/b", PkgPath: "example.com/b", GoFiles: []string{name}},
		"example.com/b [example.com/a.test]": {ID: "example.com/b [example.com/a.test]", PkgPath: "example.com/b", GoFiles: []string{name}},
		"example.com/c":                      {ID: "example.com/c", PkgPath: "example.com/c", GoFiles: []string{name}},
	}
	order := []string{"example.com/b", "example.com/b [example.com/a.test]", "example.com/c"}
	d := newDeclSyntax(order, pkgs, map[string]bool{"example.com/c": true})
	if got := d.files[name].uses; got != 2 {
		t.Fatalf("uses = %d, want 2 (the package checked with bodies does not count)", got)
	}
	fset := token.NewFileSet()
	var wg sync.WaitGroup
	files := make([]*ast.File, 2)
	for i := range files {
		wg.Go(func() { files[i] = d.file(fset, name) })
	}
	wg.Wait()
	if files[0] == nil || files[0] != files[1] {
		t.Fatalf("the two checks got %p and %p, want one shared file", files[0], files[1])
	}
	n := 0
	fset.Iterate(func(*token.File) bool { n++; return true })
	if n != 1 {
		t.Errorf("the file set holds %d files, want 1 (one parse)", n)
	}
	if got := d.len(); got != 0 {
		t.Errorf("%d files still held after their last use, want 0", got)
	}
	fd := files[0].Decls[1].(*ast.FuncDecl)
	if fd.Body == nil || len(fd.Body.List) != 0 {
		t.Fatalf("body of F = %v, want an empty block", fd.Body)
	}
	if got, want := fset.Position(fd.Body.Rbrace).Line, 8; got != want {
		t.Errorf("F's body ends on line %d, want %d (the old span)", got, want)
	}
	// A file nobody counted is parsed for the one check that asks.
	if f := d.file(fset, name); f == nil || f == files[0] {
		t.Errorf("an uncounted read got %p, want a parse of its own", f)
	}
	if got := d.len(); got != 0 {
		t.Errorf("an uncounted read left %d files held, want 0", got)
	}
}
