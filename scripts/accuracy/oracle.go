package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/cos-dev/cos/scripts/internal/acc"
)

// pair is a calls edge without its sites.
type pair struct{ Caller, Callee string }

// tag is what the source says about a call site; tags explain misses.
type tag uint16

const (
	tagClosure    tag = 1 << iota // written in a closure or a range-over-func body
	tagInit                       // in a package-level variable initialiser
	tagFuncValue                  // through a local variable or field SSA resolves to one function (f := o.M; f())
	tagPromoted                   // a method promoted through embedding
	tagMethodExpr                 // a method expression T.M(x)
	tagDeferGo                    // in a defer or go statement
	tagTest                       // in a _test.go file
	tagImplicit                   // no call expression at the site (a range-over-func call)
	tagLocalType                  // a method of an interface declared inside a function
)

var tagNames = []struct {
	t    tag
	name string
}{
	{tagClosure, "closure"}, {tagInit, "init"}, {tagFuncValue, "func-value"}, {tagPromoted, "promoted"},
	{tagMethodExpr, "method-expr"}, {tagDeferGo, "defer/go"}, {tagTest, "test"}, {tagImplicit, "implicit"},
	{tagLocalType, "local-type"},
}

func (t tag) names() []string {
	var out []string
	for _, n := range tagNames {
		if t&n.t != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// oracleEdge is one in-tree calls edge of the oracle.
type oracleEdge struct {
	Category category
	// Sites counts the distinct call sites (test variants share theirs).
	Sites int
	// First is the first site in file, line order.
	First site
	// Tags is the union of the sites' tags.
	Tags tag
}

// ifaceSite is one invoke-mode call site: a call of an interface method
// on an interface value.
type ifaceSite struct {
	Site   site
	Caller string
	// Method is the uid of the interface method (code:external: for an
	// interface declared outside the folder).
	Method string
	InTree bool
}

// dispatchEdge is one CHA edge from an in-tree invoke site to an in-tree
// concrete method, with what cos needs to reach it: the calls edge to the
// interface method and the implements edge from the concrete type to the
// interface.
type dispatchEdge struct {
	Caller, Method, Concrete string
	// Type and Iface are code:class: uids of the implementing named type
	// and of the interface declaring Method.
	Type, Iface string
	Site        site
}

// oracleStats describe the oracle's run.
type oracleStats struct {
	Packages       int      `json:"packages"`         // in-tree packages walked (test variants included)
	LoadErrors     int      `json:"load_errors"`      // packages.Load errors in in-tree packages
	LoadErrorNotes []string `json:"load_error_notes"` // the first few
	Functions      int      `json:"functions"`        // source functions walked, closures included
	StaticSites    int      `json:"static_sites"`     // distinct static call sites in the folder
	InvokeSites    int      `json:"invoke_sites"`     // distinct interface call sites
	DynamicSites   int      `json:"dynamic_sites"`    // distinct calls of func values SSA cannot resolve
	Unmapped       int      `json:"unmapped"`         // sites whose callee has no uid (unnamed interfaces)
	// StaticCGEdges counts the in-tree (site, callee) pairs of
	// static.CallGraph; StaticCGMissing those the walk did not find (must be
	// 0); StaticCGShare is the share of the walk's in-tree static sites
	// static.CallGraph reaches (it roots neither closures passed as values
	// nor methods of generic types).
	StaticCGEdges   int     `json:"static_cg_edges"`
	StaticCGMissing int     `json:"static_cg_missing"`
	StaticCGShare   float64 `json:"static_cg_share"`
	// CHAInvokeMissing counts CHA invoke sites in the folder the walk did
	// not find (must be 0).
	CHAInvokeMissing int `json:"cha_invoke_missing"`
}

// oracle is what the SSA call graph says about one folder.
type oracle struct {
	// Edges are the in-tree calls edges.
	Edges map[pair]*oracleEdge
	// Decls maps every function, method and interface method declared in
	// the folder's compiled files to its category.
	Decls map[string]category
	// Files holds the folder's Go files compiled into a loaded package
	// (repo-relative); cos edges from other files are not compared.
	Files map[string]bool
	// IfaceSites are the invoke-mode sites in the folder, one per position.
	IfaceSites []ifaceSite
	// Dispatch are the in-tree CHA edges of those sites.
	Dispatch []dispatchEdge
	Stats    oracleStats
	Duration time.Duration
}

// moduleRoot returns the folder holding the go.mod that encloses dir (the
// GOROOT/src "std" module for the standard library).
func moduleRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod encloses %s", dir)
		}
		d = parent
	}
}

// oracleOptions tune runOracle.
type oracleOptions struct {
	// ExportDeps loads the folder's dependencies from export data
	// (packages.LoadSyntax, ssautil.Packages) instead of type-checking them
	// from source and building their SSA (LoadAllSyntax, AllPackages). The
	// folder's edges are the same; it is much faster.
	ExportDeps bool
}

// runOracle loads the packages at or below root (tests included) in this
// process's environment, builds SSA and walks every source function's
// call sites.
func runOracle(ctx context.Context, root string, o oracleOptions) (*oracle, error) {
	start := time.Now()
	modRoot, err := moduleRoot(root)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(modRoot, root)
	if err != nil {
		return nil, err
	}
	pattern := "./..."
	if rel != "." {
		pattern = "./" + filepath.ToSlash(rel) + "/..."
	}
	mode := packages.LoadAllSyntax
	if o.ExportDeps {
		mode = packages.LoadSyntax
	}
	cfg := &packages.Config{Context: ctx, Mode: mode, Dir: modRoot, Tests: true, Fset: token.NewFileSet()}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, fmt.Errorf("load %s in %s: %w", pattern, modRoot, err)
	}
	m := &mapper{fset: cfg.Fset, root: root}
	packages.Visit(pkgs, nil, func(p *packages.Package) { m.addSyntax(p.Syntax) })
	or := &oracle{Edges: map[pair]*oracleEdge{}, Decls: map[string]category{}, Files: map[string]bool{}}

	// The folder's packages: every package with a compiled file in it
	// (test main packages are generated elsewhere).
	var inTree []*packages.Package
	for _, p := range pkgs {
		in := false
		for _, f := range p.CompiledGoFiles {
			if r, ok := m.rel(f); ok {
				in = true
				or.Files[r] = true
			}
		}
		if !in {
			continue
		}
		inTree = append(inTree, p)
		for _, e := range p.Errors {
			or.Stats.LoadErrors++
			if len(or.Stats.LoadErrorNotes) < 5 {
				or.Stats.LoadErrorNotes = append(or.Stats.LoadErrorNotes, e.Error())
			}
		}
	}
	or.Stats.Packages = len(inTree)

	var prog *ssa.Program
	if o.ExportDeps {
		prog, _ = ssautil.Packages(pkgs, ssa.BuilderMode(0))
	} else {
		prog, _ = ssautil.AllPackages(pkgs, ssa.BuilderMode(0))
	}
	prog.Build()

	w := &walker{m: m, or: or, calls: map[string]*callExprInfo{}, seen: map[string]bool{}, staticKeys: map[string]bool{}, invokeKeys: map[string]bool{}}
	for _, p := range inTree {
		w.declare(p)
		w.indexSyntax(p)
	}
	for _, p := range inTree {
		for _, fn := range sourceFunctions(prog, p) {
			or.Stats.Functions++
			w.function(fn)
		}
	}
	w.crossCheck(prog)
	w.dispatch(prog)
	sort.Slice(or.IfaceSites, func(i, j int) bool { return acc.SiteLess(or.IfaceSites[i].Site, or.IfaceSites[j].Site) })
	or.Duration = time.Since(start)
	return or, nil
}

// sourceFunctions returns the SSA functions of a package's declarations,
// its package initialiser and every closure nested in them. Methods are
// always declared at package level, so this is every function written in
// the package's files (static.CallGraph alone misses closures passed as
// values and methods of generic types that nothing calls statically).
func sourceFunctions(prog *ssa.Program, p *packages.Package) []*ssa.Function {
	sp := prog.Package(p.Types)
	if sp == nil {
		return nil
	}
	var out []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil {
			return
		}
		out = append(out, fn)
		for _, a := range fn.AnonFuncs {
			add(a)
		}
	}
	add(sp.Func("init"))
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if obj, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				add(prog.FuncValue(obj))
			}
		}
	}
	return out
}

// callExprInfo is what the syntax says about the call at one position.
type callExprInfo struct{ tags tag }

// walker accumulates one oracle.
type walker struct {
	m  *mapper
	or *oracle
	// calls maps "file:offset" of a call's Lparen (or its go/defer
	// keyword) to its syntax tags.
	calls map[string]*callExprInfo
	// seen holds "file:offset" of every site already counted, so test
	// variants (same files, other SSA functions) count once.
	seen map[string]bool
	// staticKeys and invokeKeys are the walk's in-tree site keys, for the
	// cross-checks against static.CallGraph and cha.CallGraph.
	staticKeys, invokeKeys map[string]bool
}

// declare records the category of every function, method and interface
// method declared in the package's files within the folder.
func (w *walker) declare(p *packages.Package) {
	for id, obj := range p.TypesInfo.Defs {
		fn, ok := obj.(*types.Func)
		if !ok || id.Name == "_" {
			continue
		}
		if uid, cat, in, ok := w.m.funcUID(fn); ok && in {
			w.or.Decls[uid] = cat
		}
	}
}

func (w *walker) posKey(pos token.Pos) (string, token.Position) {
	p := w.m.fset.Position(pos)
	return fmt.Sprintf("%s:%d", p.Filename, p.Offset), p
}

// indexSyntax tags every call expression of the package's files.
func (w *walker) indexSyntax(p *packages.Package) {
	info := p.TypesInfo
	for _, f := range p.Syntax {
		if _, in := w.m.relPos(f.Pos()); !in {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				w.indexCall(n.Lparen, n, info, 0)
			case *ast.DeferStmt:
				w.indexCall(n.Defer, n.Call, info, tagDeferGo)
			case *ast.GoStmt:
				w.indexCall(n.Go, n.Call, info, tagDeferGo)
			}
			return true
		})
	}
}

func (w *walker) indexCall(at token.Pos, c *ast.CallExpr, info *types.Info, t tag) {
	k, _ := w.posKey(at)
	if _, ok := w.calls[k]; ok {
		return
	}
	fun := ast.Unparen(c.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = ast.Unparen(f.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(f.X)
	}
	switch f := fun.(type) {
	case *ast.Ident:
		if _, isVar := info.Uses[f].(*types.Var); isVar {
			t |= tagFuncValue
		}
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			switch sel.Kind() {
			case types.MethodExpr:
				t |= tagMethodExpr
			case types.FieldVal:
				t |= tagFuncValue
			case types.MethodVal:
				if len(sel.Index()) > 1 {
					t |= tagPromoted
				}
			}
		} else if _, isVar := info.Uses[f.Sel].(*types.Var); isVar {
			t |= tagFuncValue
		}
	default:
		t |= tagFuncValue
	}
	w.calls[k] = &callExprInfo{tags: t}
}

// function walks one SSA function's call sites.
func (w *walker) function(fn *ssa.Function) {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if s, ok := instr.(ssa.CallInstruction); ok {
				w.site(fn, s)
			}
		}
	}
}

func (w *walker) site(fn *ssa.Function, s ssa.CallInstruction) {
	pos := s.Pos()
	key, p := w.posKey(pos)
	rel, in := w.m.rel(p.Filename)
	if !in {
		return
	}
	c := s.Common()
	callee := ""
	if c.IsInvoke() {
		callee = "invoke:" + c.Method.FullName()
	} else if g := c.StaticCallee(); g != nil {
		callee = "static:" + g.String()
	}
	// One site can hold several calls (f(g())) at distinct positions; a
	// site key is position + callee so a test variant adds nothing.
	sk := key + "|" + callee
	if w.seen[sk] {
		return
	}
	w.seen[sk] = true
	caller, ok := w.m.callerUID(fn, pos)
	if !ok {
		return
	}
	st := site{File: rel, Line: p.Line}
	var t tag
	if ci := w.calls[key]; ci != nil {
		t = ci.tags
	} else {
		t = tagImplicit
	}
	if fn.Parent() != nil {
		t |= tagClosure
	}
	if strings.HasPrefix(caller, "code:file:") {
		t |= tagInit
	}
	if strings.HasSuffix(rel, "_test.go") {
		t |= tagTest
	}
	switch {
	case c.IsInvoke():
		w.or.Stats.InvokeSites++
		uid, _, inTree, ok := w.m.funcUID(c.Method)
		if !ok {
			w.or.Stats.Unmapped++
			return
		}
		w.invokeKeys[key] = true
		if n := recvNamed(c.Method.Signature()); n != nil && n.Obj().Pkg() != nil && n.Obj().Parent() != n.Obj().Pkg().Scope() {
			t |= tagLocalType
		}
		w.or.IfaceSites = append(w.or.IfaceSites, ifaceSite{Site: st, Caller: caller, Method: uid, InTree: inTree})
		if inTree {
			w.edge(caller, uid, catInterface, st, t)
		}
	case c.StaticCallee() != nil:
		w.or.Stats.StaticSites++
		uid, cat, inTree, ok := w.m.calleeUID(c.StaticCallee())
		if !ok || !inTree {
			return
		}
		w.staticKeys[key+"|"+uid] = true
		w.edge(caller, uid, cat, st, t)
	default:
		if _, builtin := c.Value.(*ssa.Builtin); !builtin {
			w.or.Stats.DynamicSites++
		}
	}
}

func (w *walker) edge(caller, callee string, cat category, st site, t tag) {
	if caller == callee {
		return // self pairs are left out on both sides (doc.go)
	}
	k := pair{caller, callee}
	e := w.or.Edges[k]
	if e == nil {
		e = &oracleEdge{Category: cat, First: st}
		w.or.Edges[k] = e
	}
	e.Sites++
	e.Tags |= t
	if acc.SiteLess(st, e.First) {
		e.First = st
	}
}

// crossCheck compares the walk with static.CallGraph: every in-tree
// static edge of the graph must be one the walk found.
func (w *walker) crossCheck(prog *ssa.Program) {
	cg := static.CallGraph(prog)
	found := map[string]bool{}
	_ = callgraph.GraphVisitEdges(cg, func(e *callgraph.Edge) error {
		if e.Site == nil {
			return nil
		}
		key, p := w.posKey(e.Site.Pos())
		if _, in := w.m.rel(p.Filename); !in {
			return nil
		}
		if _, ok := w.m.callerUID(e.Caller.Func, e.Site.Pos()); !ok {
			return nil
		}
		uid, _, inTree, ok := w.m.calleeUID(e.Callee.Func)
		if !ok || !inTree {
			return nil
		}
		k := key + "|" + uid
		if found[k] {
			return nil
		}
		found[k] = true
		w.or.Stats.StaticCGEdges++
		if !w.staticKeys[k] {
			w.or.Stats.StaticCGMissing++
		}
		return nil
	})
	if n := len(w.staticKeys); n > 0 {
		hit := 0
		for k := range found {
			if w.staticKeys[k] {
				hit++
			}
		}
		w.or.Stats.StaticCGShare = float64(hit) / float64(n)
	}
}

// dispatch records the in-tree CHA edges of interface call sites.
func (w *walker) dispatch(prog *ssa.Program) {
	cg := cha.CallGraph(prog)
	seen := map[dispatchEdge]bool{}
	_ = callgraph.GraphVisitEdges(cg, func(e *callgraph.Edge) error {
		if e.Site == nil || !e.Site.Common().IsInvoke() {
			return nil
		}
		key, p := w.posKey(e.Site.Pos())
		rel, in := w.m.rel(p.Filename)
		if !in {
			return nil
		}
		if !w.invokeKeys[key] {
			if _, _, _, ok := w.m.funcUID(e.Site.Common().Method); ok {
				w.or.Stats.CHAInvokeMissing++
			}
			return nil
		}
		caller, ok := w.m.callerUID(e.Caller.Func, e.Site.Pos())
		if !ok {
			return nil
		}
		method, _, inM, ok := w.m.funcUID(e.Site.Common().Method)
		if !ok || !inM {
			return nil
		}
		concrete, _, inC, ok := w.m.calleeUID(e.Callee.Func)
		if !ok || !inC {
			return nil
		}
		typ, inT := w.m.classUID(recvNamed(e.Callee.Func.Signature))
		iface, inI := w.m.classUID(recvNamed(e.Site.Common().Method.Signature()))
		if !inT || !inI {
			return nil
		}
		d := dispatchEdge{Caller: caller, Method: method, Concrete: concrete, Type: typ, Iface: iface}
		if seen[d] {
			return nil
		}
		seen[d] = true
		d.Site = site{File: rel, Line: p.Line}
		w.or.Dispatch = append(w.or.Dispatch, d)
		return nil
	})
}

// recvNamed returns the named type of a method's receiver (through a
// pointer), generic origin for an instance; nil for a function.
func recvNamed(sig *types.Signature) *types.Named {
	if sig == nil || sig.Recv() == nil {
		return nil
	}
	t := types.Unalias(sig.Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return n.Origin()
	}
	return nil
}

// classUID is the code:class: uid of a named type declared in the folder.
func (m *mapper) classUID(n *types.Named) (string, bool) {
	if n == nil {
		return "", false
	}
	rel, in := m.relPos(n.Obj().Pos())
	if !in {
		return "", false
	}
	return "code:class:" + rel + "::" + n.Obj().Name(), true
}
