package query

import (
	"fmt"
	"path"
	"strings"

	"github.com/cos-dev/cos/projections"
)

// PathMatches reports whether the file p is kept by the filter pattern,
// as every path filter of the graph tools reads it: empty (or ".") keeps
// all; a pattern with *, ? or [ is a path.Match glob, also tried against
// each folder above p (so "cmd/*" keeps cmd/a/b.go); any other is a file
// or a folder ("srv" keeps srv/a.go and srv, not server.go). A leading
// "./" and leading or trailing slashes are dropped.
func PathMatches(pattern, p string) bool {
	want := strings.Trim(strings.TrimPrefix(pattern, "./"), "/")
	if want == "" || want == "." {
		return true
	}
	if !strings.ContainsAny(want, "*?[") {
		return p == want || strings.HasPrefix(p, want+"/")
	}
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if ok, _ := path.Match(want, q); ok {
			return true
		}
	}
	return false
}

// ValidatePathPattern returns an error when pattern is a malformed glob.
func ValidatePathPattern(pattern string) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("path %q: %w", pattern, err)
	}
	return nil
}

// PathFilterWarning is the warning of an answer filtered by a path
// pattern that selects no file of the graph g (an empty answer would
// otherwise read as "none there"), "" when it selects one or is empty.
func PathFilterWarning(g *projections.Graph, pattern string) string {
	if w := strings.Trim(strings.TrimPrefix(pattern, "./"), "/"); w == "" || w == "." {
		return ""
	}
	for _, f := range g.Files() {
		if PathMatches(pattern, f.Path) {
			return ""
		}
	}
	return fmt.Sprintf("path %q selects no indexed file: give a folder, a file or a glob of the graph's paths (repo-relative; name//path in another root)", pattern)
}
