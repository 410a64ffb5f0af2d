package scip

import (
	"strings"
	"unicode/utf16"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"
)

// This file reads what SCIP leaves out of an occurrence: whether a
// reference is a call, and whether it sits in an import statement. Both
// come from the source text around the occurrence's range.

// source is the text of one file, split in lines.
type source struct {
	lines []string
	// imports holds the 0-based lines of import statements and export
	// lists, whose references name a symbol without using it.
	imports map[int]bool
}

// dialect says how a file's statements are written.
type dialect uint8

const (
	dialectOther dialect = iota
	dialectPython
	dialectJS     // JavaScript and TypeScript
	dialectJava   // Java
	dialectC      // C and C++
	dialectRust   // Rust
	dialectCSharp // C#
	dialectPHP    // PHP
	dialectRuby   // Ruby
	// dialectScala: Java's import and package lines, ended by the line
	// (or the closing brace of import a.{…}) instead of a semicolon.
	dialectScala
)

func newSource(text string, d dialect) *source {
	s := &source{lines: strings.Split(text, "\n")}
	for i, l := range s.lines {
		s.lines[i] = strings.TrimSuffix(l, "\r")
	}
	s.imports = importLines(s.lines, d)
	return s
}

// line returns line i (0-based), "" out of range.
func (s *source) line(i int) string {
	if i < 0 || i >= len(s.lines) {
		return ""
	}
	return s.lines[i]
}

// span is an occurrence's place: a 0-based line and the byte offsets of
// its start and end on that line (a range over several lines ends at the
// end of its first).
type span struct{ line, col, end int }

// spanOf converts a SCIP range ([line, char, endChar] or [line, char,
// endLine, endChar]) to byte offsets; ok is false for a malformed range.
func (s *source) spanOf(r []int32, enc scippb.PositionEncoding) (span, bool) {
	if len(r) != 3 && len(r) != 4 || r[0] < 0 || r[1] < 0 {
		return span{}, false
	}
	text := s.line(int(r[0]))
	sp := span{line: int(r[0]), col: byteOffset(text, int(r[1]), enc)}
	if len(r) == 3 || r[2] == r[0] {
		sp.end = byteOffset(text, int(r[len(r)-1]), enc)
	} else {
		sp.end = len(text)
	}
	if sp.end < sp.col {
		sp.end = sp.col
	}
	return sp, true
}

// byteOffset converts a SCIP character offset on line to a byte offset.
// An unspecified encoding is read as UTF-16 code units: scip-python and
// scip-typescript run on Node.js, whose strings are UTF-16, and leave it
// unspecified.
func byteOffset(line string, char int, enc scippb.PositionEncoding) int {
	if enc == scippb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart {
		return min(char, len(line))
	}
	units := 0
	for i, r := range line {
		if units >= char {
			return i
		}
		if enc == scippb.PositionEncoding_UTF32CodeUnitOffsetFromLineStart {
			units++
		} else {
			units += max(utf16.RuneLen(r), 1)
		}
	}
	return len(line)
}

// isCall reports whether the name at sp is called or constructed: it is
// followed, after blanks (and in JavaScript/TypeScript a non-null !, type
// arguments <…> and ?.; in C++ template and C# type arguments <…>; in Rust a
// turbofish ::<…>), by "(", or preceded by new (a dotted path between new
// and the name allowed).
func (s *source) isCall(sp span, d dialect) bool {
	text := s.line(sp.line)
	if afterNew(text[:sp.col]) {
		return true
	}
	i := skipBlank(text, sp.end)
	switch d {
	case dialectRuby:
		// Parentheses are optional: a method's name is a call (x.save,
		// save x, self.name = v), a constant is called by Cls.new.
		if name := text[sp.col:sp.end]; name != "" && (name[0] == '_' || name[0] >= 'a' && name[0] <= 'z') {
			return true
		}
		return strings.HasPrefix(text[i:], ".new") && (len(text) == i+4 || !isIdent(text[i+4]))
	case dialectC, dialectCSharp:
		if i < len(text) && text[i] == '<' {
			j, ok := skipTypeArgs(text, i)
			if !ok {
				return false
			}
			i = skipBlank(text, j)
		}
	case dialectRust:
		if strings.HasPrefix(text[i:], "::<") {
			j, ok := skipTypeArgs(text, i+2)
			if !ok {
				return false
			}
			i = skipBlank(text, j)
		}
	case dialectJS:
		if i < len(text) && text[i] == '!' {
			i = skipBlank(text, i+1)
		}
		if i < len(text) && text[i] == '<' {
			j, ok := skipTypeArgs(text, i)
			if !ok {
				return false
			}
			i = skipBlank(text, j)
		}
		if strings.HasPrefix(text[i:], "?.") {
			i = skipBlank(text, i+2)
		}
	}
	return i < len(text) && text[i] == '('
}

func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipTypeArgs returns the offset after the > that closes the < at s[i]
// on the same line; false when it does not close, or the brackets hold
// what no type argument list does (a < b && c, a statement end).
func skipTypeArgs(s string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '<':
			depth++
		case '>':
			if j > 0 && s[j-1] == '=' { // the => of a function type
				continue
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ';':
			return 0, false
		case '&':
			if j+1 < len(s) && s[j+1] == '&' {
				return 0, false
			}
		case '|':
			if j+1 < len(s) && s[j+1] == '|' {
				return 0, false
			}
		}
	}
	return 0, false
}

func isIdent(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// afterNew reports whether before (the line up to a name) ends with the
// keyword new, possibly followed by a dotted path (new ns.C; PHP's
// new \A\C).
func afterNew(before string) bool {
	s := strings.TrimRight(before, " \t")
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "\\") {
		for len(s) > 0 && (isIdent(s[len(s)-1]) || s[len(s)-1] == '.' || s[len(s)-1] == '\\') {
			s = s[:len(s)-1]
		}
		s = strings.TrimRight(s, " \t")
	}
	rest, ok := strings.CutSuffix(s, "new")
	return ok && (rest == "" || !isIdent(rest[len(rest)-1]) && rest[len(rest)-1] != '.')
}

// maxImportLines bounds how many lines one import statement is followed
// across.
const maxImportLines = 500

// importLines returns the 0-based lines of import statements (Python
// import / from … import, parenthesised or continued; JavaScript and
// TypeScript import … from and export { … } / export * lists; Java
// and Scala import and package; C++ using-declarations and using namespace;
// Rust use and extern crate; C# using and namespace, up to their ;; PHP
// namespace and use, up to their ;; Ruby require, require_relative and
// load, one line each).
func importLines(lines []string, d dialect) map[int]bool {
	out := map[int]bool{}
	if d == dialectOther {
		return out
	}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !importStart(t, d) {
			continue
		}
		depth := 0
		for j := i; j < len(lines) && j-i < maxImportLines; j++ {
			out[j] = true
			t := strings.TrimSpace(lines[j])
			if c := strings.IndexByte(t, '#'); (d == dialectPython || d == dialectRuby) && c >= 0 {
				t = strings.TrimSpace(t[:c])
			} else if d != dialectPython {
				t = stripLineComment(t)
			}
			if d == dialectScala && j == i && strings.HasPrefix(t, "package ") {
				break // package a.b, or package a.b { …: one line
			}
			depth += strings.Count(t, "(") + strings.Count(t, "{") - strings.Count(t, ")") - strings.Count(t, "}")
			i = j
			if depth > 0 {
				continue
			}
			if d == dialectPython && strings.HasSuffix(t, "\\") {
				continue
			}
			if d == dialectJS && (strings.HasSuffix(t, "from") || strings.HasSuffix(t, ",")) {
				continue
			}
			if d == dialectRuby {
				break
			}
			if d != dialectPython && d != dialectJS && d != dialectScala && !strings.HasSuffix(stripLineComment(t), ";") {
				continue // import a.b.\n    C; use a::{\n b };
			}
			break
		}
	}
	return out
}

func importStart(t string, d dialect) bool {
	switch d {
	case dialectPython:
		return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") && strings.Contains(t, " import")
	case dialectJava, dialectScala:
		return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "package ")
	case dialectC:
		// using N::f; and using namespace N; — not using T = …; (an alias
		// whose right side is a use).
		return strings.HasPrefix(t, "using ") && !strings.Contains(stripLineComment(t), "=")
	case dialectCSharp:
		// using N; using static N.T; using A = N.T; global using N; — not
		// the statements using (…) and using var x = …;.
		t = strings.TrimPrefix(t, "global ")
		return strings.HasPrefix(t, "using ") && !strings.HasPrefix(t, "using (") && !strings.HasPrefix(t, "using var ") || strings.HasPrefix(t, "namespace ")
	case dialectPHP:
		return strings.HasPrefix(t, "use ") || strings.HasPrefix(t, "namespace ") && !strings.HasSuffix(stripLineComment(t), "{")
	case dialectRuby:
		for _, k := range []string{"require ", "require(", "require_relative ", "require_relative(", "load ", "load("} {
			if strings.HasPrefix(t, k) {
				return true
			}
		}
		return false
	case dialectRust:
		t = strings.TrimPrefix(t, "pub ")
		if strings.HasPrefix(t, "pub(") {
			if i := strings.IndexByte(t, ')'); i >= 0 {
				t = strings.TrimSpace(t[i+1:])
			}
		}
		return strings.HasPrefix(t, "use ") || strings.HasPrefix(t, "extern crate ")
	}
	if strings.HasPrefix(t, "import(") || strings.HasPrefix(t, "import.") {
		return false // a dynamic import or import.meta: an expression
	}
	return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import{") || strings.HasPrefix(t, "export {") ||
		strings.HasPrefix(t, "export{") || strings.HasPrefix(t, "export *") || strings.HasPrefix(t, "export type {")
}

// stripLineComment returns t without a trailing // comment, trimmed (a
// // inside a string literal is cut too: an import line has none).
func stripLineComment(t string) string {
	if c := strings.Index(t, "//"); c >= 0 {
		t = t[:c]
	}
	return strings.TrimSpace(t)
}
