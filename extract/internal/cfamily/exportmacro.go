package cfamily

import (
	"bytes"
	"regexp"
)

// exportMacro matches an export or visibility macro between class, struct
// or union and the type's name (class LEVELDB_EXPORT Status {): a name in
// capitals followed by another name and the start of a body or base list.
var exportMacro = regexp.MustCompile(`\b(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*)[ \t]+[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:[:{]|\n)`)

// annotationMacro matches an annotation macro after a declarator
// (GUARDED_BY(mu_), EXCLUSIVE_LOCKS_REQUIRED(mu), UNLOCK_FUNCTION()): a
// name in capitals with parenthesised arguments, after ")" or a name and
// before what ends a declaration or starts a body.
var annotationMacro = regexp.MustCompile(`([)\w])([ \t]+)([A-Z][A-Z0-9_]*_[A-Z0-9_]+\([^()]*\))[ \t]*(?:[;{:=]|\n|[A-Z][A-Z0-9_]*_[A-Z0-9_]+\()`)

// notDeclarator are the words after which a macro is a call, not an
// annotation.
var notDeclarator = map[string]bool{"return": true, "case": true, "else": true, "do": true, "throw": true, "co_return": true}

// blankExportMacros returns src with such macros replaced by spaces (lines
// and columns kept), src itself when it has none. tree-sitter, which does
// not expand macros, would read the macro as the type's name.
func blankExportMacros(src []byte) []byte {
	var out []byte
	blank := func(from, to int) {
		if out == nil {
			out = bytes.Clone(src)
		}
		for i := from; i < to; i++ {
			out[i] = ' '
		}
	}
	for _, l := range exportMacro.FindAllSubmatchIndex(src, -1) {
		blank(l[2], l[3])
	}
	for start := 0; start < len(src); {
		l := annotationMacro.FindSubmatchIndex(src[start:])
		if l == nil {
			break
		}
		w := start + l[2]
		for w > 0 && isIdent(src[w-1]) {
			w--
		}
		if !notDeclarator[string(src[w:start+l[3]])] {
			blank(start+l[6], start+l[7])
		}
		start += l[7]
	}
	if out == nil {
		return src
	}
	return out
}
