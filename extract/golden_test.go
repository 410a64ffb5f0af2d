package extract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// TestRun_Golden extracts each fixture repository under testdata and
// compares every node and edge with testdata/golden/<fixture>.golden.
func TestRun_Golden(t *testing.T) {
	for _, fixture := range []string{"golang", "python", "jsts", "markdown", "mixed"} {
		t.Run(fixture, func(t *testing.T) {
			root := copyTree(t, filepath.Join("testdata", fixture))
			if fixture == "golang" {
				// Files the walk must not see; written here because the
				// fixture's own .gitignore keeps git from storing them.
				writeFile(t, root, "ignored/i.go", []byte("package ignored\n"))
				writeFile(t, root, "util/broken.gen.go", []byte("package util\nthis is not go\n"))
				writeFile(t, root, "vendor/x/x.go", []byte("package x\n"))
				writeFile(t, root, "node_modules/m/index.js", []byte("function f() {}\n"))
			}
			res := index(t, root, Options{CacheDir: t.TempDir()}, nil)
			if d := dangling(res.Payloads); len(d) > 0 {
				t.Errorf("dangling edges: %v", d)
			}
			if o := orphans(res.Payloads); len(o) > 0 {
				t.Errorf("nodes without edges: %v", o)
			}
			if c := conflicting(res.Payloads); len(c) > 0 {
				t.Errorf("nodes emitted differently by several files: %v", c)
			}
			got := render(res.Payloads)
			golden := filepath.Join("testdata", "golden", fixture+".golden")
			if *testutil.Update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("extraction of %s differs from %s (run with -update and review the diff):\n%s", fixture, golden, diffLines(string(want), got))
			}
		})
	}
}

// diffLines lists lines only in want (-) or only in got (+).
func diffLines(want, got string) string {
	count := map[string]int{}
	for _, l := range splitLines(want) {
		count[l]++
	}
	for _, l := range splitLines(got) {
		count[l]--
	}
	out := ""
	for _, l := range splitLines(want) {
		if count[l] > 0 {
			out += "- " + l + "\n"
			count[l]--
		}
	}
	for _, l := range splitLines(got) {
		if count[l] < 0 {
			out += "+ " + l + "\n"
			count[l]++
		}
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
