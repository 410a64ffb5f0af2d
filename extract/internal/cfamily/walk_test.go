package cfamily

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/internal/ts"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// TestWalkKinds_SameAsWalkKind: the core-side walk of callKinds visits
// exactly the nodes, in the same order, that a WalkKind walk over every
// node visits when it steps over the leaf kinds (error nodes included) —
// the walk walkCalls made before — in C and C++, with syntax errors,
// string literals, and bodies larger than one chunk of the walk.
func TestWalkKinds_SameAsWalkKind(t *testing.T) {
	var long strings.Builder
	long.WriteString("int big(int n)\n{\n")
	for i := range 700 {
		fmt.Fprintf(&long, "\tint v%d = f%d(n, \"s(%d)\") + g(v%d);\n", i, i%7, i, max(i-1, 0))
	}
	long.WriteString("\treturn n;\n}\n")
	srcs := []string{
		"int f(int n)\n{\n\tint x = g(n), y;\n\tif (h(x) > 0) k(\"a(b)\", 'c');\n\tfor (int i = 0; i < n; i++) m(i);\n\treturn p(q(x));\n}\n",
		"int broken(int n) {\n\tint x = g(n) +;\n\t) ) call_in_error(x);\n\treturn h(x, ;\n}\nvoid after(void) { after_call(); }\n",
		"class A { void m() { auto x = make(); x.run(); for (auto &e : list()) use(e); if (auto p = get()) p->go(); } };\n",
		long.String(),
	}
	// A few real files when a tree is at hand (COS_WALK_TREE, a folder of
	// C sources such as the kernel's fs/).
	if dir := os.Getenv("COS_WALK_TREE"); dir != "" {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".c") && len(srcs) < 400 {
				if b, err := os.ReadFile(p); err == nil {
					srcs = append(srcs, string(b))
				}
			}
			return nil
		})
	}
	for i, src := range srcs {
		for _, g := range []*sitter.Language{languageC, languageCPP} {
			tree, err := ts.Parse(g, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			root := tree.RootNode()
			var want, got []string
			ts.WalkKind(root, func(n *sitter.Node, kind string) bool {
				if callKinds.Visits(kind) {
					want = append(want, fmt.Sprintf("%s@%d", kind, n.StartByte()))
					return true
				}
				return !leafKind(kind)
			})
			ts.WalkKinds(root, callKinds, func(n *sitter.Node, kind string) {
				got = append(got, fmt.Sprintf("%s@%d", kind, n.StartByte()))
			})
			tree.Close()
			if !slices.Equal(got, want) {
				t.Errorf("source %d: WalkKinds visited %d nodes, WalkKind %d; first difference at %d", i, len(got), len(want), firstDiff(got, want))
			}
			if i < 4 && len(want) == 0 {
				t.Errorf("source %d: nothing visited", i)
			}
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// BenchmarkWalkCalls compares the walk walkCalls makes (WalkKinds, the
// core hands over the kinds read) with a walk handing every node to Go
// (WalkKind, as before), over a generated body of 700 calls or the .c
// files of COS_WALK_TREE (the first 200).
func BenchmarkWalkCalls(b *testing.B) {
	var srcs [][]byte
	if dir := os.Getenv("COS_WALK_TREE"); dir != "" {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".c") && len(srcs) < 200 {
				if data, err := os.ReadFile(p); err == nil {
					srcs = append(srcs, data)
				}
			}
			return nil
		})
	} else {
		var long strings.Builder
		long.WriteString("int big(int n)\n{\n")
		for i := range 700 {
			fmt.Fprintf(&long, "\tint v%d = f%d(n, \"s(%d)\") + g(v%d);\n", i, i%7, i, max(i-1, 0))
		}
		long.WriteString("\treturn n;\n}\n")
		srcs = append(srcs, []byte(long.String()))
	}
	var trees []*sitter.Tree
	for _, s := range srcs {
		tree, err := ts.Parse(languageC, s)
		if err != nil {
			b.Fatal(err)
		}
		defer tree.Close()
		trees = append(trees, tree)
	}
	b.Run("WalkKind", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, tree := range trees {
				ts.WalkKind(tree.RootNode(), func(x *sitter.Node, kind string) bool {
					if callKinds.Visits(kind) {
						n++
						return true
					}
					return !leafKind(kind)
				})
			}
		}
	})
	b.Run("WalkKinds", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, tree := range trees {
				ts.WalkKinds(tree.RootNode(), callKinds, func(*sitter.Node, string) { n++ })
			}
		}
	})
}
