package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// testsToRunOf is the tests_to_run section of a cos_graph_changes answer.
type testsToRunOf struct {
	Selected     int    `json:"selected"`
	Suite        int    `json:"suite"`
	Completeness string `json:"completeness"`
	Runs         []struct {
		Runner  string `json:"runner"`
		Root    string `json:"root"`
		Target  string `json:"target"`
		Tests   int    `json:"tests"`
		Command string `json:"command"`
	} `json:"runs"`
	Note string `json:"note"`
}

func testsToRunCall(t *testing.T, s *testServer) testsToRunOf {
	t.Helper()
	e := idxCall(t, s, "cos_graph_changes", `{}`)
	if !e.OK {
		t.Fatalf("cos_graph_changes: %s %s", e.Error.Code, e.Error.Message)
	}
	b, _ := json.Marshal(e.Data["tests_to_run"])
	var tr testsToRunOf
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr testsToRunOf) commands() []string {
	out := []string{}
	for _, r := range tr.Runs {
		out = append(out, r.Command)
	}
	return out
}

// testsGoRepo is a module with tests in two packages: lib's tests reach
// Square.Area through the Shape interface (TestTotal), Double as a func
// value (TestApply), through a helper (TestHelper) and a benchmark, and
// Triple from a package-level variable of the test file, build from one
// of the package; app's tests reach lib.Total through app.Run.
var testsGoRepo = map[string]string{
	"go.mod": "module example.com/fx\n\ngo 1.22\n",
	"lib/lib.go": `package lib

// Shape has an area.
type Shape interface{ Area() int }

// Square is a shape.
type Square struct{ S int }

// Area is the square's area.
func (q Square) Area() int { return q.S * q.S }

// Total sums areas through the interface.
func Total(xs []Shape) int {
	t := 0
	for _, x := range xs {
		t += x.Area()
	}
	return t
}

// Double doubles.
func Double(n int) int { return 2 * n }

// Apply applies f.
func Apply(f func(int) int, n int) int { return f(n) }

// Triple triples.
func Triple(n int) int { return 3 * n }

var table = build()

func build() int { return 1 }
`,
	"lib/lib_test.go": `package lib

import "testing"

var fixture = Triple(1)

func TestTotal(t *testing.T) {
	if Total([]Shape{Square{2}}) != 4 {
		t.Fatal("total")
	}
}

func TestApply(t *testing.T) {
	if Apply(Double, 2) != 4 {
		t.Fatal("apply")
	}
}

func helper() int { return Double(1) }

func TestHelper(t *testing.T) { _ = helper() }

func BenchmarkDouble(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Double(i)
	}
}
`,
	"app/app.go": "package app\n\nimport \"example.com/fx/lib\"\n\n// Run runs.\nfunc Run() int { return lib.Total(nil) }\n\n// Idle does nothing.\nfunc Idle() int { return 0 }\n",
	"app/app_test.go": "package app_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/fx/app\"\n)\n\n" +
		"func TestRun(t *testing.T) { _ = app.Run() }\n\nfunc TestIdle(t *testing.T) { _ = app.Idle() }\n\nfunc ExampleRun() { _ = app.Run() }\n",
}

func TestGraphChanges_TestsToRun_Go(t *testing.T) {
	lib := testsGoRepo["lib/lib.go"]
	for _, tc := range []struct {
		name, from, to string
		want           []string
		selected       int
	}{
		// An implementation of an interface method: the callers of the
		// interface method, across packages.
		{"interface dispatch", "return q.S * q.S", "return q.S * q.S * 1", []string{
			"go test -run '^(ExampleRun|TestRun)$' ./app",
			"go test -run '^TestTotal$' ./lib",
		}, 3},
		// A function passed as a value and called through a helper.
		{"func value", "return 2 * n", "return n + n", []string{
			"go test -run '^(TestApply|TestHelper)$' ./lib",
			"go test -run '^$' -bench '^BenchmarkDouble$' ./lib",
		}, 3},
		// A package-level variable of a test file runs in every test of
		// the package.
		{"package-level use", "return 3 * n", "return n + n + n", []string{
			"go test ./lib",
			"go test -run '^$' -bench '^BenchmarkDouble$' ./lib",
		}, 4},
		// A package-level variable of the package: every test of the
		// package and of the packages that import it.
		{"package initialiser", "func build() int { return 1 }", "func build() int { return 2 }", []string{
			"go test ./app",
			"go test ./lib",
			"go test -run '^$' -bench '^BenchmarkDouble$' ./lib",
		}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, s := changesSetup(t, testsGoRepo)
			g.Write("lib/lib.go", strings.Replace(lib, tc.from, tc.to, 1))
			tr := testsToRunCall(t, s)
			if got := tr.commands(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands = %q, want %q", got, tc.want)
			}
			// lib: 3 tests and a benchmark; app: 2 tests and an example.
			if tr.Selected != tc.selected || tr.Suite != 7 || tr.Completeness == "" {
				t.Errorf("selected %d of %d (%s), want %d of 7", tr.Selected, tr.Suite, tr.Completeness, tc.selected)
			}
		})
	}
}

func TestGraphChanges_TestsToRun_ChangedTest(t *testing.T) {
	g, s := changesSetup(t, testsGoRepo)
	// A test changes, nothing else: it is selected itself.
	g.Write("app/app_test.go", strings.Replace(testsGoRepo["app/app_test.go"], "_ = app.Idle()", "_ = app.Idle() + 1", 1))
	tr := testsToRunCall(t, s)
	if got, want := tr.commands(), []string{"go test -run '^TestIdle$' ./app"}; !reflect.DeepEqual(got, want) {
		t.Errorf("commands = %q, want %q", got, want)
	}
}

func TestGraphChanges_TestsToRun_Pytest(t *testing.T) {
	g, s := changesSetup(t, map[string]string{
		"shop/__init__.py": "",
		"shop/cart.py": "def price(x):\n    return x * 2\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n" +
			"    def add(self, x):\n        self.items.append(price(x))\n\n\ndef unused():\n    return 0\n",
		"tests/test_cart.py": "from shop.cart import Cart, price\n\n\ndef test_price():\n    assert price(1) == 2\n\n\n" +
			"class TestCart:\n    def test_add(self):\n        c = Cart()\n        c.add(1)\n\n\ndef test_other():\n    assert True\n",
	})
	// The constructor changes: the test that constructs a Cart.
	g.Write("shop/cart.py", "def price(x):\n    return x * 2\n\n\nclass Cart:\n    def __init__(self):\n        self.items = list()\n\n"+
		"    def add(self, x):\n        self.items.append(price(x))\n\n\ndef unused():\n    return 0\n")
	tr := testsToRunCall(t, s)
	if got, want := tr.commands(), []string{"pytest tests/test_cart.py::TestCart::test_add"}; !reflect.DeepEqual(got, want) {
		t.Errorf("constructor: commands = %q, want %q", got, want)
	}
	if tr.Selected != 1 || tr.Suite != 3 {
		t.Errorf("selected %d of %d, want 1 of 3", tr.Selected, tr.Suite)
	}
	// price: called by a test and by Cart.add, which a test calls.
	g.Write("shop/cart.py", "def price(x):\n    return x + x\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n"+
		"    def add(self, x):\n        self.items.append(price(x))\n\n\ndef unused():\n    return 0\n")
	tr = testsToRunCall(t, s)
	if got, want := tr.commands(), []string{"pytest tests/test_cart.py::TestCart::test_add tests/test_cart.py::test_price"}; !reflect.DeepEqual(got, want) {
		t.Errorf("price: commands = %q, want %q", got, want)
	}
}

func TestGraphChanges_TestsToRun_Vitest(t *testing.T) {
	g, s := changesSetup(t, map[string]string{
		"web/sum.ts":      "export function sum(a: number, b: number): number {\n  return a + b;\n}\n\nexport function neg(a: number): number {\n  return -a;\n}\n",
		"web/sum.test.ts": "import { describe, it, expect } from \"vitest\";\nimport { sum } from \"./sum\";\n\ndescribe(\"sum\", () => {\n  it(\"adds\", () => {\n    expect(sum(1, 2)).toBe(3);\n  });\n});\n",
		"web/neg.test.ts": "import { it, expect } from \"vitest\";\nimport { neg } from \"./sum\";\n\nit(\"negates\", () => {\n  expect(neg(1)).toBe(-1);\n});\n",
	})
	g.Write("web/sum.ts", "export function sum(a: number, b: number): number {\n  return b + a;\n}\n\nexport function neg(a: number): number {\n  return -a;\n}\n")
	tr := testsToRunCall(t, s)
	if got, want := tr.commands(), []string{"npx vitest run web/sum.test.ts"}; !reflect.DeepEqual(got, want) {
		t.Errorf("commands = %q, want %q", got, want)
	}
	if tr.Selected != 1 || tr.Suite != 2 {
		t.Errorf("selected %d of %d, want 1 of 2 (a test file is one unit)", tr.Selected, tr.Suite)
	}
	// A test file that changes is selected itself.
	g.Write("web/neg.test.ts", "import { it, expect } from \"vitest\";\nimport { neg } from \"./sum\";\n\nit(\"negates\", () => {\n  expect(neg(2)).toBe(-2);\n});\n")
	if got, want := testsToRunCall(t, s).commands(), []string{"npx vitest run web/neg.test.ts web/sum.test.ts"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with a changed test file: commands = %q, want %q", got, want)
	}
}

// The tests of another root than the primary one run in that root's
// folder: the command changes into it, and the run names the root.
func TestGraphChanges_TestsToRun_OtherRoot(t *testing.T) {
	primary := testutil.GitRepo(t, map[string]string{"a.py": "def a():\n    return 1\n"})
	svc := testutil.GitRepo(t, testsGoRepo)
	t.Setenv("HOME", svc.Home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{primary.Root, svc.Root}, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	idxReport(t, s, fmt.Sprintf(`{"path": %q}`, primary.Root))
	idxReport(t, s, fmt.Sprintf(`{"path": %q, "name": "svc"}`, svc.Root))
	svc.Write("lib/lib.go", strings.Replace(testsGoRepo["lib/lib.go"], "return q.S * q.S", "return q.S * q.S * 1", 1))
	tr := testsToRunCall(t, s)
	want := []string{
		"(cd " + svc.Root + " && go test -run '^(ExampleRun|TestRun)$' ./app)",
		"(cd " + svc.Root + " && go test -run '^TestTotal$' ./lib)",
	}
	if got := tr.commands(); !reflect.DeepEqual(got, want) {
		t.Fatalf("commands = %q, want %q", got, want)
	}
	for _, r := range tr.Runs {
		if r.Root != "svc" {
			t.Errorf("run %q names root %q, want svc", r.Command, r.Root)
		}
	}
}
