package indexing

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
)

// graphFiles returns the paths of the files the graph holds, sorted, and
// its roots.
func graphFiles(t *testing.T, st *state.State) ([]string, []projections.IndexRun) {
	t.Helper()
	var (
		files []string
		roots []projections.IndexRun
	)
	if err := st.ReadStrict(context.Background(), func(v state.View) {
		for p := range v.Graph.FileHashes() {
			files = append(files, p)
		}
		roots = v.Graph.Roots()
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files, roots
}

// A state folder holds several roots: a folder inside the primary root
// refreshes that part only (nothing is removed, uids stay), another folder
// is added under its name with name//path uids, a folder holding a root is
// refused, and removing a root removes its files only.
func TestRoots_RefreshAddRemove(t *testing.T) {
	ctx := context.Background()
	svc := testutil.WriteTree(t, map[string]string{
		"go.mod":           "module example.com/svc\n\ngo 1.22\n",
		"main.go":          "package main\n\nimport \"example.com/svc/shapes\"\n\nfunc main() { _ = shapes.Total() }\n",
		"shapes/shapes.go": "package shapes\n\n// Total sums.\nfunc Total() int { return 1 }\n",
		"README.md":        "# svc\n",
	})
	lib := testutil.WriteTree(t, map[string]string{
		"util.py":   "def helper():\n    return 1\n",
		"README.md": "# lib\n",
	})
	svc, _ = filepath.EvalSymlinks(svc)
	lib, _ = filepath.EvalSymlinks(lib)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{filepath.Dir(svc), filepath.Dir(lib)}})

	if _, err := x.IndexWith(ctx, svc, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := graphFiles(t, st)
	want := []string{"README.md", "go.mod", "main.go", "shapes/shapes.go"}
	if !slices.Equal(before, want) {
		t.Fatalf("files after the first index = %v, want %v", before, want)
	}

	// A folder inside the root: a refresh of that part, nothing removed.
	rep, err := x.IndexWith(ctx, filepath.Join(svc, "shapes"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesRemoved != 0 || rep.Root != svc || rep.Under != "shapes" || rep.RootName != "" || rep.RootAdded {
		t.Fatalf("refresh of shapes: %+v", rep)
	}
	if after, _ := graphFiles(t, st); !slices.Equal(after, want) {
		t.Fatalf("files after refreshing shapes = %v, want %v", after, want)
	}

	// Another folder: a second root, named after its folder.
	rep, err = x.IndexWith(ctx, lib, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(lib)
	if !rep.RootAdded || rep.RootName != rootNameOf(name) || rep.FilesRemoved != 0 {
		t.Fatalf("second root: %+v", rep)
	}
	name = rep.RootName
	files, roots := graphFiles(t, st)
	want2 := append(slices.Clone(want), name+"//README.md", name+"//util.py")
	slices.Sort(want2)
	if !slices.Equal(files, want2) {
		t.Fatalf("files with two roots = %v, want %v", files, want2)
	}
	if len(roots) != 2 || roots[0].Name != "" || roots[0].Root != svc || roots[1].Name != name || roots[1].Root != lib {
		t.Fatalf("roots = %+v", roots)
	}
	var fn, file bool
	if err := st.ReadStrict(ctx, func(v state.View) {
		_, fn = v.Graph.Node("code:function:" + name + "//util.py::helper")
		_, file = v.Graph.Node("code:function:shapes/shapes.go::Total")
	}); err != nil {
		t.Fatal(err)
	}
	if !fn || !file {
		t.Fatalf("the second root's function found %v, the first root's %v; want both", fn, file)
	}

	// Indexing the primary root again leaves the second one alone.
	if rep, err := x.IndexWith(ctx, svc, RunOptions{}); err != nil || rep.FilesRemoved != 0 || rep.Events != 0 {
		t.Fatalf("refresh of the primary root: %+v %v", rep, err)
	}

	// A folder holding a root is refused, and changes nothing.
	_, err = x.IndexWith(ctx, filepath.Dir(lib), RunOptions{})
	var ee *envelope.Error
	if !errors.As(err, &ee) || ee.Code != envelope.CodeArgument {
		t.Fatalf("indexing a folder that holds a root: %v, want E_ARGUMENT", err)
	}
	if got, _ := graphFiles(t, st); !slices.Equal(got, want2) {
		t.Fatalf("files after a refused index = %v", got)
	}

	// Removing the second root takes its files only; naming no root is
	// E_NOT_FOUND.
	if _, err := x.RemoveRoot(ctx, "no-such-root"); !errors.As(err, &ee) || ee.Code != envelope.CodeNotFound {
		t.Fatalf("removing an unknown root: %v, want E_NOT_FOUND", err)
	}
	out, err := x.RemoveRoot(ctx, name)
	if err != nil || out.FilesRemoved != 2 || out.Root != lib {
		t.Fatalf("remove: %+v %v", out, err)
	}
	files, roots = graphFiles(t, st)
	if !slices.Equal(files, want) || len(roots) != 1 || roots[0].Root != svc {
		t.Fatalf("after removing the second root: files %v roots %+v", files, roots)
	}

	// Indexed again, it comes back whole (its extractor cache went with it).
	rep, err = x.IndexWith(ctx, lib, RunOptions{Name: "lib"})
	if err != nil || rep.RootName != "lib" || rep.FilesChanged != 2 {
		t.Fatalf("second root again, named lib: %+v %v", rep, err)
	}
}

// A graph with several roots survives a snapshot: the roots decode as
// they were encoded.
func TestRoots_Snapshot(t *testing.T) {
	ctx := context.Background()
	a := testutil.WriteTree(t, map[string]string{"a.py": "def f():\n    pass\n"})
	b := testutil.WriteTree(t, map[string]string{"b.py": "def g():\n    pass\n"})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{filepath.Dir(a), filepath.Dir(b)}})
	for _, r := range []string{a, b} {
		if _, err := x.IndexWith(ctx, r, RunOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var data []byte
	var want []projections.IndexRun
	if err := st.ReadStrict(ctx, func(v state.View) {
		want = v.Graph.Roots()
		var err error
		data, err = v.Graph.MarshalSnapshot()
		if err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	g := projections.NewGraph()
	if err := g.UnmarshalSnapshot(data); err != nil {
		t.Fatal(err)
	}
	got := g.Roots()
	if len(got) != 2 || !slices.Equal(got, want) {
		t.Fatalf("roots after a snapshot = %+v, want %+v", got, want)
	}
	if last, ok := g.LastIndex(); !ok || last.Name != want[1].Name {
		t.Fatalf("last run after a snapshot = %+v, want the second root's", last)
	}
}

// A Go module that replaces a module that is another root is type-checked
// against it: its calls land on that root's nodes, whichever root was
// indexed first (indexed second, the library makes the service's Go files
// extracted again), and impact crosses the roots.
func TestRoots_GoCallsCrossRoots(t *testing.T) {
	// The service reaches the library by a replace, or by a bare require
	// (read from the library root's working tree, not the module cache).
	svcMods := map[string]string{
		"replace":      "module example.com/svc\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n",
		"bare require": "module example.com/svc\n\ngo 1.22\n\nrequire example.com/lib v1.2.3\n",
	}
	for _, how := range []string{"replace", "bare require"} {
		for _, libFirst := range []bool{true, false} {
			t.Run(how+"/"+map[bool]string{true: "library first", false: "service first"}[libFirst], func(t *testing.T) {
				testGoCallsCrossRoots(t, svcMods[how], libFirst)
			})
		}
	}
}

// testGoCallsCrossRoots indexes a library and a service as two roots in
// either order and checks the service's calls land on the library's nodes,
// and go back to stubs once the library root is removed.
func testGoCallsCrossRoots(t *testing.T, svcMod string, libFirst bool) {
	t.Helper()
	ctx := context.Background()
	parent := testutil.WriteTree(t, map[string]string{
		"lib/go.mod":  "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go":  "package lib\n\n// Help helps.\nfunc Help() int { return 1 }\n\n// Box holds.\ntype Box struct{ N int }\n\n// Get gets.\nfunc (b *Box) Get() int { return b.N }\n",
		"svc/go.mod":  svcMod,
		"svc/main.go": "package main\n\nimport \"example.com/lib\"\n\nfunc main() {\n\tb := &lib.Box{N: lib.Help()}\n\t_ = b.Get()\n}\n",
	})
	parent, _ = filepath.EvalSymlinks(parent)
	lib, svc := filepath.Join(parent, "lib"), filepath.Join(parent, "svc")
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{parent}})
	order := []string{svc, lib}
	if libFirst {
		order = []string{lib, svc}
	}
	var reps []Report
	for _, r := range order {
		rep, err := x.IndexWith(ctx, r, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	// The uids of each root: the first one indexed is the primary.
	libPath, svcPath := "lib.go", "svc//main.go"
	if !libFirst {
		libPath, svcPath = "lib//lib.go", "main.go"
		if len(reps[1].Dependents) != 1 || reps[1].Dependents[0].Root != svc {
			t.Fatalf("adding the library re-extracted %+v, want the service", reps[1].Dependents)
		}
	}
	main := "code:function:" + svcPath + "::main"
	want := []string{"code:function:" + libPath + "::Box.Get", "code:function:" + libPath + "::Help"}
	var got []string
	if err := st.ReadStrict(ctx, func(v state.View) {
		for _, e := range v.Graph.Out(main) {
			if e.Type == "calls" {
				got = append(got, e.Target)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("calls of %s = %v, want %v", main, got, want)
	}

	// Removing the library takes the service's calls back to
	// stubs: no edge is left pointing at nothing.
	out, err := x.RemoveRoot(ctx, map[bool]string{true: "primary", false: "lib"}[libFirst])
	if err != nil || len(out.Dependents) != 1 || out.Root != lib {
		t.Fatalf("remove the library: %+v %v", out, err)
	}
	if !libFirst {
		main = "code:function:main.go::main"
	}
	got = nil
	if err := st.ReadStrict(ctx, func(v state.View) {
		for _, e := range v.Graph.Out(main) {
			if e.Type == "calls" {
				got = append(got, e.Target)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"code:external:example.com/lib.Box.Get", "code:external:example.com/lib.Help"}; !slices.Equal(got, want) {
		t.Fatalf("calls of %s after removing the library = %v, want %v", main, got, want)
	}
}

// A name wins over a folder of that name in the working directory;
// primary names the first root; a name is refused where it would be
// ignored (the first root, a folder inside a root) and where it is taken.
func TestRoots_NamesAreExact(t *testing.T) {
	ctx := context.Background()
	parent := testutil.WriteTree(t, map[string]string{"json/a.py": "def a():\n    pass\n", "url/b.py": "def b():\n    pass\n"})
	parent, _ = filepath.EvalSymlinks(parent)
	t.Chdir(parent)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{parent}})
	var ee *envelope.Error
	if _, err := x.IndexWith(ctx, filepath.Join(parent, "json"), RunOptions{Name: "x"}); !errors.As(err, &ee) || ee.Code != envelope.CodeArgument {
		t.Fatalf("a name for the first root: %v, want E_ARGUMENT", err)
	}
	if _, err := x.IndexWith(ctx, filepath.Join(parent, "json"), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"primary"} {
		if _, err := x.IndexWith(ctx, filepath.Join(parent, "url"), RunOptions{Name: name}); !errors.As(err, &ee) || ee.Code != envelope.CodeArgument {
			t.Fatalf("the name %q: %v, want E_ARGUMENT", name, err)
		}
	}
	if rep, err := x.IndexWith(ctx, filepath.Join(parent, "url"), RunOptions{Name: "json"}); err != nil || rep.RootName != "json" {
		t.Fatalf("url named json: %+v %v", rep, err)
	}
	out, err := x.RemoveRoot(ctx, "json")
	if err != nil || out.Name != "json" || out.Root != filepath.Join(parent, "url") {
		t.Fatalf("remove json removed %+v (%v); want the root named json, not the folder json", out, err)
	}
	if files, _ := graphFiles(t, st); !slices.Equal(files, []string{"a.py"}) {
		t.Fatalf("files after removing the root named json = %v", files)
	}
	if out, err := x.RemoveRoot(ctx, "primary"); err != nil || out.Name != "" {
		t.Fatalf("remove primary: %+v %v", out, err)
	}
	if _, err := x.RemoveRoot(ctx, "primary"); !errors.As(err, &ee) || ee.Code != envelope.CodeNotFound || !strings.Contains(ee.Message, "no root is indexed") {
		t.Fatalf("remove with no root left: %v", err)
	}
}

// The watcher keeps every root current: an edit in a second root, added
// while the watch runs, is in the graph under that root's paths.
func TestRoots_WatchEveryRoot(t *testing.T) {
	a := testutil.GitRepo(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	b := testutil.GitRepo(t, map[string]string{"b.py": "def g():\n    return 2\n"})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{a.Root, b.Root}})
	if _, err := x.IndexWith(context.Background(), a.Root, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	runs := startWatch(t, x, WatchOptions{RootPoll: 50 * time.Millisecond})
	waitFor(t, 5*time.Second, "the watcher's first run", func() bool { return runs.Load() >= 1 })
	if _, err := x.IndexWith(context.Background(), b.Root, RunOptions{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the watcher does not watch the second root", func() bool {
		on, roots := x.Watching()
		return on && strings.Contains(roots, b.Root) && strings.Contains(roots, a.Root)
	})
	content := "def g():\n    return 20\n\n\ndef h():\n    return g()\n"
	b.Write("b.py", content)
	waitFor(t, 5*time.Second, "the edit of the second root is not in the graph", func() bool { return fileHash(t, st, "b//b.py") == sha(content) })
	a.Write("a.py", "def f():\n    return 10\n")
	waitFor(t, 5*time.Second, "the edit of the first root is not in the graph", func() bool {
		return fileHash(t, st, "a.py") == sha("def f():\n    return 10\n")
	})
}

// The primary root removed while a named root stays: indexing its folder
// again gives back the uids it had (no name), and the named root keeps
// its own.
func TestRoots_PrimaryReaddedKeepsItsUIDs(t *testing.T) {
	ctx := context.Background()
	parent := testutil.WriteTree(t, map[string]string{"app/a.py": "def a():\n    pass\n", "lib/b.py": "def b():\n    pass\n"})
	parent, _ = filepath.EvalSymlinks(parent)
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{parent}})
	app, lib := filepath.Join(parent, "app"), filepath.Join(parent, "lib")
	for _, dir := range []string{app, lib} {
		if _, err := x.IndexWith(ctx, dir, RunOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := x.RemoveRoot(ctx, "primary"); err != nil {
		t.Fatal(err)
	}
	if files, _ := graphFiles(t, st); !slices.Equal(files, []string{"lib//b.py"}) {
		t.Fatalf("files after removing the primary root = %v", files)
	}
	rep, err := x.IndexWith(ctx, app, RunOptions{})
	if err != nil || rep.RootName != "" || !rep.RootAdded {
		t.Fatalf("the primary folder again: %+v %v", rep, err)
	}
	if files, _ := graphFiles(t, st); !slices.Equal(files, []string{"a.py", "lib//b.py"}) {
		t.Fatalf("files after adding the primary folder again = %v", files)
	}
}
