package python

import (
	"maps"
	"slices"
	"testing"
)

func TestProjectName(t *testing.T) {
	for data, want := range map[string]string{
		"[project]\nname = \"my-lib\"\n":                                            "my-lib",
		"[build-system]\nrequires = []\n\n[project]\nversion = \"1\"\n\nname='x'\n": "x",
		"[tool.poetry]\nname = \"poetry-only\"\n":                                   "",
		"[project]\nversion = \"1\"\n[tool.x]\nname = \"other\"\n":                  "",
	} {
		if got := ProjectName([]byte(data)); got != want {
			t.Errorf("ProjectName(%q) = %q, want %q", data, got, want)
		}
	}
}

// Another root's importable modules: its top-level packages (at its top
// or under src/), not its tests, loose scripts or src. names.
func TestForeignModules(t *testing.T) {
	files := map[string]bool{"src/pkg/__init__.py": true, "src/pkg/mod.py": true, "tests/__init__.py": true, "tests/test_x.py": true, "setup.py": true, "flat/__init__.py": true}
	got := ForeignModules(files, "", "lib//")
	want := map[string]string{"pkg": "lib//src/pkg/__init__.py", "pkg.mod": "lib//src/pkg/mod.py", "flat": "lib//flat/__init__.py"}
	if !maps.Equal(got, want) {
		t.Fatalf("ForeignModules = %v, want %v (keys %v)", got, want, slices.Sorted(maps.Keys(got)))
	}
}
