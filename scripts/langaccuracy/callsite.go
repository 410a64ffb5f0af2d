package main

import (
	"strings"
)

// category is the form of a call site (doc.go, "Categories").
type category string

const (
	catFunction    category = "function"
	catConstructor category = "constructor"
	catModuleAttr  category = "module_attr"
	catSelf        category = "self"
	catSuper       category = "super"
	catInstance    category = "instance"
	catAll         category = "all"
)

// categories lists the rows of a report, "all" last.
var categories = []category{catFunction, catConstructor, catModuleAttr, catSelf, catSuper, catInstance, catAll}

// maxLookback bounds how many lines a receiver or a call's opening
// parenthesis is searched across (method chains written one call a line).
const maxLookback = 8

// isIdent reports whether b can be part of an identifier (JS allows $).
func isIdent(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// isCallSite reports whether the name at (line, col)-(line, end) is called
// or constructed: followed, after optional blanks (and, in TypeScript, type
// arguments <...> or a non-null !, and ?.), by "(", or preceded by new (a
// dotted path between new and the name allowed).
func isCallSite(d *document, line, col, end int, ts bool) bool {
	if afterNew(d.text(line)[:col]) {
		return true
	}
	text := d.text(line)
	i := skipBlank(text, end)
	if ts {
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

// skipTypeArgs returns the index after the > closing the < at s[i], on the
// same line; false when the brackets do not close or hold something no
// type argument list holds (a comparison a < b && c).
func skipTypeArgs(s string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '<':
			depth++
		case '>':
			if j > 0 && s[j-1] == '=' { // => of a function type
				continue
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ';', '&':
			if c == '&' && j+1 < len(s) && s[j+1] == '&' {
				return 0, false
			}
			if c == ';' {
				return 0, false
			}
		}
	}
	return 0, false
}

// afterNew reports whether before (the text of the line before a name)
// ends with the keyword new, possibly followed by a dotted path (new
// ns.C).
func afterNew(before string) bool {
	s := strings.TrimRight(before, " \t")
	if strings.HasSuffix(s, ".") {
		for len(s) > 0 && (isIdent(s[len(s)-1]) || s[len(s)-1] == '.') {
			s = s[:len(s)-1]
		}
		s = strings.TrimRight(s, " \t")
	}
	if !strings.HasSuffix(s, "new") {
		return false
	}
	s = s[:len(s)-3]
	return s == "" || !isIdent(s[len(s)-1]) && s[len(s)-1] != '.'
}

// receiver is the expression a dotted call site is written on.
type receiver struct {
	// Dotted is false for a bare name f().
	Dotted bool
	// Line and End place the receiver's last character (End is the byte
	// after it); Text is its last identifier, "" when it ends with ) or ].
	Line, End int
	Text      string
	// Chained: the receiver itself is dotted (a.b.m()).
	Chained bool
	// Call is the identifier before the receiver's closing parenthesis
	// when it ends with one (super in super().m()).
	Call string
}

// receiverOf finds the receiver of the name at (line, col): the text
// before a preceding "." or "?.", across lines for chains written one
// call a line.
func receiverOf(d *document, line, col int) receiver {
	l, s := line, d.text(line)[:col]
	s = strings.TrimRight(s, " \t")
	for s == "" && l > 0 && line-l < maxLookback {
		l--
		s = strings.TrimRight(d.text(l), " \t")
	}
	switch {
	case strings.HasSuffix(s, "?."):
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "."):
		s = s[:len(s)-1]
	default:
		return receiver{}
	}
	s = strings.TrimRight(s, " \t")
	for s == "" && l > 0 && line-l < maxLookback {
		l--
		s = strings.TrimRight(d.text(l), " \t")
	}
	r := receiver{Dotted: true, Line: l, End: len(s)}
	if s == "" {
		return r
	}
	switch last := s[len(s)-1]; {
	case isIdent(last):
		i := len(s)
		for i > 0 && isIdent(s[i-1]) {
			i--
		}
		r.Text = s[i:]
		r.Chained = i > 0 && s[i-1] == '.'
	case last == ')':
		r.Call = calledBefore(d, l, len(s)-1, line)
	}
	return r
}

// calledBefore returns the identifier before the ( matching the ) at
// (l, i), looking back at most to maxLookback lines before site.
func calledBefore(d *document, l, i, site int) string {
	depth := 0
	for ; l >= 0 && site-l <= maxLookback; l-- {
		s := d.text(l)
		if i < 0 || i > len(s)-1 {
			i = len(s) - 1
		}
		for ; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
				if depth == 0 {
					j := i
					for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
						j--
					}
					k := j
					for k > 0 && isIdent(s[k-1]) {
						k--
					}
					return s[k:j]
				}
			}
		}
		i = -1
	}
	return ""
}

// isModuleSymbol reports whether a SCIP symbol names a module or
// namespace: scip-python's `pkg.mod`/__init__: and scip-typescript's
// `file.ts`/ (a namespace import).
func isModuleSymbol(sym string) bool {
	return strings.HasSuffix(sym, "/__init__:") || strings.HasSuffix(sym, "/")
}

// classify returns the category of the call site of the name at (line,
// col)-(line, end). calleeClass says the callee is a class; requireVar
// reports whether a receiver symbol is a variable bound to require(...)
// (CommonJS modules).
func classify(d *document, line, col, end int, calleeClass bool, requireVar func(sym string) bool) category {
	if d.text(line)[col:end] == "super" {
		return catSuper
	}
	r := receiverOf(d, line, col)
	if !r.Dotted {
		if calleeClass || afterNew(d.text(line)[:col]) {
			return catConstructor
		}
		return catFunction
	}
	switch {
	case r.Call == "super" || r.Text == "super" && !r.Chained:
		return catSuper
	case afterNew(d.text(line)[:col]):
		return catConstructor
	case !r.Chained && (r.Text == "self" || r.Text == "cls" || r.Text == "this"):
		return catSelf
	}
	if r.Text != "" {
		if o, ok := d.occEndingAt(r.Line, r.End); ok {
			if isModuleSymbol(o.Symbol) || requireVar != nil && requireVar(o.Symbol) {
				return catModuleAttr
			}
		}
	}
	if calleeClass {
		return catConstructor
	}
	return catInstance
}
