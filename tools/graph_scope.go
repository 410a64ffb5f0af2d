package tools

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/query"
)

// This file is the scope arguments of cos_graph_references,
// cos_graph_impact and cos_graph_resolve: path filters on the file of each
// row (query.Scope) and, on the paged two, include_build_excluded.

// scopePathsMax bounds paths and exclude_paths in entries (the schema
// leaves it out: schemaMaxLength).
const scopePathsMax = schemaMaxLength

// scopeParams are paths and exclude_paths (the initialize instructions
// say what they take, once for the three tools).
func scopeParams() []Param {
	return []Param{
		{Name: "paths", Type: TStringList, NonEmpty: true, MaxLen: scopePathsMax},
		{Name: "exclude_paths", Type: TStringList, NonEmpty: true, MaxLen: scopePathsMax},
	}
}

// buildExcludedParam is include_build_excluded.
var buildExcludedParam = Param{Name: "include_build_excluded", Type: TBool}

// scopeOf reads the scope arguments; a malformed pattern is E_ARGUMENT
// naming it.
func scopeOf(c *Call) (query.Scope, error) {
	s := query.Scope{Paths: c.Args.Strings("paths"), ExcludePaths: c.Args.Strings("exclude_paths"),
		IncludeBuildExcluded: c.Args.Bool("include_build_excluded", false)}
	for _, field := range []string{"paths", "exclude_paths"} {
		list := &s.Paths
		if field == "exclude_paths" {
			list = &s.ExcludePaths
		}
		for i, p := range *list {
			if why := query.ValidateScopePattern(p); why != "" {
				return s, envelope.Errorf(envelope.CodeArgument, "%s: entry %q: %s; expected a repo-relative file, folder or glob such as \"net/http/**\"", field, p, why).
					WithDetails(map[string]any{"field": field, "got": p})
			}
			(*list)[i] = cleanScopePattern(p)
			if !matchesAnyPath(c, (*list)[i]) {
				c.Warn(fmt.Sprintf("%s entry %q matches no indexed file", field, p))
			}
		}
	}
	return s, nil
}

// cleanScopePattern is pattern with "." segments and doubled or trailing
// slashes taken out ("./server.go" is "server.go"), "**" kept.
func cleanScopePattern(pattern string) string {
	if c := path.Clean(pattern); c != "." {
		return c
	}
	return pattern
}

// matchesAnyPath reports whether pattern matches an indexed file of the
// call's graph.
func matchesAnyPath(c *Call, pattern string) bool {
	for _, p := range c.V.Graph.Paths() {
		if tasks.MatchTouch(pattern, p) {
			return true
		}
	}
	return false
}

// scopeDigest is the scope's part of a cursor's query digest.
func scopeDigest(s query.Scope) []string {
	sorted := func(l []string) string {
		l = slices.Clone(l)
		slices.Sort(l)
		return strings.Join(l, "\x00")
	}
	return []string{sorted(s.Paths), sorted(s.ExcludePaths), strconv.FormatBool(s.IncludeBuildExcluded)}
}
