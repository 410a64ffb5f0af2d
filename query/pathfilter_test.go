package query

import "testing"

func TestPathMatches(t *testing.T) {
	for _, tc := range []struct {
		pattern, p string
		want       bool
	}{
		{"", "a/b.go", true},
		{".", "a/b.go", true},
		{"srv", "srv/a.go", true},
		{"srv", "srv", true},
		{"srv", "server.go", false},
		{"./srv/", "srv/a.go", true},
		{"/srv", "srv/a.go", true},
		{"srv/a.go", "srv/a.go", true},
		{"cmd/*", "cmd/x/y.go", true},
		{"cmd/*", "lib/x.go", false},
		{"*.go", "a/b.go", false},
		{"*/*.go", "a/b.go", true},
		{"lib//", "lib//src/x.ts", true},
		{"lib", "lib//src/x.ts", true},
		{"lib//src", "lib//src/x.ts", true},
		{"lib//src", "lib//srcx/x.ts", false},
	} {
		if got := PathMatches(tc.pattern, tc.p); got != tc.want {
			t.Errorf("PathMatches(%q, %q) = %v, want %v", tc.pattern, tc.p, got, tc.want)
		}
	}
	if ValidatePathPattern("[") == nil {
		t.Error("a malformed glob validated")
	}
}
