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
	// A conditional directive inside a list (a constructor's initialisers
	// after ":" or ",") breaks the grammar: blank the directive, keep the
	// lines it guards.
	last := byte(0)
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			j = len(src) - i
		}
		line := bytes.TrimSpace(src[i : i+j])
		if isConditional(line) {
			if last == ':' || last == ',' {
				blank(i, i+j)
			}
		} else if len(line) > 0 && !bytes.HasPrefix(line, []byte("//")) {
			last = line[len(line)-1]
		}
		i += j + 1
	}
	if out == nil {
		return src
	}
	return out
}

// isConditional reports whether a trimmed line is #if, #ifdef, #ifndef,
// #elif, #else or #endif.
func isConditional(line []byte) bool {
	if len(line) < 3 || line[0] != '#' {
		return false
	}
	w := bytes.TrimSpace(line[1:])
	for _, d := range []string{"if", "elif", "else", "endif"} {
		if bytes.HasPrefix(w, []byte(d)) {
			return true
		}
	}
	return false
}
