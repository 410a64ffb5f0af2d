package search

import (
	"path"
	"slices"
	"strings"

	"github.com/cos-dev/cos/graph"
)

// uidPrefixes are the uid scheme's prefixes (docs/uids.md), in the order
// the path_prefix stage tries them. graph keeps its own copy unexported; the
// two must list the same prefixes (TestUIDPrefixes_KnownToGraph checks it).
var uidPrefixes = []string{
	"code:file:",
	"doc:file:",
	"folder:",
	"code:function:",
	"code:class:",
	"code:module:",
	"doc:heading:",
	"config:json:",
	"config:toml:",
	"config:yaml:",
	"go:package:",
	"npm:package:",
	"pypi:package:",
	"crates:package:",
	"composer:package:",
	"gem:package:",
	"nuget:package:",
	"swiftpm:package:",
	"mcp:server:",
	"cos:hook:",
	"cos:identifier:",
	"code:external:",
}

// splitUID returns the prefix and body of uid, and ok=false when uid has none
// of the scheme's prefixes.
func splitUID(uid string) (prefix, body string, ok bool) {
	for _, p := range uidPrefixes {
		if strings.HasPrefix(uid, p) {
			return p, uid[len(p):], true
		}
	}
	return "", uid, false
}

// nameKeys returns the bare names a node can be found by, besides its label:
// for "<path>::<name>" uids the name and its last dotted segment
// (code:function:x.go::Char.splice → "Char.splice", "splice"); for files and
// folders the base name (code:file:a/util.go → "util.go"); for headings the
// slug; for modules, packages and servers the body and its last dotted
// segment. Keys are lowercased and unique; none is empty.
func nameKeys(uid string) []string {
	names := bareNames(uid)
	keys := names[:0]
	for _, n := range names {
		k := strings.ToLower(n)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// bareNames is nameKeys before lowercasing, longest first.
func bareNames(uid string) []string {
	prefix, body, ok := splitUID(uid)
	if !ok || body == "" {
		return nil
	}
	var keys []string
	add := func(k string) {
		if k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	lastDot := func(s string) string {
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	switch {
	case strings.Contains(body, "::"):
		name := body[strings.LastIndex(body, "::")+2:]
		add(name)
		add(lastDot(name))
	case prefix == "code:file:" || prefix == "doc:file:" || prefix == "folder:":
		add(path.Base(body))
	case prefix == "doc:heading:":
		slug := body
		if i := strings.IndexByte(slug, '#'); i >= 0 {
			slug = slug[i+1:]
		}
		if i := strings.LastIndexByte(slug, ':'); i >= 0 {
			slug = slug[:i]
		}
		add(slug)
	case strings.HasPrefix(prefix, "config:"):
		// Keys of config nodes are found through their labels.
	default:
		add(body)
		add(lastDot(body))
	}
	return keys
}

// kindOf returns n.Kind, or the kind its uid prefix implies when n.Kind is
// empty.
func kindOf(n graph.Node) string {
	if n.Kind != "" {
		return n.Kind
	}
	k, _ := graph.KindOfUID(n.UID)
	return k
}

// pathOf returns n.Path, or for file and folder uids the body of the uid.
func pathOf(n graph.Node) string {
	if n.Path != "" {
		return n.Path
	}
	if prefix, body, ok := splitUID(n.UID); ok && (prefix == "code:file:" || prefix == "doc:file:" || prefix == "folder:") {
		return body
	}
	return ""
}
