package manifest

import (
	"path"
	"regexp"
	"strings"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/cos-dev/cos/graph"
)

// isSwiftPM reports whether a lower-cased base name is a SwiftPM manifest:
// Package.swift or a version-specific Package@swift-<v>.swift.
func isSwiftPM(l string) bool {
	return l == "package.swift" || (strings.HasPrefix(l, "package@swift-") && strings.HasSuffix(l, ".swift"))
}

// SwiftPM argument patterns inside a .package(…) call.
var (
	spmString  = regexp.MustCompile(`\b(url|path|name|id|from|exact|branch|revision)\s*:\s*"([^"]*)"`)
	spmRange   = regexp.MustCompile(`"([^"]*)"\s*(\.\.[.<])\s*"([^"]*)"`)
	spmPackage = regexp.MustCompile(`\bPackage\s*\(\s*name\s*:\s*"([^"]+)"`)
)

// swiftPMDeps reads the .package(…) dependencies of a Package.swift:
// the package identity (the last path component of url: or path:, minus
// .git, or a registry id:, lower case, as SwiftPM names packages) with
// the version requirement (from:, exact:, branch:, revision:, "a"..<"b");
// a path: dependency has scope "local".
func swiftPMDeps(src string) []dependency {
	var deps []dependency
	for i := 0; ; {
		j := strings.Index(src[i:], ".package(")
		if j < 0 {
			return deps
		}
		start := i + j + len(".package(")
		end := closingParen(src, start)
		args := src[start:end]
		i = end
		got := map[string]string{}
		for _, m := range spmString.FindAllStringSubmatch(args, -1) {
			if _, ok := got[m[1]]; !ok {
				got[m[1]] = m[2]
			}
		}
		d := dependency{Ecosystem: "swiftpm", Line: strings.Count(src[:start], "\n") + 1}
		switch {
		case got["url"] != "":
			d.Name = spmIdentity(got["url"])
		case got["path"] != "":
			d.Name, d.Scope = spmIdentity(got["path"]), "local"
		case got["id"] != "":
			d.Name = strings.ToLower(got["id"])
		default:
			continue
		}
		for _, k := range []string{"from", "exact", "branch", "revision"} {
			if v := got[k]; v != "" {
				d.Version = v
				if k == "from" {
					d.Version = ">=" + v
				}
				break
			}
		}
		if m := spmRange.FindStringSubmatch(args); d.Version == "" && m != nil {
			d.Version = m[1] + m[2] + m[3]
		}
		deps = append(deps, d)
	}
}

// closingParen returns the index of the parenthesis closing the one
// opened just before start (len(src) when unbalanced), skipping string
// literals.
func closingParen(src string, start int) int {
	depth, inStr := 1, false
	for k := start; k < len(src); k++ {
		switch c := src[k]; {
		case inStr && c == '\\':
			k++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return len(src)
}

// spmIdentity is SwiftPM's identity of a package location: its last path
// component without .git, lower case.
func spmIdentity(loc string) string {
	loc = strings.TrimSuffix(strings.TrimSuffix(loc, "/"), ".git")
	return strings.ToLower(path.Base(loc))
}

// swiftPMPackage adds the swiftpm:package: node a Package.swift defines
// (Package(name: "…"), by identity: the name in lower case).
func swiftPMPackage(fr *lang.Result, src string) {
	m := spmPackage.FindStringSubmatch(src)
	if m == nil {
		return
	}
	uid := lang.ClampUID("swiftpm:package:" + lang.UIDPart(strings.ToLower(m[1])))
	fr.AddNode(graph.Node{UID: uid, Kind: graph.KindDependency, Label: lang.CleanString(m[1]), Metadata: map[string]any{"ecosystem": "swiftpm"}})
	fr.AddEdge(lang.FileUID(fr.Path), uid, graph.EdgeDefines, strings.Count(src[:strings.Index(src, m[0])], "\n")+1)
}
