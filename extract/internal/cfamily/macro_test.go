package cfamily

import (
	"regexp"
	"slices"
	"testing"
)

func TestMacroCallees(t *testing.T) {
	for body, want := range map[string][]string{
		`luaM_malloc_(L, sizeof(t), 0)`:           {"luaM_malloc_"},
		`(f("a(b)", 'c') + g (x)->h(y) + s.m(z))`: {"f", "g"},
		`if (x) do_it(); else while (0) {}`:       {"do_it"},
		`cast(int, 3e(1))`:                        {"cast"},
	} {
		if got := macroCallees(body); !slices.Equal(got, want) {
			t.Errorf("macroCallees(%q) = %q, want %q", body, got, want)
		}
	}
}

func TestBlankExportMacros(t *testing.T) {
	for src, want := range map[string]string{
		"class LEVELDB_EXPORT Status {":                 "class                Status {",
		"struct API_X Opts : Base {":                    "struct       Opts : Base {",
		"  int n_ GUARDED_BY(mu_);":                     "  int n_                ;",
		"  void Lock() EXCLUSIVE_LOCK_FUNCTION() {":     "  void Lock()                           {",
		"  return MAKE_IT(x);":                          "  return MAKE_IT(x);",
		"  f(x) + MAKE_IT(y);":                          "  f(x) + MAKE_IT(y);",
		"Limiter(int n)\n    :\n#if !defined(NDEBUG)\n": "Limiter(int n)\n    :\n                    \n",
		"int x;\n#if A\nint y;\n#endif\n":               "int x;\n#if A\nint y;\n#endif\n",
	} {
		if got := string(blankExportMacros([]byte(src))); got != want {
			t.Errorf("blankExportMacros(%q) = %q, want %q", src, got, want)
		}
	}
}

// TestExportMacros_SameAsWholeFileScan: trying exportMacro at each
// keyword finds what the unanchored pattern finds over the whole source.
func TestExportMacros_SameAsWholeFileScan(t *testing.T) {
	whole := regexp.MustCompile(`\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*)[ \t]+[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:[:{]|\n)`)
	for _, src := range []string{
		"class LEVELDB_EXPORT Status {\nstruct API Opts : Base {};\nunion U_X V\n",
		"subclass API X {\n_struct API Y {\nxunion A B {\n",
		"struct A class\nclass B C {\nstruct FOO class {",
		"class\tX_1 final_t final {\nclass X Y final:\nstruct Sé API Z {\n",
		"classAPI X {\nclass  APi X {\nstruct X Y Z {\nclass",
	} {
		var want [][2]int
		for _, l := range whole.FindAllSubmatchIndex([]byte(src), -1) {
			want = append(want, [2]int{l[2], l[3]})
		}
		if got := exportMacros([]byte(src)); !slices.Equal(got, want) {
			t.Errorf("exportMacros(%q) = %v, want %v", src, got, want)
		}
	}
}
