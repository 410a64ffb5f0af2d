package lang

import (
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestUIDPart checks that escaped fragments always make valid uids and that
// legal fragments are kept as they are.
func TestUIDPart(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a/b.go", "a/b.go"},
		{"a b.go", "a%20b.go"},
		{"x`y", "x%60y"},
		{"../etc", "%2E%2E/etc"},
		{"a/..", "a/%2E%2E"},
		{"tab\there", "tab%09here"},
		{"caf\xe9", "café"},
		{"100%", "100%"},
	} {
		got := UIDPart(c.in)
		if got != c.want {
			t.Errorf("uidPart(%q) = %q, want %q", c.in, got, c.want)
		}
		if err := graph.ValidateUID("code:file:" + got); err != nil {
			t.Errorf("uidPart(%q): %v", c.in, err)
		}
	}
	long := ClampUID("code:file:" + strings.Repeat("é", 2000))
	if len(long) > graph.MaxUIDLen || graph.ValidateUID(long) != nil {
		t.Errorf("clampUID: %d bytes, %v", len(long), graph.ValidateUID(long))
	}
}
