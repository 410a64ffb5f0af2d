package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cos-dev/cos/scripts/internal/calloracle"
)

const fixture = "../internal/calloracle/testdata"

// The oracle on the 2-file C fixture prints exactly the calls of
// testdata/c.jsonl, which the comparison's tests score.
func TestOracle_Fixture(t *testing.T) {
	clang, err := findClang()
	if err != nil {
		t.Skip(err)
	}
	root, err := filepath.Abs(filepath.Join(fixture, "c"))
	if err != nil {
		t.Fatal(err)
	}
	us, err := units(project{}, root)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	counts, err := runOracle(context.Background(), clang, root, us, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := calloracle.Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "c.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := calloracle.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Files, want.Files) {
		t.Errorf("files = %v, want %v", got.Files, want.Files)
	}
	if !reflect.DeepEqual(got.Calls, want.Calls) {
		t.Errorf("calls differ:\n got %+v\nwant %+v", got.Calls, want.Calls)
	}
	// f(4) goes through a function pointer: no callee.
	if counts["indirect"] != 1 || counts["units"] != 2 {
		t.Errorf("counts = %v, want 1 indirect call, 2 units", counts)
	}
}

// A location the dumper abbreviates takes the file and line of the one
// before it; a macro use is its expansion location.
func TestLocState_Abbreviated(t *testing.T) {
	dump := `{"id":"0x1","kind":"TranslationUnitDecl","inner":[
	 {"id":"0x2","kind":"FunctionDecl","loc":{"offset":4,"file":"a.c","line":3,"col":5},"range":{"begin":{"offset":0,"col":1},"end":{"offset":40,"line":5,"col":1}},"name":"f","mangledName":"f","inner":[
	  {"id":"0x3","kind":"CompoundStmt","range":{"begin":{"offset":10,"line":3,"col":9},"end":{"offset":40,"line":5,"col":1}},"inner":[
	   {"id":"0x4","kind":"CallExpr","range":{"begin":{"offset":12,"line":4,"col":3},"end":{"offset":14,"col":5}},"inner":[
	    {"id":"0x5","kind":"ImplicitCastExpr","range":{"begin":{"offset":12,"col":3},"end":{"offset":12,"col":3}},"inner":[
	     {"id":"0x6","kind":"DeclRefExpr","range":{"begin":{"offset":12,"col":3},"end":{"offset":12,"col":3}},"referencedDecl":{"id":"0x2","kind":"FunctionDecl","name":"f"}}]}]},
	   {"id":"0x7","kind":"CallExpr","range":{"begin":{"spellingLoc":{"offset":1,"file":"m.h","line":1,"col":1},"expansionLoc":{"offset":20,"file":"a.c","line":4,"col":9}},"end":{"spellingLoc":{"offset":2,"file":"m.h","line":1,"col":2},"expansionLoc":{"offset":20,"file":"a.c","line":4,"col":9}}},"inner":[
	    {"id":"0x8","kind":"DeclRefExpr","range":{"begin":{"spellingLoc":{"offset":1,"file":"m.h","line":1,"col":1},"expansionLoc":{"offset":20,"file":"a.c","line":4,"col":9}},"end":{"spellingLoc":{"offset":1,"file":"m.h","line":1,"col":1},"expansionLoc":{"offset":20,"file":"a.c","line":4,"col":9}}},"referencedDecl":{"id":"0x2","kind":"FunctionDecl","name":"f"}}]}]}]}]}`
	v := newTUVisitor("/p", "/p", map[string]int{}, map[string][]string{})
	if err := walk(strings.NewReader(dump), v); err != nil {
		t.Fatal(err)
	}
	f := v.idx.decls["0x2"]
	if f == nil || f.Place != (calloracle.Place{File: "a.c", Line: 3, EndLine: 5}) {
		t.Fatalf("f = %+v, want a.c lines 3-5", f)
	}
	if len(v.idx.calls) != 2 {
		t.Fatalf("calls = %+v, want 2", v.idx.calls)
	}
	if c := v.idx.calls[0]; c.Site != (calloracle.Site{File: "a.c", Line: 4, Col: 3}) || c.Macro || c.Caller.Name != "f" {
		t.Errorf("first call = %+v, want a.c:4:3 in f", c)
	}
	if c := v.idx.calls[1]; c.Site != (calloracle.Site{File: "a.c", Line: 4, Col: 9}) || !c.Macro {
		t.Errorf("macro call = %+v, want a.c:4:9 from a macro", c)
	}
	if d := v.idx.byKey["f"].Def; d == nil || *d != (calloracle.Place{File: "a.c", Line: 3, EndLine: 5}) {
		t.Errorf("definition of f = %+v", v.idx.byKey["f"].Def)
	}
}
