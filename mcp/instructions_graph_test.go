package mcp

import (
	"strings"
	"testing"
)

// The instructions teach what the graph answers cannot show by
// themselves: interface methods are nodes and how to ask for the callers
// through an interface, what via and through mean, what build_excluded
// rows are and how to list them, the scope filters and callers to depth N.
func TestInstructions_TeachTheGraph(t *testing.T) {
	for _, want := range []string{
		"Interface methods are nodes (code:function:<path>::<Iface>.<Method>)",
		"via implements, through that method",
		"through the node that edge points at",
		"build_excluded: in a Go file the build never compiles (build constraints, testdata/, _*/, .*/)",
		"build_excluded_count",
		"include_build_excluded: true",
		"paths and exclude_paths",
		"edge_types [calls]",
		"dispatch: true",
	} {
		if !strings.Contains(instructions, want) {
			t.Errorf("the instructions do not say %q", want)
		}
	}
}
