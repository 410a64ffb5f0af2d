package cfamily

import (
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
