package jsts

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
)

// How a bare import specifier reaches a file of this tree or of another
// root: a tsconfig.json path mapping, then a package.json whose name it
// is (a workspace member, or another root) through its exports, source,
// module, main or types fields, then its src/index or index file.

// exportConditions are the exports conditions tried, in order: the ones
// that name sources first.
var exportConditions = []string{"source", "development", "import", "module", "require", "node", "default", "types"}

// Package reads a package.json at the graph path p: its name and what it
// declares (lang.JSPackage); ok is false without a name.
func Package(p string, data []byte) (name string, pkg lang.JSPackage, ok bool) {
	var m struct {
		Name    string          `json:"name"`
		Source  string          `json:"source"`
		Module  string          `json:"module"`
		Main    string          `json:"main"`
		Types   string          `json:"types"`
		Typings string          `json:"typings"`
		Exports json.RawMessage `json:"exports"`
	}
	if json.Unmarshal(data, &m) != nil || m.Name == "" {
		return "", lang.JSPackage{}, false
	}
	pkg.Dir = rootedDir(p)
	for _, e := range []string{m.Source, m.Module, m.Main, m.Types, m.Typings} {
		if e != "" {
			pkg.Entries = append(pkg.Entries, e)
		}
	}
	var exp any
	if len(m.Exports) > 0 && json.Unmarshal(m.Exports, &exp) == nil {
		pkg.Exports = map[string][]string{}
		if obj, isObj := exp.(map[string]any); isObj && hasSubpaths(obj) {
			for k, v := range obj {
				if strings.HasPrefix(k, ".") {
					pkg.Exports[k] = exportTargets(v, nil)
				}
			}
		} else {
			pkg.Exports["."] = exportTargets(exp, nil)
		}
	}
	return m.Name, pkg, true
}

// hasSubpaths reports whether an exports object maps subpaths ("./x")
// rather than conditions.
func hasSubpaths(obj map[string]any) bool {
	for k := range obj {
		if strings.HasPrefix(k, ".") {
			return true
		}
	}
	return false
}

// exportTargets flattens an exports value (a string, an array, nested
// conditions) into its targets, source-like conditions first.
func exportTargets(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		return append(out, v)
	case []any:
		for _, x := range v {
			out = exportTargets(x, out)
		}
	case map[string]any:
		seen := map[string]bool{}
		for _, c := range exportConditions {
			if x, ok := v[c]; ok {
				seen[c] = true
				out = exportTargets(x, out)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			if !seen[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = exportTargets(v[k], out)
		}
	}
	return out
}

// rootedDir is the folder of the graph path p, "" for the top of the
// tree; a root's prefix (graph.RootedPath) is kept: lib//a/package.json
// → lib//a, lib//package.json → lib//.
func rootedDir(p string) string {
	prefix, rel := splitRooted(p)
	d := path.Dir(rel)
	if d == "." {
		d = ""
	}
	if prefix != "" && d == "" {
		return prefix
	}
	return prefix + d
}

// splitRooted splits a graph path into its root prefix ("lib//", "//" or
// "" in this tree) and the path inside the root.
func splitRooted(p string) (prefix, rel string) {
	if i := strings.Index(p, graph.RootSep); i >= 0 {
		return p[:i+len(graph.RootSep)], p[i+len(graph.RootSep):]
	}
	return "", p
}

// joinRooted joins a folder's graph path (rootedDir) and a relative
// path; "" when the result leaves the root.
func joinRooted(dir, rel string) string {
	prefix, d := splitRooted(dir)
	j := path.Join(d, rel)
	if j == ".." || strings.HasPrefix(j, "../") || strings.HasPrefix(j, "/") {
		return ""
	}
	if j == "." {
		j = ""
	}
	return prefix + j
}

// builtDirs are the output folders a package's fields often point at
// while its sources sit in src/.
var builtDirs = []string{"dist/", "lib/", "build/", "out/", "esm/", "cjs/"}

// fileOf returns the file a package target or a path mapping names
// (relative to dir): the file itself, or with a source extension, or the
// source under src/ of a built file; "" when none exists.
func (js *jsFile) fileOf(dir, target string) string {
	base := joinRooted(dir, strings.TrimPrefix(target, "./"))
	if base == "" && target != "." && target != "./" {
		return ""
	}
	if f := js.withExts(base); f != "" {
		return f
	}
	_, rel := splitRooted(base)
	_, drel := splitRooted(dir)
	inPkg := strings.TrimPrefix(strings.TrimPrefix(rel, drel), "/")
	for _, b := range builtDirs {
		if rest, ok := strings.CutPrefix(inPkg, b); ok {
			if f := js.withExts(joinRooted(dir, "src/"+stripJSExt(rest))); f != "" {
				return f
			}
		}
	}
	return ""
}

// stripJSExt removes a built file's extension (.d.ts, .js, .mjs, .cjs).
func stripJSExt(p string) string {
	for _, ext := range []string{".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx"} {
		if s, ok := strings.CutSuffix(p, ext); ok {
			return s
		}
	}
	return p
}

// withExts returns base, or base with one of jsResolveExts, or its .ts
// source for a .js, when that file exists; "" otherwise.
func (js *jsFile) withExts(base string) string {
	if base == "" || strings.HasSuffix(base, "/") {
		return ""
	}
	for _, ext := range jsResolveExts {
		if js.e.Exists(base + ext) {
			return base + ext
		}
	}
	if stem := stripJSExt(base); stem != base {
		for _, ext := range []string{".ts", ".tsx", ".mts", ".cts"} {
			if js.e.Exists(stem + ext) {
				return stem + ext
			}
		}
	}
	return ""
}

// packageFile resolves a bare specifier to a file through a package.json
// of JSPackages: the package name (the first segment, two for a scope)
// and the subpath after it. ok is false when no package has that name.
func (js *jsFile) packageFile(spec string) (file string, ok bool) {
	parts := strings.SplitN(spec, "/", 3)
	name, sub := parts[0], strings.Join(parts[1:], "/")
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		name, sub = parts[0]+"/"+parts[1], strings.Join(parts[2:], "/")
	}
	pkg, ok := js.e.JSPackages[name]
	if !ok {
		return "", false
	}
	key := "."
	if sub != "" {
		key = "./" + sub
	}
	for _, t := range pkg.Exports[key] {
		if f := js.fileOf(pkg.Dir, t); f != "" {
			return f, true
		}
	}
	for pat, ts := range pkg.Exports {
		pre, post, star := strings.Cut(pat, "*")
		if !star || !strings.HasPrefix(key, pre) || !strings.HasSuffix(key, post) || len(key) < len(pre)+len(post) {
			continue
		}
		mid := key[len(pre) : len(key)-len(post)]
		for _, t := range ts {
			if f := js.fileOf(pkg.Dir, strings.ReplaceAll(t, "*", mid)); f != "" {
				return f, true
			}
		}
	}
	if sub != "" {
		for _, t := range []string{sub, "src/" + sub} {
			if f := js.fileOf(pkg.Dir, t); f != "" {
				return f, true
			}
		}
		return "", true
	}
	for _, t := range pkg.Entries {
		if f := js.fileOf(pkg.Dir, t); f != "" {
			return f, true
		}
	}
	for _, t := range []string{"src/index", "index"} {
		if f := js.fileOf(pkg.Dir, t); f != "" {
			return f, true
		}
	}
	return "", true
}

// mappedFile resolves a specifier through the tsconfig.json path mappings
// that apply to this file (those of the nearest tsconfig.json above it
// that has any): an exact pattern before a wildcard one, the longest
// prefix first, each target in order.
func (js *jsFile) mappedFile(spec string) string {
	best := -1
	for _, m := range js.e.TSPaths {
		if under(js.fr.Path, m.Dir) && len(m.Dir) > best {
			best = len(m.Dir)
		}
	}
	if best < 0 {
		return ""
	}
	var match *lang.TSPathMap
	matchLen, mid := -1, ""
	for i := range js.e.TSPaths {
		m := &js.e.TSPaths[i]
		if len(m.Dir) != best || !under(js.fr.Path, m.Dir) {
			continue
		}
		pre, post, star := strings.Cut(m.Pattern, "*")
		switch {
		case !star && m.Pattern == spec:
			match, matchLen, mid = m, len(spec)+1, ""
		case star && strings.HasPrefix(spec, pre) && strings.HasSuffix(spec, post) && len(spec) >= len(pre)+len(post) && len(pre) > matchLen:
			match, matchLen, mid = m, len(pre), spec[len(pre):len(spec)-len(post)]
		}
	}
	if match == nil {
		return ""
	}
	for _, t := range match.Targets {
		if f := js.withExts(strings.ReplaceAll(t, "*", mid)); f != "" {
			return f
		}
		if f := js.fileOf(strings.ReplaceAll(t, "*", mid), "index"); f != "" {
			return f
		}
	}
	return ""
}

// under reports whether the path p lies in the folder dir ("" the top).
func under(p, dir string) bool {
	return dir == "" || strings.HasPrefix(p, dir+"/")
}
