package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// Only a string or an integer is a progress token (MCP), and a string is
// echoed in every notification, so a huge one gets none.
func TestValidProgressToken(t *testing.T) {
	var obj, arr, num any
	_ = json.Unmarshal([]byte(`{"a":1}`), &obj)
	_ = json.Unmarshal([]byte(`[1]`), &arr)
	_ = json.Unmarshal([]byte(`7`), &num)
	for _, c := range []struct {
		tok  any
		want bool
	}{
		{"abc", true}, {num, true}, {float64(1 << 40), true}, {int64(3), true},
		{nil, false}, {"", false}, {strings.Repeat("x", 257), false}, {1.5, false},
		{float64(1 << 60), false}, {true, false}, {obj, false}, {arr, false},
	} {
		if got := validProgressToken(c.tok); got != c.want {
			t.Errorf("validProgressToken(%v) = %v, want %v", c.tok, got, c.want)
		}
	}
}
