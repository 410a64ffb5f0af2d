package query

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/graphtest"
	"github.com/cos-dev/cos/projections"
)

// The audit fixtures live in testdata/audit, one project per folder. Each
// test indexes a copy with extract.Run, applies the payloads to a graph
// projection and asserts the exact answer, written from the contract.

// indexFixture extracts testdata/audit/<name> into a fresh projection.
func indexFixture(t testing.TB, name string) *projections.Graph {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "audit", name))); err != nil {
		t.Fatal(err)
	}
	return graphtest.Extract(t, dir)
}

// findingLines renders findings as "uid certainty [reasons]" lines.
func findingLines(fs []AuditFinding) []string {
	var out []string
	for _, f := range fs {
		line := f.UID + " " + f.Certainty
		if len(f.Reasons) > 0 {
			line += " " + strings.Join(f.Reasons, ",")
			if len(f.Via) > 0 {
				line += " via " + strings.Join(f.Via, ",")
			}
		}
		out = append(out, line)
	}
	return out
}

func cycleLines(cs []Cycle) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Kind+" "+strings.Join(c.Members, " ")+" | "+strings.Join(c.Path, " > "))
	}
	return out
}

func assertLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

const pgo = "code:function:p/p.go::"
const pext = "code:function:p/ext.go::"

func TestAuditFunctions_GoDead(t *testing.T) {
	g := indexFixture(t, "golib")
	ctx := context.Background()
	cases := []struct {
		name string
		opts AuditOptions
		want []string
	}{
		{"tests and main are the only roots", AuditOptions{}, []string{
			pext + "R.Read uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.String uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.unexported certain",
			pext + "Idle.String uncertain external_interface via code:external:fmt.Stringer",
			pext + "useExt certain",
			pext + "cb uncertain address_taken via " + pext + "useExt",
			pext + "deadCaller certain",
			pext + "deadValue uncertain address_taken via " + pext + "deadCaller",
			pext + "reflective certain",
			pgo + "helper certain",
			pgo + "dead certain",
			pgo + "rec certain",
			pgo + "pingA certain",
			pgo + "pingB certain",
			pgo + "Exported certain",
			"code:function:p/p_test.go::ExampleExported certain", // no output comment: go test does not run it
		}},
		{"the exported API is a root too", AuditOptions{IncludeExported: true}, []string{
			pext + "R.unexported certain",
			pext + "deadCaller certain",
			pext + "deadValue uncertain address_taken via " + pext + "deadCaller",
			pext + "reflective certain",
			pgo + "helper certain",
			pgo + "dead certain",
			pgo + "rec certain",
			pgo + "pingA certain",
			pgo + "pingB certain",
			"code:function:p/p_test.go::ExampleExported certain",
		}},
		{"kind and path filters", AuditOptions{Kinds: []string{graph.KindMethod}, Path: "p/*.go"}, []string{
			pext + "R.Read uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.String uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.unexported certain",
			pext + "Idle.String uncertain external_interface via code:external:fmt.Stringer",
		}},
		{"a leading ./ is dropped", AuditOptions{Kinds: []string{graph.KindMethod}, Path: "./p/*.go"}, []string{
			pext + "R.Read uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.String uncertain external_interface via code:external:fmt.Stringer,code:external:io.Reader",
			pext + "R.unexported certain",
			pext + "Idle.String uncertain external_interface via code:external:fmt.Stringer",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, sum, _, err := AuditFunctions(ctx, g, tc.opts, false)
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, findingLines(got), tc.want)
			if sum.Functions != sum.Reached+len(tc.want) && tc.opts.Path == "" {
				t.Errorf("summary %+v does not add up with %d findings", sum, len(tc.want))
			}
		})
	}
}

func TestAuditFunctions_GoUntested(t *testing.T) {
	g := indexFixture(t, "golib")
	got, _, _, err := AuditFunctions(context.Background(), g, AuditOptions{Depth: 1, Path: "p/p.go"}, true)
	if err != nil {
		t.Fatal(err)
	}
	// Depth 1 reaches Total and Generic from TestTotal, not the Area
	// methods behind Total's interface call (3 hops).
	assertLines(t, findingLines(got), []string{
		pgo + "Sq.Area certain",
		pgo + "Unused.Area certain",
		pgo + "helper certain",
		pgo + "dead certain",
		pgo + "rec certain",
		pgo + "pingA certain",
		pgo + "pingB certain",
		pgo + "viaValue uncertain address_taken via code:file:p/p.go",
		pgo + "init certain",
		pgo + "Exported certain",
	})
	got, _, _, err = AuditFunctions(context.Background(), g, AuditOptions{Path: "p/p.go", Kinds: []string{graph.KindMethod}}, true)
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, findingLines(got), nil)
}

func TestFindCycles_GoRecursion(t *testing.T) {
	g := indexFixture(t, "golib")
	got, _, err := FindCycles(context.Background(), g, AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, cycleLines(got), []string{
		"recursion " + pgo + "pingA " + pgo + "pingB | " + pgo + "pingA > " + pgo + "pingB > " + pgo + "pingA",
	})
	got, _, err = FindCycles(context.Background(), g, AuditOptions{SelfRecursion: true, Kinds: []string{CycleRecursion}})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, cycleLines(got), []string{
		"recursion " + pgo + "pingA " + pgo + "pingB | " + pgo + "pingA > " + pgo + "pingB > " + pgo + "pingA",
		"recursion " + pgo + "rec | " + pgo + "rec > " + pgo + "rec",
	})
}

func TestFindCycles_PythonAndTSImports(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string
	}{
		{"py", []string{"import code:module:pkg.a code:module:pkg.b | code:module:pkg.a > code:module:pkg.b > code:module:pkg.a"}},
		{"ts", []string{"import code:file:a.ts code:file:b.ts | code:file:a.ts > code:file:b.ts > code:file:a.ts"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			g := indexFixture(t, tc.fixture)
			got, _, err := FindCycles(context.Background(), g, AuditOptions{})
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, cycleLines(got), tc.want)
		})
	}
}

func TestAuditFunctions_PythonAndTSDead(t *testing.T) {
	for _, tc := range []struct {
		fixture        string
		exported       bool
		untested, want []string
	}{
		// Calls into Python and TypeScript are matched by name: every
		// finding is uncertain. Special methods (Box.__init__, __eq__)
		// are called by the runtime: never dead, but untested when no
		// test reaches them.
		{"py", false, []string{"code:function:pkg/b.py::loop uncertain name_matched",
			"code:function:pkg/b.py::Box.__init__ uncertain name_matched", "code:function:pkg/b.py::Box.__eq__ uncertain name_matched"}, []string{"code:function:pkg/b.py::loop uncertain name_matched"}},
		{"py", true, []string{"code:function:pkg/b.py::loop uncertain name_matched",
			"code:function:pkg/b.py::Box.__init__ uncertain name_matched", "code:function:pkg/b.py::Box.__eq__ uncertain name_matched"}, nil},
		{"ts", false, []string{"code:function:b.ts::c uncertain name_matched"}, []string{"code:function:b.ts::c uncertain name_matched"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			g := indexFixture(t, tc.fixture)
			got, _, _, err := AuditFunctions(context.Background(), g, AuditOptions{IncludeExported: tc.exported}, false)
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, findingLines(got), tc.want)
			got, _, _, err = AuditFunctions(context.Background(), g, AuditOptions{}, true)
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, findingLines(got), tc.untested)
		})
	}
}

func TestAuditFunctions_GoReflection(t *testing.T) {
	g := indexFixture(t, "goreflect")
	got, _, _, err := AuditFunctions(context.Background(), g, AuditOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	// main calls a method by name through reflect: the exported methods of
	// T, which main builds, and what they call may run.
	assertLines(t, findingLines(got), []string{
		"code:function:main.go::T.Visible uncertain reflection",
		"code:function:main.go::T.helper uncertain reflection",
		"code:function:main.go::T.unused certain",
	})
}
