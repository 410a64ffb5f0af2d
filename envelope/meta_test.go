package envelope

import (
	"strings"
	"testing"
)

// TestOK_ResolvedMatch: the match kinds of a resolution ride beside
// resolved_from; unset ones are left out.
func TestOK_ResolvedMatch(t *testing.T) {
	env := OK(nil, Meta{Layer: LayerGraph, Tool: ToolMeta{
		ResolvedFrom: "fuzzy", ResolvedMatch: "typo",
		SourceResolvedFrom: "direct", SourceResolvedMatch: "uid",
	}}, Options{})
	m := env.Meta()
	for k, want := range map[string]string{KeyResolvedMatch: "typo", KeySourceResolvedMatch: "uid", KeyResolvedFrom: "fuzzy"} {
		if m[k] != want {
			t.Errorf("meta[%s] = %#v, want %q", k, m[k], want)
		}
	}
	if v, ok := m[KeyTargetResolvedMatch]; ok {
		t.Errorf("unset %s emitted: %#v", KeyTargetResolvedMatch, v)
	}
}

// TestOK_Integrity: a damaged log puts {ok:false, first_bad_seq,
// events_after} into meta; a healthy one leaves the key out, so healthy
// answers are byte for byte what they were.
func TestOK_Integrity(t *testing.T) {
	env := OK(map[string]any{"x": 1}, Meta{Layer: LayerTasks, LogSeq: 2, Integrity: &Integrity{FirstBadSeq: 3, EventsAfter: 2}}, Options{})
	want := `"integrity":{"events_after":2,"first_bad_seq":3,"ok":false}`
	if got := string(env.JSON()); !strings.Contains(got, want) {
		t.Fatalf("envelope %s lacks %s", got, want)
	}
	healthy := OK(map[string]any{"x": 1}, Meta{Layer: LayerTasks, LogSeq: 2}, Options{})
	if _, ok := healthy.Meta()[KeyIntegrity]; ok {
		t.Fatalf("a healthy answer carries meta.integrity: %s", healthy.JSON())
	}
}
