package indexing

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// callsOf returns the targets of the calls edges of uid, sorted.
func callsOf(t *testing.T, st *state.State, uid string) []string {
	t.Helper()
	var got []string
	if err := st.ReadStrict(context.Background(), func(v state.View) {
		for _, e := range v.Graph.Out(uid) {
			if e.Type == "calls" {
				got = append(got, e.Target)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// impactOf returns the depth-1 dependents cos_graph_impact lists for uid.
func impactOf(t *testing.T, st *state.State, uid string) []string {
	t.Helper()
	var got []string
	if err := st.ReadStrict(context.Background(), func(v state.View) {
		im, err := query.ImpactOf(context.Background(), v.Graph, uid, query.ImpactEdgeTypes, 1, false, true, query.Scope{IncludeBuildExcluded: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range im.Page(0, im.Total) {
			got = append(got, d.UID)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// A JavaScript or TypeScript root importing a package another root
// declares (its package.json name, a subpath of it, a tsconfig.json path
// mapping into it) and a Python root importing a package another root
// holds call that root's functions, whichever root was indexed first; the
// library's impact lists the callers; removing the library takes the
// calls back to packages and stubs.
func TestRoots_ImportsCrossRoots(t *testing.T) {
	for _, libFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "library first", false: "service first"}[libFirst], func(t *testing.T) {
			ctx := context.Background()
			parent := testutil.WriteTree(t, map[string]string{
				"lib/package.json":          `{"name": "@org/lib", "main": "dist/index.js", "types": "dist/index.d.ts"}`,
				"lib/src/index.ts":          "export * from \"./util\";\nexport function top(): number { return 2 }\n",
				"lib/src/util.ts":           "export function helper(): number { return 1 }\n",
				"lib/pyproject.toml":        "[project]\nversion = \"1\"\nname = \"pylib\"\n",
				"lib/src/pylib/__init__.py": "",
				"lib/src/pylib/mod.py":      "def f():\n    return 1\n",
				"svc/package.json":          `{"name": "svc", "dependencies": {"@org/lib": "*"}}`,
				"svc/tsconfig.json":         "{\n  // the library's sources\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@lib/*\": [\"../lib/src/*\"],},},\n}\n",
				"svc/src/main.ts":           "import {helper, top} from \"@org/lib\";\nimport {helper as h2} from \"@org/lib/util\";\n\nexport function run() {\n  helper();\n  top();\n  h2();\n}\n",
				"svc/src/paths.ts":          "import {helper} from \"@lib/util\";\n\nexport function viaPaths() {\n  helper();\n}\n",
				"svc/src/old.js":            "const {top} = require(\"@org/lib\");\n\nfunction legacy() {\n  top();\n}\nmodule.exports = {legacy};\n",
				"svc/app.py":                "from pylib.mod import f\nimport pylib.mod\n\n\ndef main():\n    f()\n    pylib.mod.f()\n",
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
			libRoot, svcRoot := "", "svc//"
			if !libFirst {
				libRoot, svcRoot = "lib//", ""
				if len(reps[1].Dependents) != 1 || reps[1].Dependents[0].Root != svc || reps[1].Dependents[0].FilesChanged != 4 {
					t.Fatalf("adding the library re-extracted %+v, want the service's 4 importing files", reps[1].Dependents)
				}
			}
			fn := func(root, p, name string) string { return "code:function:" + root + p + "::" + name }
			helper, top, f := fn(libRoot, "src/util.ts", "helper"), fn(libRoot, "src/index.ts", "top"), fn(libRoot, "src/pylib/mod.py", "f")
			for _, c := range []struct {
				caller string
				want   []string
			}{
				{fn(svcRoot, "src/main.ts", "run"), []string{top, helper}},
				{fn(svcRoot, "src/paths.ts", "viaPaths"), []string{helper}},
				{fn(svcRoot, "src/old.js", "legacy"), []string{top}},
				{fn(svcRoot, "app.py", "main"), []string{f}},
			} {
				slices.Sort(c.want)
				if got := callsOf(t, st, c.caller); !slices.Equal(got, c.want) {
					t.Fatalf("calls of %s = %v, want %v", c.caller, got, c.want)
				}
			}
			if got, want := impactOf(t, st, helper), []string{fn(svcRoot, "src/main.ts", "run"), fn(svcRoot, "src/paths.ts", "viaPaths")}; !slices.Equal(got, want) {
				t.Fatalf("impact of %s = %v, want %v", helper, got, want)
			}
			if got, want := impactOf(t, st, f), []string{fn(svcRoot, "app.py", "main")}; !slices.Equal(got, want) {
				t.Fatalf("impact of %s = %v, want %v", f, got, want)
			}

			// Removing the library: the service's calls are stubs again,
			// and none points into the removed root.
			out, err := x.RemoveRoot(ctx, map[bool]string{true: "primary", false: "lib"}[libFirst])
			if err != nil || len(out.Dependents) != 1 || out.Root != lib {
				t.Fatalf("remove the library: %+v %v", out, err)
			}
			for _, caller := range []string{fn("", "src/main.ts", "run"), fn("", "src/paths.ts", "viaPaths"), fn("", "app.py", "main")} {
				if libFirst {
					caller = strings.Replace(caller, "code:function:", "code:function:svc//", 1)
				}
				got := callsOf(t, st, caller)
				if len(got) == 0 {
					t.Fatalf("calls of %s after removing the library: none", caller)
				}
				for _, g := range got {
					if !strings.HasPrefix(g, "code:external:") {
						t.Fatalf("calls of %s after removing the library = %v, want stubs only", caller, got)
					}
				}
			}
		})
	}
}

// An import of a package a package.json of the same tree declares (a
// workspace member) lands on its file.
func TestRoots_WorkspaceImportsInTree(t *testing.T) {
	ctx := context.Background()
	dir := testutil.WriteTree(t, map[string]string{
		"package.json":               `{"name": "mono", "private": true, "workspaces": ["packages/*"]}`,
		"packages/core/package.json": `{"name": "@mono/core", "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"}, "./fmt": "./src/fmt.ts"}}`,
		"packages/core/src/index.ts": "export function core(): number { return 1 }\n",
		"packages/core/src/fmt.ts":   "export function fmt(): string { return \"\" }\n",
		"packages/app/package.json":  `{"name": "@mono/app"}`,
		"packages/app/index.js":      "import {core} from \"@mono/core\";\nimport {fmt} from \"@mono/core/fmt\";\nimport {x} from \"left-pad\";\n\nexport function start() {\n  core();\n  fmt();\n  x();\n}\n",
	})
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{dir}})
	if _, err := x.IndexWith(ctx, dir, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"code:external:left-pad.x", "code:function:packages/core/src/fmt.ts::fmt", "code:function:packages/core/src/index.ts::core"}
	if got := callsOf(t, st, "code:function:packages/app/index.js::start"); !slices.Equal(got, want) {
		t.Fatalf("calls of start = %v, want %v", got, want)
	}
}

// A declaration of one root that another root calls is renamed: indexing
// the library again extracts the caller again, whose call then lands on a
// stub (or the new place) instead of pointing at nothing; the run reports
// the caller's root among its dependents.
func TestRoots_RenameInLibraryReextractsCallers(t *testing.T) {
	ctx := context.Background()
	parent := testutil.WriteTree(t, map[string]string{
		"lib/pyproject.toml":        "[project]\nversion = \"1\"\nname = \"pylib\"\n",
		"lib/src/pylib/__init__.py": "",
		"lib/src/pylib/mod.py":      "def f():\n    return 1\n",
		"svc/app.py":                "from pylib.mod import f\n\n\ndef main():\n    f()\n",
	})
	parent, _ = filepath.EvalSymlinks(parent)
	lib, svc := filepath.Join(parent, "lib"), filepath.Join(parent, "svc")
	x, st := openIndexer(t, t.TempDir(), Options{Roots: []string{parent}})
	for _, dir := range []string{svc, lib} {
		if _, err := x.IndexWith(ctx, dir, RunOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := callsOf(t, st, "code:function:app.py::main"); !slices.Equal(got, []string{"code:function:lib//src/pylib/mod.py::f"}) {
		t.Fatalf("before the rename: main calls %v", got)
	}
	if err := os.WriteFile(filepath.Join(lib, "src/pylib/mod.py"), []byte("def g():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := x.IndexWith(ctx, lib, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := callsOf(t, st, "code:function:app.py::main")
	if len(got) != 1 || got[0] == "code:function:lib//src/pylib/mod.py::f" || !strings.HasPrefix(got[0], "code:external:") {
		t.Fatalf("after the rename: main calls %v, want a stub", got)
	}
	if len(rep.Dependents) != 1 || rep.Dependents[0].Root != svc || rep.Dependents[0].FilesChanged != 1 {
		t.Fatalf("dependents %+v, want the service's one file", rep.Dependents)
	}
}
