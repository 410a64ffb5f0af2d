package extract_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
)

// callsOf returns the targets of the calls edges from source, sorted.
func callsOf(payloads map[string]graph.FileExtracted, source string) []string {
	var out []string
	for _, p := range payloads {
		for _, e := range p.Edges {
			if e.Source == source && e.Type == graph.EdgeCalls {
				out = append(out, e.Target)
			}
		}
	}
	slices.Sort(out)
	return out
}

// A service whose go.mod requires, with no replace and no go.work, the
// module another root holds is type-checked against that root's working
// tree: its calls land on the root's nodes (name//path) and its file node
// says which module was read from a working tree. Without the other root
// the calls are stubs, as the module cache is never reached.
func TestRun_GoBareRequireOfOtherRoot(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	parent := testutil.WriteTree(t, map[string]string{
		"lib/go.mod":     "module example.com/lib\n\ngo 1.22\n",
		"lib/lib.go":     "package lib\n\n// Help helps.\nfunc Help() int { return 1 }\n\n// Box holds.\ntype Box struct{ N int }\n\n// Get gets.\nfunc (b *Box) Get() int { return b.N }\n",
		"lib/sub/sub.go": "package sub\n\n// Deep is in a sub-package.\nfunc Deep() {}\n",
		// A nested module of the library's root.
		"lib/nested/go.mod": "module example.com/nested\n\ngo 1.22\n",
		"lib/nested/n.go":   "package nested\n\n// N is in the nested module.\nfunc N() {}\n",
		"svc/go.mod":        "module example.com/svc\n\ngo 1.22\n\nrequire (\n\texample.com/lib v1.2.3\n\texample.com/nested v0.1.0\n)\n",
		"svc/main.go":       "package main\n\nimport (\n\t\"example.com/lib\"\n\t\"example.com/lib/sub\"\n\t\"example.com/nested\"\n)\n\nfunc main() {\n\tb := &lib.Box{N: lib.Help()}\n\t_ = b.Get()\n\tsub.Deep()\n\tnested.N()\n}\n",
	})
	parent, _ = filepath.EvalSymlinks(parent)
	lib, svc := filepath.Join(parent, "lib"), filepath.Join(parent, "svc")
	for _, tc := range []struct {
		name   string
		others map[string]string
		want   []string
		meta   any
	}{
		{"with the library as a root", map[string]string{lib: "lib"},
			[]string{"code:function:lib//lib.go::Box.Get", "code:function:lib//lib.go::Help", "code:function:lib//nested/n.go::N", "code:function:lib//sub/sub.go::Deep"},
			[]string{"example.com/lib", "example.com/nested"}},
		{"alone", nil,
			[]string{"code:external:example.com/lib.Box.Get", "code:external:example.com/lib.Help", "code:external:example.com/lib/sub.Deep", "code:external:example.com/nested.N"},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payloads := map[string]graph.FileExtracted{}
			if _, err := extract.Run(context.Background(), svc, extract.Options{CacheDir: t.TempDir(), OtherRoots: tc.others}, nil,
				func(batch []graph.FileExtracted, _ []string) error {
					for _, p := range batch {
						payloads[p.Path] = p
					}
					return nil
				}); err != nil {
				t.Fatal(err)
			}
			if got := callsOf(payloads, "code:function:main.go::main"); !slices.Equal(got, tc.want) {
				t.Errorf("calls of main = %v, want %v", got, tc.want)
			}
			var file graph.Node
			for _, n := range payloads["main.go"].Nodes {
				if n.UID == "code:file:main.go" {
					file = n
				}
			}
			got, ok := file.Metadata[graph.MetaGoWorkingTree]
			switch {
			case tc.meta == nil && ok:
				t.Errorf("%s = %v, want none", graph.MetaGoWorkingTree, got)
			case tc.meta != nil && !slices.Equal(asStrings(got), tc.meta.([]string)):
				t.Errorf("%s = %v, want %v", graph.MetaGoWorkingTree, got, tc.meta)
			}
			if tc.meta != nil && file.Metadata[graph.MetaExtraction] != graph.ExtractionTypes {
				t.Errorf("main.go extraction = %v, want types", file.Metadata[graph.MetaExtraction])
			}
		})
	}
}

func asStrings(v any) []string {
	switch s := v.(type) {
	case []string:
		return s
	case []any:
		out := make([]string, len(s))
		for i, x := range s {
			out[i], _ = x.(string)
		}
		return out
	}
	return nil
}
