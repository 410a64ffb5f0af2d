package query

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/cos-dev/cos/projections/tasks"
)

// Scope filters the rows of references, impact and resolve by the file
// they live in: Paths and ExcludePaths are repo-relative paths (a file, or
// a folder and what is under it) or globs where "**" matches any number of
// folders (tasks.MatchTouch, as task touches read them).
type Scope struct {
	// Paths keeps only the files one of them names; empty keeps all.
	Paths []string
	// ExcludePaths drops the files one of them names.
	ExcludePaths []string
	// IncludeBuildExcluded keeps rows in files the go build never
	// compiles (BuildExclusion.Of); they are left out by default.
	IncludeBuildExcluded bool
}

// Keeps reports whether a row of the file p passes the path filters. A
// row without a file (an external, a missing node) passes only when no
// Paths are given.
func (s Scope) Keeps(p string) bool {
	if len(s.Paths) > 0 {
		in := false
		for _, pat := range s.Paths {
			if tasks.MatchTouch(pat, p) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, pat := range s.ExcludePaths {
		if tasks.MatchTouch(pat, p) {
			return false
		}
	}
	return true
}

// Filtered reports whether s has path filters.
func (s Scope) Filtered() bool { return len(s.Paths) > 0 || len(s.ExcludePaths) > 0 }

// ValidateScopePattern returns why pattern cannot be a Scope path, ""
// when it can: repo-relative with '/', no "..", a valid glob.
func ValidateScopePattern(pattern string) string {
	switch {
	case strings.TrimSpace(pattern) == "":
		return "empty"
	case strings.ContainsFunc(pattern, unicode.IsControl):
		return "holds a control character"
	case strings.Contains(pattern, `\`):
		return `'\' is not a separator; paths are repo-relative with '/'`
	case strings.HasPrefix(pattern, "/") || (len(pattern) > 1 && pattern[1] == ':'):
		return "absolute; paths are repo-relative with '/'"
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return `".." is not allowed; paths are repo-relative`
		}
	}
	if _, err := path.Match(strings.ReplaceAll(pattern, "**", "*"), ""); err != nil {
		return fmt.Sprintf("not a valid glob (%v)", err)
	}
	return ""
}

// GoIgnoredPath reports whether p is a Go file in a folder the go command
// ignores: one named testdata, or whose name starts with '_' or '.'.
func GoIgnoredPath(p string) bool {
	if !strings.HasSuffix(p, ".go") {
		return false
	}
	if i := strings.Index(p, "//"); i >= 0 {
		p = p[i+2:] // a file of another root: name//path
	}
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if d == "testdata" || strings.HasPrefix(d, "_") || strings.HasPrefix(d, ".") {
			return true
		}
	}
	return false
}
