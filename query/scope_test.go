package query

import "testing"

func TestGoIgnoredPath(t *testing.T) {
	for p, want := range map[string]bool{
		"net/http/server.go":                     false,
		"cmd/go/testdata/script/x.go":            true,
		"internal/_gen/gen.go":                   true,
		"a/.hidden/b.go":                         true,
		"testdata/x.py":                          false, // not Go
		"x_test.go":                              false,
		"other//pkg/testdata/a.go":               true,
		"other//pkg/a.go":                        false,
		"_tools.go":                              false, // the file, not a folder
		"golang.org/x/net/http2/h2c/testdata.go": false,
	} {
		if got := GoIgnoredPath(p); got != want {
			t.Errorf("GoIgnoredPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestScopeKeeps(t *testing.T) {
	s := Scope{Paths: []string{"net/http/**", "crypto"}, ExcludePaths: []string{"**/testdata/**", "net/http/internal"}}
	for p, want := range map[string]bool{
		"net/http/server.go":           true,
		"net/http/httputil/proxy.go":   true,
		"crypto/tls/conn.go":           true,
		"cryptox/a.go":                 false,
		"net/http/testdata/a.go":       false,
		"net/http/internal/chunked.go": false,
		"net/url/url.go":               false,
		"":                             false,
	} {
		if got := s.Keeps(p); got != want {
			t.Errorf("Keeps(%q) = %v, want %v", p, got, want)
		}
	}
	if !(Scope{}).Keeps("") || (Scope{ExcludePaths: []string{"a"}}).Keeps("a/b.go") {
		t.Error("empty scope must keep all; exclude_paths a must drop a/b.go")
	}
	for pat, bad := range map[string]bool{"net/http/**": false, "a/[b": true, "/abs": true, "../x": true, `a\b`: true, "": true} {
		if got := ValidateScopePattern(pat) != ""; got != bad {
			t.Errorf("ValidateScopePattern(%q) refused = %v, want %v", pat, got, bad)
		}
	}
}
