package scip_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/extract/scip"
)

// ToolsEnv names the folder the real indexers are installed in (npm
// install --prefix DIR …); .ci/run sets it. Without it they are looked for
// on PATH, and the tests that need them skip when they are absent.
const ToolsEnv = "COS_SCIP_TOOLS"

// fakeIndexer writes an executable shell script named like ix in a fresh
// folder's node_modules/.bin and returns the folder.
func fakeIndexer(t *testing.T, ix scip.Indexer, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, ix.Name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFind(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := scip.Find(scip.Python, ""); !errors.Is(err, scip.ErrIndexerMissing) || !strings.Contains(err.Error(), "npm install -g @sourcegraph/scip-python") {
		t.Errorf("Find on an empty PATH: %v", err)
	}
	if _, err := scip.Find(scip.Python, t.TempDir()); !errors.Is(err, scip.ErrIndexerMissing) {
		t.Errorf("Find in an empty folder: %v", err)
	}
	dir := fakeIndexer(t, scip.Python, "exit 0")
	exe, err := scip.Find(scip.Python, dir)
	if err != nil || exe != filepath.Join(dir, "node_modules", ".bin", "scip-python") {
		t.Errorf("Find = %q, %v", exe, err)
	}
	// A folder that is not there is a typo to report, even with the
	// indexer on PATH.
	t.Setenv("PATH", filepath.Join(dir, "node_modules", ".bin"))
	missing := filepath.Join(t.TempDir(), "nonexistent")
	if _, err := scip.Find(scip.Python, missing); !errors.Is(err, scip.ErrNoToolsFolder) || !strings.Contains(err.Error(), missing+" does not exist") {
		t.Errorf("Find in a missing folder: %v", err)
	}
	if _, err := scip.Find(scip.Python, exe); !errors.Is(err, scip.ErrNoToolsFolder) || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("Find in a file: %v", err)
	}
}

func TestRunIndexer_Errors(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name, script string
		timeout      time.Duration
		want         error
		says         string
	}{
		{"exit status", "echo 'boom: no python here' >&2; exit 3", 0, scip.ErrIndexerFailed, "boom: no python here"},
		{"no index written", "echo fine", 0, scip.ErrIndexerFailed, "without writing an index"},
		// The child sleep is killed with the group, or Run would wait for
		// its stdout to close.
		{"timeout", "sleep 30 & sleep 30", 300 * time.Millisecond, scip.ErrIndexerTimeout, "did not finish in 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakeIndexer(t, scip.Python, tt.script)
			exe, err := scip.Find(scip.Python, dir)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = scip.RunIndexer(context.Background(), scip.Python, exe, root, t.TempDir(), scip.RunOptions{Timeout: tt.timeout})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v, want %v saying %q", err, tt.want, tt.says)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// The arguments cos passes: offline switches, nothing written into root.
func TestRunIndexer_Arguments(t *testing.T) {
	root := t.TempDir()
	work := t.TempDir()
	argsFile := filepath.Join(work, "args")
	// Record the arguments, then write the --output file.
	script := `printf '%s\n' "$@" > ` + argsFile + `
while [ $# -gt 0 ]; do if [ "$1" = --output ]; then : > "$2"; fi; shift; done`
	for _, ix := range scip.Indexers {
		dir := fakeIndexer(t, ix, script)
		exe, _ := scip.Find(ix, dir)
		out, err := scip.RunIndexer(context.Background(), ix, exe, root, work, scip.RunOptions{Exclude: []string{"dist"}})
		if err != nil {
			t.Fatalf("%s: %v", ix.Name, err)
		}
		b, _ := os.ReadFile(argsFile)
		args := strings.Split(strings.TrimSpace(string(b)), "\n")
		if filepath.Dir(out) != work {
			t.Errorf("%s wrote its index to %s", ix.Name, out)
		}
		switch ix.Name {
		case "scip-python":
			i := slices.Index(args, "--environment")
			if i < 0 {
				t.Fatalf("scip-python args %v: no --environment", args)
			}
			if env, _ := os.ReadFile(args[i+1]); strings.TrimSpace(string(env)) != "[]" {
				t.Errorf("environment file = %q", env)
			}
		case "scip-typescript":
			cfg := args[len(args)-1]
			if filepath.Dir(cfg) != work || filepath.Base(cfg) != "tsconfig.json" {
				t.Fatalf("scip-typescript project %q, want a tsconfig.json in the work folder", cfg)
			}
			b, _ := os.ReadFile(cfg)
			if !strings.Contains(string(b), `"allowJs": true`) || !strings.Contains(string(b), "**/dist") {
				t.Errorf("tsconfig = %s", b)
			}
		}
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("%s wrote into the tree: %v", ix.Name, entries)
		}
	}
}

// realIndexer finds an installed indexer or skips, saying how to get it.
func realIndexer(t *testing.T, ix scip.Indexer) string {
	t.Helper()
	exe, err := scip.Find(ix, os.Getenv(ToolsEnv))
	if err != nil {
		t.Skipf("%v (set %s to the folder of npm install --prefix DIR %s)", err, ToolsEnv, ix.Package)
	}
	return exe
}

func TestRunIndexer_RealTypeScript(t *testing.T) {
	exe := realIndexer(t, scip.TypeScript)
	root := writeTree(t, map[string]string{
		"src/util.js": "export function helper(v) { return v * 2; }\n",
		"src/shape.ts": `import { helper } from './util';
export class Shape {
  area(): number { return helper(1); }
}
export function total(shapes: Shape[]): number {
  let t = 0;
  for (const s of shapes) t += s.area();
  return t;
}
export const make = () => new Shape();
`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := scip.RunIndexer(ctx, scip.TypeScript, exe, root, t.TempDir(), scip.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := scip.Open(out, root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(x.Indexer, "scip-typescript ") || !slices.Equal(x.Paths(), []string{"src/shape.ts", "src/util.js"}) {
		t.Fatalf("index by %q of %v", x.Indexer, x.Paths())
	}
	ps := extractTree(t, root)
	res := scip.Merge(root, ps, x)
	if len(res.Precise) != 2 {
		t.Fatalf("Precise = %v, skipped %v", res.Precise, res.Skipped)
	}
	want := []string{
		"calls code:function:src/shape.ts::Shape.area -> code:function:src/util.js::helper @3",
		"calls code:function:src/shape.ts::make -> code:class:src/shape.ts::Shape @10",
		"calls code:function:src/shape.ts::total -> code:function:src/shape.ts::Shape.area @7",
		"references code:function:src/shape.ts::total -> code:class:src/shape.ts::Shape @5",
	}
	if got := callEdges(ps, false); !slices.Equal(got, want) {
		t.Errorf("edges:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if _, err := os.Stat(filepath.Join(root, "tsconfig.json")); err == nil {
		t.Error("a tsconfig.json was written into the tree")
	}
}

func TestRunIndexer_RealPython(t *testing.T) {
	exe := realIndexer(t, scip.Python)
	root := writeTree(t, map[string]string{
		"pkg/__init__.py": "",
		"pkg/b.py": `class Greeter:
    def greet(self, who: str) -> str:
        return "hi " + who
`,
		"pkg/a.py": `from .b import Greeter

def main(g: Greeter) -> str:
    return g.greet("x")

def untyped(g):
    return g.greet("y")
`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := scip.RunIndexer(ctx, scip.Python, exe, root, t.TempDir(), scip.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := scip.Open(out, root)
	if err != nil {
		t.Fatal(err)
	}
	ps := extractTree(t, root)
	res := scip.Merge(root, ps, x)
	if !slices.Contains(res.Precise, "pkg/a.py") {
		t.Fatalf("Precise = %v, skipped %v", res.Precise, res.Skipped)
	}
	got := callEdges(ps, true)
	for _, w := range []string{
		"calls code:function:pkg/a.py::main -> code:function:pkg/b.py::Greeter.greet @4",
		"references code:function:pkg/a.py::main -> code:class:pkg/b.py::Greeter @3",
		// g is untyped: no type checker knows what greet is.
		"calls code:function:pkg/a.py::untyped -> code:external:*.greet @7",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in\n%s", w, strings.Join(got, "\n"))
		}
	}
}
