package graph

import "testing"

// A path body names at most one root, by a valid name, with a clean path
// after it.
func TestValidateUID_RootedPaths(t *testing.T) {
	for _, uid := range []string{"code:file:lib//a.go", "code:function:lib//a.go::F", "folder:lib//.", "config:json:lib//package.json#/a//b",
		"doc:heading:lib//README.md#a//b:2", "code:external:http://x"} {
		if err := ValidateUID(uid); err != nil {
			t.Errorf("%s: %v, want valid", uid, err)
		}
	}
	for _, uid := range []string{"code:file:lib//", "code:file:url//sub//a.go", "code:file:url///b.go", "code:file:url//./a.go",
		"code:file://a.go", "folder://", "code:function:-x//a.go::F", "code:file:a b//c.go"} {
		if err := ValidateUID(uid); err == nil {
			t.Errorf("%s: valid, want refused", uid)
		}
	}
}
