package scip

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestImportLines_BraceLanguages(t *testing.T) {
	for _, c := range []struct {
		name string
		d    dialect
		text string
		want []int
	}{
		{"java", dialectJava, "package app;\nimport java.util.List; // lists\nimport static app.Repo\n    .save;\nclass A { List<String> xs; }\n", []int{0, 1, 2, 3}},
		{"cpp", dialectC, "#include <vector>\nusing std::vector;\nusing namespace std; // all\nusing V = vector<int>;\nint f() { return 0; }\n", []int{1, 2}},
		{"rust", dialectRust, "use std::fmt;\npub(crate) use crate::a::{\n    b, // the b\n    c,\n};\nfn main() { b(); }\n", []int{0, 1, 2, 3, 4}},
	} {
		got := slices.Sorted(maps.Keys(newSource(c.text, c.d).imports))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: import lines = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestIsCall_BraceLanguages(t *testing.T) {
	for _, c := range []struct {
		d         dialect
		line      string
		name      string
		want      bool
		wantOther bool // the same line read as dialectOther
	}{
		{dialectC, "  auto v = make<int, long>(1);", "make", true, false},
		{dialectC, "  if (a < b && c > d) f(x);", "a", false, false},
		{dialectRust, "  let v = collect::<Vec<_>>(it);", "collect", true, false},
		{dialectRust, "  let v = Repo::new(1);", "new", true, true},
		{dialectJava, "  Repo r = new Repo();", "Repo", true, true},
		{dialectJava, "  list.forEach(Repo::save);", "save", false, false},
	} {
		s := newSource(c.line, c.d)
		col := strings.LastIndex(c.line, c.name)
		sp := span{line: 0, col: col, end: col + len(c.name)}
		if got := s.isCall(sp, c.d); got != c.want {
			t.Errorf("%q: isCall(%s) = %v, want %v", c.line, c.name, got, c.want)
		}
		if got := s.isCall(sp, dialectOther); got != c.wantOther {
			t.Errorf("%q as other: isCall(%s) = %v, want %v", c.line, c.name, got, c.wantOther)
		}
	}
}
