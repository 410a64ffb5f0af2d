package graph

import (
	"fmt"
	"regexp"
	"strings"
)

// RootSep separates a root's name from the path inside it in the graph's
// paths and uids: "lib//util/strings.go" is util/strings.go of the root
// named lib. A clean repo-relative path never holds "//", so a path names
// exactly one root. The first root indexed in a state folder (the primary
// root) has no name in its paths: a state folder with one root keeps the
// paths and uids it always had (docs/uids.md, "Roots").
const RootSep = "//"

// TypeRootRemoved is the event type that takes a root out of the graph:
// appended after the graph.file_removed of each of its files, in the same
// transaction.
const TypeRootRemoved = "graph.root_removed"

// RootRemoved is the payload of graph.root_removed: the root Name ("" is
// the primary root) is no longer indexed.
type RootRemoved struct {
	Name string `json:"name"`
}

// rootName is what a root name may be: a letter or digit, then up to 63
// letters, digits, '.', '_' or '-'.
var rootName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidRootName returns an error saying what a root name may be when name
// is not one.
func ValidRootName(name string) error {
	if !rootName.MatchString(name) {
		return fmt.Errorf("root name %q: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// RootPath returns the graph path of rel (repo-relative, slash-separated,
// "." for the root folder) in the root name: rel itself for the primary
// root (name ""), name+"//"+rel otherwise.
func RootPath(name, rel string) string {
	if name == "" {
		return rel
	}
	return name + RootSep + rel
}

// SplitRoot returns the root name and the path inside it of a graph path:
// ("lib", "a/b.go") for "lib//a/b.go", ("", p) for a path of the primary
// root.
func SplitRoot(p string) (name, rel string) {
	if i := strings.Index(p, RootSep); i > 0 {
		return p[:i], p[i+len(RootSep):]
	}
	return "", p
}

// RootedPath is the graph path an extractor gives a file of another root
// than the one it reads: name//rel, or //rel for the primary root (name
// ""), whose paths carry no name once stored — InRoot drops the marker.
func RootedPath(name, rel string) string { return name + RootSep + rel }

// pathBodied are the uid prefixes whose body starts with a graph path: the
// nodes of a file belong to its root. The others (modules by import name,
// packages, external stubs, MCP servers) name the same thing in every root.
var pathBodied = []string{"code:file:", "code:function:", "code:class:", "doc:file:", "doc:heading:", "folder:", "config:", "entry:"}

// kindedPrefix reports whether a pathBodied prefix is followed by a kind
// and ':' before the path (config:<format>:<path>, entry:<kind>:<path>).
func kindedPrefix(p string) bool { return p == "config:" || p == "entry:" }

// InRoot returns uid as the root name holds it. A uid whose body is a
// path (files, their declarations, folders, config keys) gets the root's
// name in front of the path — unless the path already names a root
// (RootedPath, an edge into another root): name//rel stays, //rel (the
// primary root) loses its marker. Any other uid, and every unmarked uid of
// the primary root (name ""), is returned as it is. The result is clamped
// to MaxUIDLen (ClampUID).
func InRoot(uid, name string) string {
	for _, p := range pathBodied {
		if !strings.HasPrefix(uid, p) {
			continue
		}
		body := uid[len(p):]
		if kindedPrefix(p) {
			// config:<format>:<path>#…, entry:<kind>:<path>::…
			i := strings.IndexByte(body, ':')
			if i < 0 {
				return uid
			}
			p, body = uid[:len(p)+i+1], body[i+1:]
		}
		path := body
		if i := strings.IndexAny(path, "#:"); i >= 0 {
			path = path[:i]
		}
		switch {
		case strings.HasPrefix(path, RootSep):
			return p + body[len(RootSep):]
		case strings.Contains(path, RootSep) || name == "":
			return uid
		}
		return ClampUID(p + name + RootSep + body)
	}
	return uid
}

// rootedPathProblem says what is wrong with the root part of a uid whose
// body is a path holding RootSep, "" when nothing is (or it has none): the
// part before it must be a root name (ValidRootName), and the path after
// it non-empty, with no second RootSep, not absolute and not "./".
func rootedPathProblem(uid string) string {
	for _, p := range pathBodied {
		if !strings.HasPrefix(uid, p) {
			continue
		}
		body := uid[len(p):]
		if kindedPrefix(p) {
			i := strings.IndexByte(body, ':')
			if i < 0 {
				return ""
			}
			body = body[i+1:]
		}
		path := body
		if i := strings.IndexAny(path, "#:"); i >= 0 {
			path = path[:i]
		}
		i := strings.Index(path, RootSep)
		if i < 0 {
			return ""
		}
		name, rel := path[:i], path[i+len(RootSep):]
		switch {
		case ValidRootName(name) != nil:
			return fmt.Sprintf("%q before // is not a root name (letters, digits, '.', '_', '-')", name)
		case rel == "" || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "./") || strings.Contains(rel, RootSep):
			return "a path after root//  must be a clean path inside the root"
		}
		return ""
	}
	return ""
}
