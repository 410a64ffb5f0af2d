package graph

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUIDLen is the longest uid accepted on write, in bytes.
const MaxUIDLen = 1024

// ErrMalformedUID is returned (wrapped in a *UIDError) when a uid breaks the
// scheme of docs/uids.md or contains "../", a backtick, whitespace or a
// control character (cos_graph_doctor's malformed_uid_path).
var ErrMalformedUID = errors.New("malformed uid")

// UIDError says why a uid was rejected.
type UIDError struct {
	UID    string
	Reason string
}

func (e *UIDError) Error() string { return fmt.Sprintf("malformed uid %q: %s", e.UID, e.Reason) }
func (e *UIDError) Unwrap() error { return ErrMalformedUID }

// uidPrefixes maps each uid prefix of the scheme (docs/uids.md) to the node
// kind it implies.
var uidPrefixes = []struct{ prefix, kind string }{
	{"code:file:", KindFile},
	{"code:function:", KindFunction},
	{"code:class:", KindClass},
	{"code:module:", KindModule},
	{"code:external:", KindExternal},
	{"doc:file:", KindDocFile},
	{"doc:heading:", KindHeading},
	{"folder:", KindFolder},
	{"config:json:", KindConfig},
	{"config:toml:", KindConfig},
	{"config:yaml:", KindConfig},
	{"config:cmake:", KindConfig},
	{"go:package:", KindDependency},
	{"npm:package:", KindDependency},
	{"pypi:package:", KindDependency},
	{"crates:package:", KindDependency},
	{"maven:package:", KindDependency},
	{"composer:package:", KindDependency},
	{"gem:package:", KindDependency},
	{"nuget:package:", KindDependency},
	{"swiftpm:package:", KindDependency},
	{"mcp:server:", KindMCPServer},
	{"entry:", KindEntrypoint},
	{"cos:hook:", KindExternal},
	{"cos:identifier:", KindExternal},
}

// KindOfUID returns the node kind a uid's prefix implies, and false when the
// prefix is not one of the scheme's.
func KindOfUID(uid string) (string, bool) {
	for _, p := range uidPrefixes {
		if strings.HasPrefix(uid, p.prefix) {
			return p.kind, true
		}
	}
	return "", false
}

// ValidateUID returns a *UIDError when uid is empty, too long, not valid
// UTF-8, has no known prefix, has an empty body, or contains "../" (or ends
// in "/.."), a backtick, whitespace or a control character.
func ValidateUID(uid string) error {
	bad := func(reason string) error { return &UIDError{UID: uid, Reason: reason} }
	switch {
	case uid == "":
		return bad("empty")
	case len(uid) > MaxUIDLen:
		return bad(fmt.Sprintf("longer than %d bytes", MaxUIDLen))
	case !utf8.ValidString(uid):
		return bad("not valid UTF-8")
	case strings.Contains(uid, "../") || strings.HasSuffix(uid, "/.."):
		return bad(`contains "../"`)
	case strings.ContainsRune(uid, '`'):
		return bad("contains a backtick")
	}
	for _, r := range uid {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return bad("contains whitespace or a control character")
		}
	}
	for _, p := range uidPrefixes {
		if strings.HasPrefix(uid, p.prefix) {
			if len(uid) == len(p.prefix) {
				return bad("nothing after the prefix " + p.prefix)
			}
			if why := rootedPathProblem(uid); why != "" {
				return bad(why)
			}
			return nil
		}
	}
	return bad("unknown prefix; expected one of code:file:, code:function:, code:class:, code:module:, code:external:, doc:file:, doc:heading:, folder:, config:json:, config:toml:, config:yaml:, go:package:, npm:package:, pypi:package:, crates:package:, maven:package:, composer:package:, gem:package:, nuget:package:, swiftpm:package:, mcp:server:, entry:")
}

// FileUID returns the uid of a repo-relative file: doc:file: for Markdown,
// code:file: otherwise.
func FileUID(path string) string {
	if IsDocPath(path) {
		return "doc:file:" + path
	}
	return "code:file:" + path
}

// IsDocPath reports whether path is a documentation file (Markdown).
func IsDocPath(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".md") || strings.HasSuffix(l, ".markdown")
}

// FolderUID returns the uid of a repo-relative folder; "" or "." is the root,
// "folder:.".
func FolderUID(path string) string {
	if path == "" {
		path = "."
	}
	return "folder:" + path
}
