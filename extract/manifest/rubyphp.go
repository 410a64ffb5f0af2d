package manifest

import (
	"encoding/json"
	"regexp"
	"strings"
)

// composerDeps reads the require and require-dev maps of a composer.json;
// platform requirements (php, ext-*, lib-*, composer-*) are not packages.
func composerDeps(src string) []dependency {
	var doc map[string]json.RawMessage
	if json.Unmarshal([]byte(src), &doc) != nil {
		return nil // the config pass recorded the parse error
	}
	var deps []dependency
	for _, sec := range []struct{ key, scope string }{{"require", ""}, {"require-dev", "dev"}} {
		var m map[string]any
		if raw, ok := doc[sec.key]; !ok || json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, name := range sortedKeys(m) {
			if !strings.Contains(name, "/") {
				continue // php, ext-json, lib-pcre, composer-plugin-api
			}
			v, _ := m[name].(string)
			deps = append(deps, dependency{Ecosystem: "composer", Name: strings.ToLower(name), Version: v, Scope: sec.scope, Line: jsonKeyLine(src, name)})
		}
	}
	return deps
}

// jsonKeyLine returns the 1-based line of the first "key": in src, 0 when
// absent.
func jsonKeyLine(src, key string) int {
	i := strings.Index(src, `"`+key+`"`)
	if i < 0 {
		return 0
	}
	return strings.Count(src[:i], "\n") + 1
}

// rubyDep matches the package name and the first version string of a
// Gemfile gem line or a gemspec add_*dependency line.
var (
	gemLine     = regexp.MustCompile(`^\s*gem\s*\(?\s*["']([^"']+)["']\s*(?:,\s*["']([^"']+)["'])?`)
	gemspecLine = regexp.MustCompile(`\.add_(runtime_|development_)?dependency\s*\(?\s*["']([^"']+)["']\s*(?:,\s*["']([^"']+)["'])?`)
	groupLine   = regexp.MustCompile(`^\s*group\s*\(?\s*:(\w+)`)
	blockOpen   = regexp.MustCompile(`\bdo\s*(\|[^|]*\|)?\s*(#.*)?$`)
	blockEnd    = regexp.MustCompile(`^\s*end\b`)
)

// gemfileDeps reads the gem lines of a Gemfile; a gem inside a group
// block gets the group's first name as its scope (development, test).
func gemfileDeps(src string) []dependency {
	var deps []dependency
	// groups is the stack of open do-blocks: the group name, "" for
	// other blocks (platforms, source, git).
	var groups []string
	for i, line := range strings.Split(src, "\n") {
		if m := gemLine.FindStringSubmatch(line); m != nil {
			scope := ""
			for j := len(groups) - 1; j >= 0; j-- {
				if groups[j] != "" {
					scope = groups[j]
					break
				}
			}
			deps = append(deps, dependency{Ecosystem: "gem", Name: m[1], Version: m[2], Scope: scope, Line: i + 1})
			continue
		}
		switch {
		case blockOpen.MatchString(line):
			g := ""
			if m := groupLine.FindStringSubmatch(line); m != nil {
				g = m[1]
			}
			groups = append(groups, g)
		case blockEnd.MatchString(line) && len(groups) > 0:
			groups = groups[:len(groups)-1]
		}
	}
	return deps
}

// gemspecDeps reads the add_dependency, add_runtime_dependency and
// add_development_dependency lines of a gemspec.
func gemspecDeps(src string) []dependency {
	var deps []dependency
	for i, line := range strings.Split(src, "\n") {
		m := gemspecLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		scope := ""
		if m[1] == "development_" {
			scope = "dev"
		}
		deps = append(deps, dependency{Ecosystem: "gem", Name: m[2], Version: m[3], Scope: scope, Line: i + 1})
	}
	return deps
}
