package main

import (
	"strings"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
)

// occ is a hand-written occurrence: 0-based line, the name's byte
// columns, a symbol, and whether it is a definition.
type occ struct {
	line, col, end int
	sym            string
	def            bool
	enc            []int32
}

// doc builds a document from source lines and occurrences, the way
// loadIndex does (UTF-8 offsets).
func doc(t testing.TB, path string, lines []string, occs []occ) *document {
	t.Helper()
	var pb []*scippb.Occurrence
	for _, o := range occs {
		if got := lines[o.line][o.col:o.end]; o.sym != "" && !strings.Contains(o.sym, got) && !strings.HasPrefix(o.sym, "local") && !isModuleSymbol(o.sym) {
			t.Fatalf("fixture: %q at %d:%d is not named in %q", got, o.line, o.col, o.sym)
		}
		var roles int32
		if o.def {
			roles = int32(scippb.SymbolRole_Definition)
		}
		pb = append(pb, &scippb.Occurrence{Range: []int32{int32(o.line), int32(o.col), int32(o.end)}, Symbol: o.sym, SymbolRoles: roles, EnclosingRange: o.enc})
	}
	return newDocument(path, strings.Join(lines, "\n"), scippb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart, pb, map[string]string{})
}

func TestClassify(t *testing.T) {
	const mod = "scip-python python p 0 `p.util`/__init__:"
	tests := []struct {
		name   string
		lines  []string
		ts     bool
		line   int
		word   string // the callee's name, its first whole occurrence on line
		class  bool
		occs   []occ
		call   bool
		want   category
		skipCl bool // only check isCallSite
	}{
		{name: "bare call", lines: []string{"x = f(1)"}, word: "f", call: true, want: catFunction},
		{name: "bare reference", lines: []string{"x = map(f, xs)"}, word: "f", call: false, want: catFunction},
		{name: "class call", lines: []string{"c = C()"}, word: "C", class: true, call: true, want: catConstructor},
		{name: "new with type args", ts: true, lines: []string{"const s = new ns.Square<number>(2);"}, word: "Square", class: true, call: true, want: catConstructor},
		{name: "new without parens", ts: true, lines: []string{"throw new Failure;"}, word: "Failure", class: true, call: true, want: catConstructor},
		{name: "generic call", ts: true, lines: []string{"const n = identity<Map<string, number>>(x);"}, word: "identity", call: true, want: catFunction},
		{name: "comparison is no type argument", ts: true, lines: []string{"if (a.size < b && (c)) {}"}, word: "size", call: false, want: catInstance},
		{name: "optional call", ts: true, lines: []string{"cb?.(x)"}, word: "cb", call: true, want: catFunction},
		{name: "self", lines: []string{"        return self.area()"}, word: "area", call: true, want: catSelf},
		{name: "cls", lines: []string{"        return cls.build(side)"}, word: "build", call: true, want: catSelf},
		{name: "this", ts: true, lines: []string{"return this._throwIfClosed();"}, word: "_throwIfClosed", call: true, want: catSelf},
		{name: "this chain is instance", ts: true, lines: []string{"this.destination.next(v);"}, word: "next", call: true, want: catInstance},
		{name: "super()", lines: []string{"        super().__init__(x)"}, word: "__init__", call: true, want: catSuper},
		{name: "super(C, self)", lines: []string{"        return super(Square, self).describe()"}, word: "describe", call: true, want: catSuper},
		{name: "super.m", ts: true, lines: []string{"super.unsubscribe();"}, word: "unsubscribe", call: true, want: catSuper},
		{name: "super(...) itself", ts: true, lines: []string{"super(dest);"}, word: "super", call: true, want: catSuper},
		{name: "module", lines: []string{"n = util.identity(x)"}, word: "identity", call: true, want: catModuleAttr,
			occs: []occ{{line: 0, col: 4, end: 8, sym: mod}}},
		{name: "dotted module", lines: []string{"n = p.util.identity(x)"}, word: "identity", call: true, want: catModuleAttr,
			occs: []occ{{line: 0, col: 4, end: 10, sym: mod}}},
		{name: "module class", lines: []string{"raise errors.HeaderParseError('x')"}, word: "HeaderParseError", class: true, call: true, want: catModuleAttr,
			occs: []occ{{line: 0, col: 6, end: 12, sym: mod}}},
		{name: "receiver variable", lines: []string{"d = t.describe()"}, word: "describe", call: true, want: catInstance,
			occs: []occ{{line: 0, col: 4, end: 5, sym: "local 3"}}},
		{name: "call result", lines: []string{"return Parser(*a).parsestr(s)"}, word: "parsestr", call: true, want: catInstance},
		{name: "chain across lines", ts: true, lines: []string{"return source", "    .pipe(take(1))"}, line: 1, word: "pipe", call: true, want: catInstance},
		{name: "call on next line", lines: []string{"x = f", "(1)"}, word: "f", call: false, want: catFunction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := doc(t, "a.py", tt.lines, tt.occs)
			text := tt.lines[tt.line]
			col := -1
			for off := 0; ; {
				i := strings.Index(text[off:], tt.word)
				if i < 0 {
					break
				}
				c := off + i
				if (c == 0 || !isIdent(text[c-1])) && (c+len(tt.word) == len(text) || !isIdent(text[c+len(tt.word)])) {
					col = c
					break
				}
				off = c + 1
			}
			if col < 0 {
				t.Fatalf("fixture: %q not in %q", tt.word, text)
			}
			end := col + len(tt.word)
			if got := isCallSite(d, tt.line, col, end, tt.ts); got != tt.call {
				t.Errorf("isCallSite = %v, want %v", got, tt.call)
			}
			if got := classify(d, tt.line, col, end, tt.class, nil); got != tt.want {
				t.Errorf("classify = %q, want %q", got, tt.want)
			}
		})
	}
}

// The Python fixture of TestBuildTruth: shapes.py with a class, a
// method, a function with a nested function, and module-level code.
var shapesPy = []string{
	/* 0 */ "from p.util import helper",
	/* 1 */ "class Base:",
	/* 2 */ "    def area(self):",
	/* 3 */ "        return scale(self.side, 1)",
	/* 4 */ "def scale(a, b):",
	/* 5 */ "    def inner():",
	/* 6 */ "        return scale(a, b)",
	/* 7 */ "    inner()",
	/* 8 */ "    return Base().area() + helper(Base)",
	/* 9 */ "scale(1, 2)",
}

const (
	pyBase   = "scip-python python p 0 `p.shapes`/Base#"
	pyArea   = "scip-python python p 0 `p.shapes`/Base#area()."
	pyScale  = "scip-python python p 0 `p.shapes`/scale()."
	pyInner  = "scip-python python p 0 `p.shapes`/scale().inner()."
	pyHelper = "scip-python python python-stdlib 3.11 `p.util`/helper()."
	pyHelpD  = "scip-python python p 0 `p.util`/helper()."
)

func fixtureTruth(t testing.TB) (*oracle, nodeIndex) {
	shapes := doc(t, "p/shapes.py", shapesPy, []occ{
		{line: 0, col: 19, end: 25, sym: pyHelper},
		{line: 1, col: 6, end: 10, sym: pyBase, def: true},
		{line: 2, col: 8, end: 12, sym: pyArea, def: true},
		{line: 3, col: 15, end: 20, sym: pyScale},
		{line: 4, col: 4, end: 9, sym: pyScale, def: true},
		{line: 5, col: 8, end: 13, sym: pyInner, def: true},
		{line: 6, col: 15, end: 20, sym: pyScale},
		{line: 7, col: 4, end: 9, sym: pyInner},
		{line: 8, col: 11, end: 15, sym: pyBase},
		{line: 8, col: 18, end: 22, sym: pyArea},
		{line: 8, col: 27, end: 33, sym: pyHelper},
		{line: 8, col: 34, end: 38, sym: pyBase},
		{line: 9, col: 0, end: 5, sym: pyScale},
	})
	util := doc(t, "p/util.py", []string{"def helper(x):", "    return x"}, []occ{
		{line: 0, col: 4, end: 10, sym: pyHelpD, def: true},
	})
	nodes := nodeIndex{
		"p/shapes.py": {
			{UID: "code:class:p/shapes.py::Base", Kind: "class", Label: "Base", Path: "p/shapes.py", Line: 2, EndLine: 4},
			{UID: "code:function:p/shapes.py::Base.area", Kind: "method", Label: "Base.area", Path: "p/shapes.py", Line: 3, EndLine: 4},
			{UID: "code:function:p/shapes.py::scale", Kind: "function", Label: "scale", Path: "p/shapes.py", Line: 5, EndLine: 9},
		},
		"p/util.py": {
			{UID: "code:function:p/util.py::helper", Kind: "function", Label: "helper", Path: "p/util.py", Line: 1, EndLine: 2},
		},
	}
	docs := map[string]*document{shapes.Path: shapes, util.Path: util}
	return buildTruth(docs, nodes, langPython), nodes
}

func TestBuildTruth_Python(t *testing.T) {
	or, _ := fixtureTruth(t)
	const (
		base   = "code:class:p/shapes.py::Base"
		area   = "code:function:p/shapes.py::Base.area"
		scale  = "code:function:p/shapes.py::scale"
		helper = "code:function:p/util.py::helper"
		file   = "code:file:p/shapes.py"
	)
	// The stub-named helper (python-stdlib) maps to the copy's definition
	// by its descriptors; inner() has no node; scale's call in inner is
	// recursion (a self edge) once attributed to scale.
	wantSymbols := map[string]string{pyBase: base, pyArea: area, pyScale: scale, pyHelpD: helper}
	for sym, uid := range wantSymbols {
		if got := or.Symbols[canonicalSymbol(sym, map[string]string{})]; got != uid {
			t.Errorf("symbol %s maps to %q, want %q", sym, got, uid)
		}
	}
	if len(or.Symbols) != len(wantSymbols) {
		t.Errorf("mapped %d symbols, want %d: %v", len(or.Symbols), len(wantSymbols), or.Symbols)
	}
	wantCalls := map[pair]category{
		{area, scale}:   catFunction,
		{scale, base}:   catConstructor,
		{scale, area}:   catInstance,
		{scale, helper}: catFunction,
		{file, scale}:   catFunction,
	}
	for k, c := range wantCalls {
		e, ok := or.Calls[k]
		if !ok {
			t.Errorf("missing truth call %v", k)
			continue
		}
		if _, ok := e.Cats[c]; !ok || len(e.Cats) != 1 {
			t.Errorf("call %v has categories %v, want %s", k, e.Cats, c)
		}
	}
	if len(or.Calls) != len(wantCalls) {
		t.Errorf("%d truth calls, want %d: %v", len(or.Calls), len(wantCalls), or.Calls)
	}
	// helper(Base): Base is passed, not called: a reference only.
	if _, ok := or.Refs[pair{scale, base}]; !ok {
		t.Errorf("reference scale → Base missing")
	}
	st := or.Stats
	if st.ImportRefs != 1 || st.SelfRefs != 1 || st.UnmappedCallSites != 1 || st.UnmappedSymbols != 1 {
		t.Errorf("stats: import %d self %d unmapped sites %d symbols %d, want 1 1 1 1", st.ImportRefs, st.SelfRefs, st.UnmappedCallSites, st.UnmappedSymbols)
	}
}

func TestBuildTruth_OverloadCaller(t *testing.T) {
	// cos keeps the first declaration's lines for an overloaded function;
	// the implementation's enclosing range still belongs to it.
	lines := []string{
		"export function f(x: number): number;",
		"export function f(x: any): any {",
		"  return g(x);",
		"}",
		"export function g(x: any) { return x; }",
	}
	const f, g = "scip-typescript npm . . `a.ts`/f().", "scip-typescript npm . . `a.ts`/g()."
	d := doc(t, "a.ts", lines, []occ{
		{line: 0, col: 16, end: 17, sym: f, def: true, enc: []int32{0, 0, 37}},
		{line: 1, col: 16, end: 17, sym: f, def: true, enc: []int32{1, 0, 3, 1}},
		{line: 2, col: 9, end: 10, sym: g},
		{line: 4, col: 16, end: 17, sym: g, def: true, enc: []int32{4, 0, 39}},
	})
	nodes := nodeIndex{"a.ts": {
		{UID: "code:function:a.ts::f", Kind: "function", Label: "f", Path: "a.ts", Line: 1, EndLine: 1},
		{UID: "code:function:a.ts::g", Kind: "function", Label: "g", Path: "a.ts", Line: 5, EndLine: 5},
	}}
	or := buildTruth(map[string]*document{"a.ts": d}, nodes, langTS)
	if _, ok := or.Calls[pair{"code:function:a.ts::f", "code:function:a.ts::g"}]; !ok || len(or.Calls) != 1 {
		t.Errorf("calls = %v, want only f → g", or.Calls)
	}
}

func TestCompare_Scores(t *testing.T) {
	or, nodes := fixtureTruth(t)
	const (
		base   = "code:class:p/shapes.py::Base"
		area   = "code:function:p/shapes.py::Base.area"
		scale  = "code:function:p/shapes.py::scale"
		helper = "code:function:p/util.py::helper"
	)
	g := &cosGraph{Nodes: nodes, Calls: map[pair]site{
		{"code:function:p/shapes.py::Base.area", scale}: {File: "p/shapes.py", Line: 4}, // TP, function
		{scale, base}:   {File: "p/shapes.py", Line: 9}, // TP, constructor
		{scale, helper}: {File: "p/shapes.py", Line: 9}, // TP, function
		// False positive: area is written on line 9 but its caller is
		// scale, not the file.
		{"code:file:p/shapes.py", area}: {File: "p/shapes.py", Line: 9},
	}, Edges: map[pair][]string{}}
	for k := range g.Calls {
		g.Edges[k] = []string{"calls"}
	}
	cmp := compare(or, g, langPython, 10)
	got := map[string][3]int{}
	for _, s := range cmp.ByForm {
		got[s.Row] = [3]int{s.Truth, s.Cos, s.TP}
	}
	want := map[string][3]int{
		"function":    {3, 2, 2},
		"constructor": {1, 1, 1},
		"instance":    {1, 1, 0},
		"all":         {5, 4, 3},
	}
	for row, w := range want {
		if got[row] != w {
			t.Errorf("%s: truth, cos, TP = %v, want %v", row, got[row], w)
		}
	}
	if cmp.RefsRecall.Hit != 3 || cmp.RefsRecall.Of != 5 {
		t.Errorf("references recall %d/%d, want 3/5", cmp.RefsRecall.Hit, cmp.RefsRecall.Of)
	}
}

func TestBuildTruth_Alias(t *testing.T) {
	// Charset = _charset.Charset: calls of the alias are calls of the class.
	const cls, alias, mod = "scip-python python p 0 `p.charset`/Charset#", "scip-python python p 0 `p.header`/Charset.", "scip-python python p 0 `p.charset`/__init__:"
	charset := doc(t, "p/charset.py", []string{"class Charset:", "    pass"}, []occ{{line: 0, col: 6, end: 13, sym: cls, def: true}})
	header := doc(t, "p/header.py", []string{"from p import charset as _charset", "Charset = _charset.Charset", "def make():", "    return Charset()"}, []occ{
		{line: 1, col: 0, end: 7, sym: alias, def: true},
		{line: 1, col: 10, end: 18, sym: mod},
		{line: 1, col: 19, end: 26, sym: cls},
		{line: 3, col: 11, end: 18, sym: alias},
	})
	nodes := nodeIndex{
		"p/charset.py": {{UID: "code:class:p/charset.py::Charset", Kind: "class", Label: "Charset", Path: "p/charset.py", Line: 1, EndLine: 2}},
		"p/header.py":  {{UID: "code:function:p/header.py::make", Kind: "function", Label: "make", Path: "p/header.py", Line: 3, EndLine: 4}},
	}
	or := buildTruth(map[string]*document{charset.Path: charset, header.Path: header}, nodes, langPython)
	e, ok := or.Calls[pair{"code:function:p/header.py::make", "code:class:p/charset.py::Charset"}]
	if !ok {
		t.Fatalf("calls = %v, want make → Charset through the alias", or.Calls)
	}
	if _, ok := e.Cats[catConstructor]; !ok {
		t.Errorf("categories %v, want constructor (a bare call of a class)", e.Cats)
	}
	if or.Stats.Aliases != 1 {
		t.Errorf("aliases = %d, want 1", or.Stats.Aliases)
	}
}

func TestBuildTruth_ClassAlias(t *testing.T) {
	// response_class = HTTPResponse in a class body: self.response_class()
	// constructs HTTPResponse.
	const cls, alias = "scip-python python p 0 `p.client`/HTTPResponse#", "scip-python python p 0 `p.client`/HTTPConnection#response_class."
	const meth = "scip-python python p 0 `p.client`/HTTPConnection#get()."
	client := doc(t, "p/client.py", []string{"class HTTPResponse:", "    pass", "class HTTPConnection:", "    response_class = HTTPResponse", "    def get(self):", "        return self.response_class()"}, []occ{
		{line: 0, col: 6, end: 18, sym: cls, def: true},
		{line: 3, col: 4, end: 18, sym: alias, def: true},
		{line: 3, col: 21, end: 33, sym: cls},
		{line: 4, col: 8, end: 11, sym: meth, def: true},
		{line: 5, col: 20, end: 34, sym: alias},
	})
	nodes := nodeIndex{"p/client.py": {
		{UID: "code:class:p/client.py::HTTPResponse", Kind: "class", Label: "HTTPResponse", Path: "p/client.py", Line: 1, EndLine: 2},
		{UID: "code:class:p/client.py::HTTPConnection", Kind: "class", Label: "HTTPConnection", Path: "p/client.py", Line: 3, EndLine: 6},
		{UID: "code:function:p/client.py::HTTPConnection.get", Kind: "method", Label: "HTTPConnection.get", Path: "p/client.py", Line: 5, EndLine: 6},
	}}
	or := buildTruth(map[string]*document{client.Path: client}, nodes, langPython)
	if _, ok := or.Calls[pair{"code:function:p/client.py::HTTPConnection.get", "code:class:p/client.py::HTTPResponse"}]; !ok {
		t.Fatalf("calls = %v, want HTTPConnection.get → HTTPResponse through the class attribute", or.Calls)
	}
	if or.Stats.Aliases != 1 {
		t.Errorf("aliases = %d, want 1", or.Stats.Aliases)
	}
}

func TestBuildTruth_SelfAlias(t *testing.T) {
	// self.locked = lock.locked in __init__: self.locked() calls
	// Lock.locked.
	const lockM = "scip-python python p 0 `p.locks`/Lock#locked()."
	const alias = "scip-python python p 0 `p.locks`/Condition#locked."
	const wait = "scip-python python p 0 `p.locks`/Condition#wait()."
	locks := doc(t, "p/locks.py", []string{
		"class Lock:",
		"    def locked(self): return 1",
		"class Condition:",
		"    def __init__(self, lock):",
		"        self.locked = lock.locked",
		"    def wait(self):",
		"        return self.locked()",
	}, []occ{
		{line: 1, col: 8, end: 14, sym: lockM, def: true},
		{line: 4, col: 13, end: 19, sym: alias, def: true},
		{line: 4, col: 27, end: 33, sym: lockM},
		{line: 5, col: 8, end: 12, sym: wait, def: true},
		{line: 6, col: 20, end: 26, sym: alias},
	})
	nodes := nodeIndex{"p/locks.py": {
		{UID: "code:class:p/locks.py::Lock", Kind: "class", Label: "Lock", Path: "p/locks.py", Line: 1, EndLine: 2},
		{UID: "code:function:p/locks.py::Lock.locked", Kind: "method", Label: "Lock.locked", Path: "p/locks.py", Line: 2, EndLine: 2},
		{UID: "code:class:p/locks.py::Condition", Kind: "class", Label: "Condition", Path: "p/locks.py", Line: 3, EndLine: 7},
		{UID: "code:function:p/locks.py::Condition.__init__", Kind: "method", Label: "Condition.__init__", Path: "p/locks.py", Line: 4, EndLine: 5},
		{UID: "code:function:p/locks.py::Condition.wait", Kind: "method", Label: "Condition.wait", Path: "p/locks.py", Line: 6, EndLine: 7},
	}}
	or := buildTruth(map[string]*document{locks.Path: locks}, nodes, langPython)
	if _, ok := or.Calls[pair{"code:function:p/locks.py::Condition.wait", "code:function:p/locks.py::Lock.locked"}]; !ok {
		t.Fatalf("calls = %v, want Condition.wait → Lock.locked through the instance attribute", or.Calls)
	}
}

func TestBuildTruth_ExportAlias(t *testing.T) {
	const impl, alias = "scip-typescript npm . . `api.ts`/_regex().", "scip-typescript npm . . `checks.ts`/regex."
	const mod = "scip-typescript npm . . `checks.ts`/"
	api := doc(t, "api.ts", []string{"export function _regex(p: string) { return p; }"}, []occ{{line: 0, col: 16, end: 22, sym: impl, def: true}})
	checks := doc(t, "checks.ts", []string{`export { _regex as regex } from "./api";`}, []occ{
		{line: 0, col: 9, end: 15, sym: impl},
		{line: 0, col: 19, end: 24, sym: alias, def: true},
	})
	user := doc(t, "user.ts", []string{`import * as checks from "./checks";`, "export function f() {", `  return checks.regex("x");`, "}"}, []occ{
		{line: 0, col: 12, end: 18, sym: mod},
		{line: 2, col: 9, end: 15, sym: mod},
		{line: 2, col: 16, end: 21, sym: alias},
	})
	nodes := nodeIndex{
		"api.ts":  {{UID: "code:function:api.ts::_regex", Kind: "function", Label: "_regex", Path: "api.ts", Line: 1, EndLine: 1}},
		"user.ts": {{UID: "code:function:user.ts::f", Kind: "function", Label: "f", Path: "user.ts", Line: 2, EndLine: 4}},
	}
	or := buildTruth(map[string]*document{api.Path: api, checks.Path: checks, user.Path: user}, nodes, langTS)
	e, ok := or.Calls[pair{"code:function:user.ts::f", "code:function:api.ts::_regex"}]
	if !ok {
		t.Fatalf("calls = %v, want f → _regex through the renaming export", or.Calls)
	}
	if _, ok := e.Cats[catModuleAttr]; !ok {
		t.Errorf("categories %v, want module_attr", e.Cats)
	}
}
