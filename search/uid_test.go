package search

import (
	"slices"
	"testing"

	"github.com/cos-dev/cos/graph"
)

func TestUIDPrefixes_KnownToGraph(t *testing.T) {
	for _, p := range uidPrefixes {
		if _, ok := graph.KindOfUID(p + "x"); !ok {
			t.Errorf("prefix %q is not one of graph's", p)
		}
		if err := graph.ValidateUID(p + "x"); err != nil {
			t.Errorf("graph rejects %q: %v", p+"x", err)
		}
	}
}

func TestNameKeys(t *testing.T) {
	tests := []struct {
		uid  string
		want []string
	}{
		{"code:function:x.go::Char.splice", []string{"char.splice", "splice"}},
		{"code:function:x.go::Run", []string{"run"}},
		{"code:class:a/b.py::Outer.Inner", []string{"outer.inner", "inner"}},
		{"code:file:a/util.go", []string{"util.go"}},
		{"doc:file:README.md", []string{"readme.md"}},
		{"folder:src/core", []string{"core"}},
		{"doc:heading:docs/a.md#uid-scheme:2", []string{"uid-scheme"}},
		{"code:module:core.thinking_os.server", []string{"core.thinking_os.server", "server"}},
		{"npm:package:react", []string{"react"}},
		{"config:json:a.json#/x", nil},
		{"nonsense", nil},
	}
	for _, tt := range tests {
		if got := nameKeys(tt.uid); !slices.Equal(got, tt.want) {
			t.Errorf("nameKeys(%q) = %q, want %q", tt.uid, got, tt.want)
		}
	}
}
