package envelope

import "testing"

// TestOK_ResolvedMatch: the match kinds of a resolution ride beside
// resolved_from; unset ones are left out.
func TestOK_ResolvedMatch(t *testing.T) {
	env := OK(nil, Meta{Layer: LayerGraph, Tool: ToolMeta{
		ResolvedFrom: ResolvedFuzzy, ResolvedMatch: "typo",
		SourceResolvedFrom: ResolvedDirect, SourceResolvedMatch: "uid",
	}}, Options{})
	m := env.Meta()
	for k, want := range map[string]string{KeyResolvedMatch: "typo", KeySourceResolvedMatch: "uid", KeyResolvedFrom: ResolvedFuzzy} {
		if m[k] != want {
			t.Errorf("meta[%s] = %#v, want %q", k, m[k], want)
		}
	}
	if v, ok := m[KeyTargetResolvedMatch]; ok {
		t.Errorf("unset %s emitted: %#v", KeyTargetResolvedMatch, v)
	}
}
