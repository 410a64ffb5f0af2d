package cfamily

import (
	"bytes"
	"regexp"
)

// exportMacro matches an export or visibility macro between class, struct
// or union and the type's name (class LEVELDB_EXPORT Status {): a name in
// capitals followed by another name and the start of a body or base list.
// It is tried at each class, struct or union keyword that starts a word
// (exportMacros), not run over the whole file.
var exportMacro = regexp.MustCompile(`^(?:class|struct|union)[ \t]+([A-Z][A-Z0-9_]*)[ \t]+[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*(?:[:{]|\n)`)

// exportMacros returns the spans ([from, to) pairs) of the macros
// exportMacro matches in src, in order and not overlapping.
func exportMacros(src []byte) [][2]int {
	var out [][2]int
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case 'c', 's', 'u':
		default:
			continue
		}
		if i > 0 && isIdent(src[i-1]) {
			continue
		}
		if !bytes.HasPrefix(src[i:], []byte("class")) && !bytes.HasPrefix(src[i:], []byte("struct")) && !bytes.HasPrefix(src[i:], []byte("union")) {
			continue
		}
		l := exportMacro.FindSubmatchIndex(src[i:])
		if l == nil {
			continue
		}
		out = append(out, [2]int{i + l[2], i + l[3]})
		i += l[1] - 1
	}
	return out
}

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
	for _, l := range exportMacros(src) {
		blank(l[0], l[1])
	}
	for i := range src {
		if src[i] == '(' {
			if from, to, ok := annotationAt(src, i); ok {
				blank(from, to)
			}
		}
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

// annotationAt reports whether the "(" at open ends the name of an
// annotation macro after a declarator (GUARDED_BY(mu_),
// EXCLUSIVE_LOCKS_REQUIRED(mu), UNLOCK_FUNCTION()): a name in capitals
// with an underscore, after ")" or a name (not return, case, …) and
// blanks, with arguments holding no parenthesis, followed by what ends a
// declaration or starts a body (; { : = a line end) or another such
// macro. from and to span the macro and its arguments.
func annotationAt(src []byte, open int) (from, to int, ok bool) {
	from = open
	underscore := false
	for from > 0 && (src[from-1] == '_' || (src[from-1] >= 'A' && src[from-1] <= 'Z') || (src[from-1] >= '0' && src[from-1] <= '9')) {
		from--
		underscore = underscore || src[from] == '_'
	}
	if from == open || !underscore || src[from] < 'A' || src[from] > 'Z' || src[open-1] == '_' || (from > 0 && isIdent(src[from-1])) {
		return 0, 0, false
	}
	b := from
	for b > 0 && (src[b-1] == ' ' || src[b-1] == '\t') {
		b--
	}
	if b == from || b == 0 || (src[b-1] != ')' && !isIdent(src[b-1])) {
		return 0, 0, false
	}
	if isIdent(src[b-1]) {
		w := b
		for w > 0 && isIdent(src[w-1]) {
			w--
		}
		if notDeclarator[string(src[w:b])] {
			return 0, 0, false
		}
	}
	close := open + 1
	for close < len(src) && src[close] != ')' && src[close] != '(' {
		close++
	}
	if close >= len(src) || src[close] != ')' {
		return 0, 0, false
	}
	to = close + 1
	a := to
	for a < len(src) && (src[a] == ' ' || src[a] == '\t') {
		a++
	}
	if a == len(src) {
		return from, to, true
	}
	switch c := src[a]; {
	case c == ';' || c == '{' || c == ':' || c == '=' || c == '\n' || c == '\r':
		return from, to, true
	case c >= 'A' && c <= 'Z':
		return from, to, true
	}
	return 0, 0, false
}
