package indexing

import (
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// usesModule finds a module of the new root in any go.mod or go.work of
// another root: a bare require, a replace, a go.work use, in its top
// folder or a nested module; never in a testdata module or an unrelated
// one.
func TestUsesModule(t *testing.T) {
	dir := testutil.WriteTree(t, map[string]string{
		"require/go.mod":               "module example.com/a\n\ngo 1.22\n\nrequire example.com/lib v1.0.0\n",
		"replace/go.mod":               "module example.com/a\n\ngo 1.22\n\nreplace example.com/lib => ../lib\n",
		"nested/go.mod":                "module example.com/a\n\ngo 1.22\n",
		"nested/tools/go.mod":          "module example.com/a/tools\n\ngo 1.22\n\nrequire example.com/lib/v2 v2.0.0\n",
		"work/go.work":                 "go 1.22\n\nuse ./m\nuse ../lib\n",
		"work/m/go.mod":                "module example.com/m\n\ngo 1.22\n",
		"lib/go.mod":                   "module example.com/lib\n\ngo 1.22\n",
		"testdataonly/go.mod":          "module example.com/t\n\ngo 1.22\n",
		"testdataonly/testdata/go.mod": "module example.com/t/x\n\ngo 1.22\n\nrequire example.com/lib v1.0.0\n",
		"unrelated/go.mod":             "module example.com/u\n\ngo 1.22\n\nrequire example.com/other v1.0.0\n",
	})
	mods := map[string]bool{"example.com/lib": true, "example.com/lib/v2": true}
	for name, want := range map[string]bool{"require": true, "replace": true, "nested": true, "work": true, "testdataonly": false, "unrelated": false} {
		if got := usesModule(filepath.Join(dir, name), mods); got != want {
			t.Errorf("usesModule(%s) = %v, want %v", name, got, want)
		}
	}
}
