package query

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// This file selects the tests to run for a change: the test functions
// that reach the changed symbols, grouped into commands ready to run.

// TestsDepth bounds the walk from the changed symbols back to the tests
// that reach them, in hops.
const TestsDepth = 16

// Runners of a TestRun.
const (
	RunnerGo      = "go"
	RunnerGoBench = "go-bench"
	RunnerPytest  = "pytest"
	RunnerVitest  = "vitest"
	RunnerJest    = "jest"
)

// TestRun is one command of a TestsToRun: the tests it runs, how many,
// and the command line. Target is the Go package (a folder, "." for the
// module's root) of a go or go-bench run, "" for the others.
//
// A run of another root than the primary one names it in Root; in a
// graph of several roots every command changes into its root's folder
// first.
type TestRun struct {
	Runner  string `json:"runner"`
	Root    string `json:"root,omitempty"`
	Target  string `json:"target,omitempty"`
	Tests   int    `json:"tests"`
	Command string `json:"command"`
}

// TestsToRun is the selection of TestsOf.
type TestsToRun struct {
	// Selected counts the tests selected, Suite those in the graph: Go
	// test, example, fuzz and benchmark functions, pytest functions and
	// methods, and one per JavaScript/TypeScript test file (its unit).
	Selected int `json:"selected"`
	Suite    int `json:"suite"`
	// Completeness is exact when every call into the walked symbols is
	// resolved and the walk ended before TestsDepth; lower_bound
	// otherwise, with Reasons (as meta.completeness_reasons, plus
	// "depth_bound" when the walk was cut).
	Completeness string         `json:"completeness"`
	Reasons      map[string]int `json:"completeness_reasons,omitempty"`
	Runs         []TestRun      `json:"runs"`
	Note         string         `json:"note,omitempty"`
}

// testUnit is one runnable test: a Go or pytest function, or a
// JavaScript/TypeScript test file.
type testUnit struct {
	runner string
	// file is the test's file; name its Go name or pytest node id suffix
	// ("test_f", "TestC::test_m"), "" for a JavaScript/TypeScript file.
	file, name string
}

// goTestName matches the functions go test runs: Test, Benchmark,
// Example and Fuzz followed by nothing or a character that is not a
// lower-case letter.
var goTestName = regexp.MustCompile(`^(Test|Benchmark|Example|Fuzz)([^\p{Ll}].*)?$`)

// testUnitOf returns the test n is, if it is one.
func testUnitOf(g *projections.Graph, n graph.Node) (testUnit, bool) {
	p := n.Path
	if !IsTestPath(p) || (n.Kind != graph.KindFunction && n.Kind != graph.KindMethod && n.Kind != graph.KindFile) {
		return testUnit{}, false
	}
	switch ext := path.Ext(p); {
	case ext == ".go":
		if n.Kind != graph.KindFunction || n.Label == "TestMain" || !goTestName.MatchString(n.Label) {
			return testUnit{}, false
		}
		if strings.HasPrefix(n.Label, "Benchmark") {
			return testUnit{runner: RunnerGoBench, file: p, name: n.Label}, true
		}
		return testUnit{runner: RunnerGo, file: p, name: n.Label}, true
	case ext == ".py":
		if !pytestFile(p) || n.Kind == graph.KindFile {
			return testUnit{}, false
		}
		if n.Kind == graph.KindFunction && strings.HasPrefix(n.Label, "test") && !strings.Contains(n.Label, ".") {
			return testUnit{runner: RunnerPytest, file: p, name: n.Label}, true
		}
		cls, meth, ok := strings.Cut(n.Label, ".")
		if n.Kind == graph.KindMethod && ok && !strings.Contains(meth, ".") && strings.HasPrefix(meth, "test") && testClass(g, n.UID, cls) {
			return testUnit{runner: RunnerPytest, file: p, name: cls + "::" + meth}, true
		}
		return testUnit{}, false
	case jsTestExt[ext] && n.Kind == graph.KindFile:
		return testUnit{runner: jsRunner(g, p), file: p}, true
	}
	return testUnit{}, false
}

// jsTestExt are the extensions of JavaScript and TypeScript test files.
var jsTestExt = map[string]bool{".js": true, ".jsx": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true, ".mts": true, ".cts": true}

// pytestFile reports whether pytest collects p by default: test_*.py or
// *_test.py.
func pytestFile(p string) bool {
	stem := strings.TrimSuffix(path.Base(p), ".py")
	return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test")
}

// testClass reports whether the class named cls that holds method is one
// pytest collects: named Test*, or deriving from a *TestCase class.
func testClass(g *projections.Graph, method, cls string) bool {
	if strings.HasPrefix(cls, "Test") {
		return true
	}
	owner := ownerClass(g, method)
	for _, base := range g.Targets(owner, graph.EdgeInheritsFrom) {
		if strings.HasSuffix(base, "TestCase") {
			return true
		}
	}
	return false
}

// jsRunner is vitest when the test file imports it, or when the graph
// knows the vitest package and not jest; jest otherwise.
func jsRunner(g *projections.Graph, file string) string {
	for _, t := range g.Targets(graph.SourceFileUID(file), graph.EdgeImports) {
		switch {
		case strings.Contains(t, "vitest"):
			return RunnerVitest
		case strings.Contains(t, "jest"):
			return RunnerJest
		}
	}
	if g.HasNode("npm:package:vitest") && !g.HasNode("npm:package:jest") {
		return RunnerVitest
	}
	return RunnerJest
}

// testWalkEdges are the edges along which running the source runs the
// target: a call, a func value passed or stored, a construction.
var testWalkEdges = []string{graph.EdgeCalls, graph.EdgeReferences, graph.EdgeConstructs}

// constructorNames are the methods a construction of their class runs.
var constructorNames = map[string]bool{"__init__": true, "__new__": true, "__post_init__": true, "constructor": true}

// testWalk walks from changed symbols back to the tests that reach them.
type testWalk struct {
	g        *projections.Graph
	comp     *Completeness
	seen     map[string]bool
	next     []string
	selected map[testUnit]bool
	// files are the file nodes reached: code at a file's top level (a
	// package-level initialiser, module code) runs in every test that
	// loads it.
	files map[string]bool
}

// TestsOf selects the tests that reach roots (the added and modified
// symbols of a change) within TestsDepth hops backwards over calls, func
// value references and constructions, through interface and base-class
// dispatch, and through top-level code: a file whose top level reaches a
// root selects every test that loads the file (for Go, every test of its
// package and of the packages that import it). A root that is a test is
// selected itself, and so is a changed JavaScript/TypeScript test file
// (its tests are not symbols): files are the changed files' paths. Call it
// inside a view.
func TestsOf(ctx context.Context, g *projections.Graph, roots, files []string) TestsToRun {
	w := &testWalk{g: g, comp: NewCompleteness(g, true), seen: map[string]bool{}, selected: map[testUnit]bool{}, files: map[string]bool{}}
	for _, p := range files {
		if n, ok := g.NodeHeader(graph.SourceFileUID(p)); ok && jsTestExt[path.Ext(p)] && IsTestPath(p) {
			if t, ok := testUnitOf(g, n); ok {
				w.selected[t] = true
			}
		}
	}
	frontier := []string{}
	for _, uid := range roots {
		if w.reach(uid) {
			frontier = append(frontier, uid)
		}
	}
	bounded := false
	for d := 1; len(frontier) > 0 && ctx.Err() == nil; d++ {
		if d > TestsDepth {
			bounded = true
			break
		}
		w.next = nil
		for _, uid := range frontier {
			w.expand(uid)
		}
		frontier = w.next
	}
	w.loadersOf()
	suite := testSuite(g)
	out := TestsToRun{Suite: suite.count()}
	out.Completeness, out.Reasons = w.comp.Meta()
	if bounded {
		out.Completeness = CompleteLowerBound
		if out.Reasons == nil {
			out.Reasons = map[string]int{}
		}
		out.Reasons["depth_bound"] = TestsDepth
	}
	out.Selected = len(w.selected)
	out.Runs = runsOf(g, w.selected, suite)
	if n := countRunner(w.selected, RunnerGoBench); n > 0 {
		out.Note = fmt.Sprintf("%d benchmark(s) reach the change; their go-bench runs are apart (go test runs no benchmark without -bench)", n)
	}
	return out
}

// reach marks uid as reached; it selects uid when it is a test and
// reports whether the walk goes on from it.
func (w *testWalk) reach(uid string) bool {
	if w.seen[uid] {
		return false
	}
	w.seen[uid] = true
	n, ok := w.g.NodeHeader(uid)
	if !ok {
		return false
	}
	if n.Kind == graph.KindFile {
		w.files[uid] = true
		return false
	}
	if t, ok := testUnitOf(w.g, n); ok {
		w.selected[t] = true
		return false
	}
	if jsTestExt[path.Ext(n.Path)] && IsTestPath(n.Path) {
		// A helper of a JavaScript/TypeScript test file: the file runs it.
		w.selected[testUnit{runner: jsRunner(w.g, n.Path), file: n.Path}] = true
	}
	return true
}

// expand visits the nodes whose running runs uid.
func (w *testWalk) expand(uid string) {
	w.incoming(uid)
	n, ok := w.g.NodeHeader(uid)
	if !ok {
		return
	}
	if n.Kind == graph.KindMethod {
		for _, m := range DispatchesOf(w.g, uid) {
			w.incoming(m.UID)
		}
		if constructorNames[memberName(uid)] {
			if c := ownerClass(w.g, uid); c != "" {
				w.incoming(c)
			}
		}
	}
}

// incoming reaches the sources of target's walked edges.
func (w *testWalk) incoming(target string) {
	referenced := false
	w.g.EachIn(target, func(src, typ string) bool {
		if typ == graph.EdgeReferences {
			referenced = true
		}
		if slices.Contains(testWalkEdges, typ) && w.reach(src) {
			w.next = append(w.next, src)
		}
		return true
	})
	if n, ok := w.g.NodeHeader(target); ok {
		w.comp.Add(n, referenced)
	}
}

// loadersOf selects the tests that load the files reached: every test of
// a reached test file (for Go, of its package), and, through the imports
// of the module a reached file defines (transitively), every test of the
// test files that import it.
func (w *testWalk) loadersOf() {
	seen := map[string]bool{}
	queue := slices.Sorted(func(yield func(string) bool) {
		for f := range w.files {
			if !yield(f) {
				return
			}
		}
	})
	var testFiles []string
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] {
			continue
		}
		seen[f] = true
		n, ok := w.g.NodeHeader(f)
		if !ok {
			continue
		}
		if IsTestPath(n.Path) {
			// A test file's top level runs in its own tests only: nothing
			// loads a test file (its package's other files define the
			// module others import).
			testFiles = append(testFiles, n.Path)
			continue
		}
		// The files that import the module f defines (or f itself), and
		// the other files of that module: for Go, the package's test files
		// share its test binary.
		for _, m := range append(w.g.Targets(f, graph.EdgeDefines), f) {
			for _, typ := range []string{graph.EdgeImports, graph.EdgeDefines} {
				for _, src := range w.g.Sources(m, typ) {
					if h, ok := w.g.NodeHeader(src); ok && h.Kind == graph.KindFile {
						queue = append(queue, src)
					}
				}
			}
		}
	}
	if len(testFiles) == 0 {
		return
	}
	suite := testSuite(w.g)
	for _, p := range testFiles {
		key := p
		if strings.HasSuffix(p, ".go") {
			key = testDir(p) // one test binary per package folder
		}
		for _, t := range suite[key] {
			w.selected[t] = true
		}
	}
}

// testSuite returns the tests of the graph by file, and by folder for Go
// (a package's tests share one binary).
type suiteIndex map[string][]testUnit

func (s suiteIndex) count() int {
	n := 0
	for k, l := range s {
		if !strings.HasSuffix(k, ".go") {
			n += len(l)
		}
	}
	return n
}

// testSuite indexes every test in the graph: by file path and, for Go,
// by folder too (count counts the folder entries and the non-Go files).
func testSuite(g *projections.Graph) suiteIndex {
	out := suiteIndex{}
	for _, f := range g.Files() {
		if !IsTestPath(f.Path) {
			continue
		}
		if jsTestExt[path.Ext(f.Path)] {
			out[f.Path] = []testUnit{{runner: jsRunner(g, f.Path), file: f.Path}}
			continue
		}
		queue := g.Targets(graph.SourceFileUID(f.Path), graph.EdgeContains)
		for len(queue) > 0 {
			uid := queue[0]
			queue = queue[1:]
			n, ok := g.NodeHeader(uid)
			if !ok || n.Path != f.Path {
				continue
			}
			if n.Kind == graph.KindClass {
				queue = append(queue, g.Targets(uid, graph.EdgeContains)...)
				continue
			}
			if t, ok := testUnitOf(g, n); ok {
				out[f.Path] = append(out[f.Path], t)
				if strings.HasSuffix(f.Path, ".go") {
					out[testDir(f.Path)] = append(out[testDir(f.Path)], t)
				}
			}
		}
	}
	return out
}

func countRunner(sel map[testUnit]bool, runner string) int {
	n := 0
	for t := range sel {
		if t.runner == runner {
			n++
		}
	}
	return n
}

// runsOf groups the selected tests into commands: a go test line per Go
// package (all of it when every test of the package is selected), a
// go-bench line per package with benchmarks, one pytest line of node ids
// (a whole file when all its tests are selected), one vitest and one jest
// line of files.
func runsOf(g *projections.Graph, sel map[testUnit]bool, suite suiteIndex) []TestRun {
	byRoot := map[string]map[testUnit]bool{}
	for t := range sel {
		name, _ := graph.SplitRoot(t.file)
		if byRoot[name] == nil {
			byRoot[name] = map[testUnit]bool{}
		}
		byRoot[name][t] = true
	}
	folders := map[string]string{}
	for _, r := range g.Roots() {
		folders[r.Name] = r.Root
	}
	runs := []TestRun{}
	for _, name := range slices.Sorted(mapKeys(byRoot)) {
		rs := rootRunsOf(g, name, byRoot[name], suite)
		for i := range rs {
			rs[i].Root = name
			// With one root the commands run in its folder as they are;
			// with several, each changes into its root's folder.
			if folder := folders[name]; folder != "" && len(folders) > 1 {
				rs[i].Command = fmt.Sprintf("(cd %s && %s)", shellWord(folder), rs[i].Command)
			}
		}
		runs = append(runs, rs...)
	}
	return runs
}

// testDir is the folder of the test file p as the suite keys a Go
// package: path.Dir of its path inside its root, with the root's name.
func testDir(p string) string {
	name, rel := graph.SplitRoot(p)
	return graph.RootPath(name, path.Dir(rel))
}

// rootRunsOf is runsOf for the tests of one root (name "" the primary):
// paths in the commands are relative to that root's folder.
func rootRunsOf(g *projections.Graph, name string, sel map[testUnit]bool, suite suiteIndex) []TestRun {
	rel := func(p string) string { _, r := graph.SplitRoot(p); return r }
	goPkgs := map[string][]string{}
	benchPkgs := map[string][]string{}
	pyFiles := map[string][]string{}
	js := map[string][]string{}
	for t := range sel {
		switch t.runner {
		case RunnerGo:
			goPkgs[testDir(t.file)] = append(goPkgs[testDir(t.file)], t.name)
		case RunnerGoBench:
			benchPkgs[testDir(t.file)] = append(benchPkgs[testDir(t.file)], t.name)
		case RunnerPytest:
			pyFiles[t.file] = append(pyFiles[t.file], t.name)
		default:
			js[t.runner] = append(js[t.runner], t.file)
		}
	}
	runs := []TestRun{}
	for _, dir := range slices.Sorted(mapKeys(goPkgs)) {
		names := slices.Compact(slices.Sorted(slices.Values(goPkgs[dir])))
		all := 0
		for _, t := range suite[dir] {
			if t.runner == RunnerGo {
				all++
			}
		}
		mod, pkg := goPackageArg(g, name, rel(dir))
		cmd := "go test " + pkg
		if len(names) < all && len(alternation(names)) <= maxRunPattern {
			cmd = fmt.Sprintf("go test -run '^%s$' %s", alternation(names), pkg)
		}
		runs = append(runs, TestRun{Runner: RunnerGo, Target: pkgTarget(rel(dir)), Tests: len(names), Command: inModule(mod, cmd)})
	}
	for _, dir := range slices.Sorted(mapKeys(benchPkgs)) {
		names := slices.Compact(slices.Sorted(slices.Values(benchPkgs[dir])))
		mod, pkg := goPackageArg(g, name, rel(dir))
		cmd := fmt.Sprintf("go test -run '^$' -bench '^%s$' %s", alternation(names), pkg)
		runs = append(runs, TestRun{Runner: RunnerGoBench, Target: pkgTarget(rel(dir)), Tests: len(names), Command: inModule(mod, cmd)})
	}
	if len(pyFiles) > 0 {
		var ids []string
		n := 0
		for _, f := range slices.Sorted(mapKeys(pyFiles)) {
			names := slices.Compact(slices.Sorted(slices.Values(pyFiles[f])))
			n += len(names)
			if len(names) == len(suite[f]) {
				ids = append(ids, shellWord(rel(f)))
				continue
			}
			for _, test := range names {
				ids = append(ids, shellWord(rel(f)+"::"+test))
			}
		}
		if len(strings.Join(ids, " ")) > 2*maxRunPattern {
			// Too many node ids to read whole: the files hold them.
			ids = ids[:0]
			for _, f := range slices.Sorted(mapKeys(pyFiles)) {
				ids = append(ids, shellWord(rel(f)))
			}
		}
		runs = append(runs, TestRun{Runner: RunnerPytest, Tests: n, Command: "pytest " + strings.Join(ids, " ")})
	}
	for _, runner := range []string{RunnerVitest, RunnerJest} {
		files := slices.Compact(slices.Sorted(slices.Values(js[runner])))
		if len(files) == 0 {
			continue
		}
		words := make([]string, len(files))
		for i, f := range files {
			words[i] = shellWord(rel(f))
		}
		cmd := "npx vitest run " + strings.Join(words, " ")
		if runner == RunnerJest {
			cmd = "npx jest " + strings.Join(words, " ")
		}
		runs = append(runs, TestRun{Runner: runner, Tests: len(files), Command: cmd})
	}
	return runs
}

// maxRunPattern is the longest -run pattern a command gets, in bytes:
// past it the command runs the package's whole suite, which holds the
// selection, so a command is never too long to read whole or to paste.
const maxRunPattern = 2000

// alternation is names as a regular expression group: "(A|B)", or the
// name alone.
func alternation(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "(" + strings.Join(names, "|") + ")"
}

// pkgTarget is the folder dir as go test names a package: "." for the
// root, "./dir" otherwise.
func pkgTarget(dir string) string {
	if dir == "." || dir == "" {
		return "."
	}
	return "./" + dir
}

// goPackageArg returns the folder of the Go module holding dir, a folder
// inside the root name (the nearest go.mod above it; "" when it is the
// root or none is known) and dir's package argument relative to that
// module.
func goPackageArg(g *projections.Graph, name, dir string) (mod, pkg string) {
	for d := dir; ; d = path.Dir(d) {
		if d == "." || d == "" || d == "/" {
			return "", pkgTarget(dir)
		}
		if g.HasNode(graph.SourceFileUID(graph.RootPath(name, d+"/go.mod"))) {
			rel := strings.TrimPrefix(strings.TrimPrefix(dir, d), "/")
			return d, pkgTarget(rel)
		}
	}
}

// inModule prefixes cmd with a cd into the module folder mod.
func inModule(mod, cmd string) string {
	if mod == "" {
		return cmd
	}
	return fmt.Sprintf("(cd %s && %s)", shellWord(mod), cmd)
}

// shellWord quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-:+=,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
