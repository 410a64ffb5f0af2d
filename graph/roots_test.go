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

// TestInRoot_Entrypoint: an entry point's uid carries its file's path
// after the kind, so it belongs to the file's root like a config key.
func TestInRoot_Entrypoint(t *testing.T) {
	if got, want := InRoot("entry:http:srv/routes.go::GET:/users", "api"), "entry:http:api//srv/routes.go::GET:/users"; got != want {
		t.Fatalf("InRoot = %q, want %q", got, want)
	}
	if err := ValidateUID("entry:http:bad!name//x.go::main"); err == nil {
		t.Fatal("an entry uid with a bad root name validated")
	}
}

func TestEntryUID_Valid(t *testing.T) {
	uid := EntryUID(EntryHTTP, "srv/routes.go", "GET /users/{id}")
	if uid != "entry:http:srv/routes.go::GET%20/users/{id}" {
		t.Fatalf("EntryUID = %q", uid)
	}
	if err := ValidateUID(uid); err != nil {
		t.Fatal(err)
	}
	if k, _ := KindOfUID(uid); k != KindEntrypoint {
		t.Fatalf("KindOfUID = %q", k)
	}
}
