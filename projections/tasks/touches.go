package tasks

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// TouchesExample is the corrected example of a touches error.
const TouchesExample = `{"touches": ["internal/auth/", "internal/auth/*.go", "code:function:internal/auth/login.go::Login"]}`

// TouchKind tells what a touches entry names.
type TouchKind int

// Kinds of touches entries.
const (
	// TouchPath is a repo-relative file, or a folder and what is under it.
	TouchPath TouchKind = iota
	// TouchGlob is a path.Match pattern, where "**" matches any number of
	// folders.
	TouchGlob
	// TouchUID is a node uid ("code:function:…"): a scheme before any '/'.
	TouchUID
)

// KindOfTouch classifies a touches entry: a uid when a ':' comes before
// any '/' after a scheme of two or more characters, a glob when it holds *, ? or [, else a path.
func KindOfTouch(s string) TouchKind {
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	switch {
	case colon > 1 && (slash < 0 || colon < slash): // "C:" is a drive, not a scheme
		return TouchUID
	case strings.ContainsAny(s, "*?["):
		return TouchGlob
	}
	return TouchPath
}

// ParseTouches decodes and validates a touches list (the touches argument
// of create, claim and patch): at most MaxTouches non-empty strings of at
// most MaxTouchLen bytes each; uids, repo-relative paths or globs. Entries
// are trimmed and de-duplicated in order; [] is legal (it clears).
func ParseTouches(raw json.RawMessage) ([]string, error) {
	l, fe := parseTouches(raw, "touches", TouchesExample)
	if fe != nil {
		return nil, asError([]*FieldError{fe})
	}
	return l, nil
}

func touchesLegal() string {
	return fmt.Sprintf("a list of at most %d uids, repo-relative paths or globs (each at most %d bytes)", MaxTouches, MaxTouchLen)
}

func parseTouches(v json.RawMessage, field, example string) ([]string, *FieldError) {
	// A new entry may not hold a control or bidi character (the reducer's
	// validTouch stays as it was: events already written replay).
	newTouch := func(s string) string {
		if i, r, bad := HiddenNameRune(s); bad {
			return fmt.Sprintf("character %d is U+%04X, a control, bidi or invisible character; remove it", i+1, r)
		}
		return validTouch(s)
	}
	l, hint, ok := parseStringList(v, MaxTouches, func(s string) bool { return newTouch(s) == "" })
	if !ok {
		// Name what is wrong with the first bad entry.
		var items []string
		if json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				if why := newTouch(strings.TrimSpace(it)); why != "" {
					hint = fmt.Sprintf("entry %s: %s", escapeHidden(strconv.Quote(it)), why)
					break
				}
			}
		}
		return nil, &FieldError{Field: field, Got: clip(v), Legal: touchesLegal(), Hint: hint, Example: example}
	}
	out := make([]string, 0, len(l))
	for _, it := range l {
		if KindOfTouch(it) == TouchGlob && strings.HasSuffix(it, "/") {
			hint := fmt.Sprintf(`entry %q: a glob names files; drop the trailing '/' ("dir/**" names all under dir)`, it)
			return nil, &FieldError{Field: field, Got: clip(v), Legal: touchesLegal(), Hint: hint, Example: example}
		}
		if it = cleanTouch(it); !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out, nil
}

// cleanTouch writes a path or glob entry the way the graph writes paths
// ("./a//b.go" is "a/b.go"), so that it matches them; a folder keeps its
// trailing '/'. A uid is left as given.
func cleanTouch(s string) string {
	if KindOfTouch(s) == TouchUID {
		return s
	}
	c := path.Clean(s)
	if strings.HasSuffix(s, "/") && c != "." {
		c += "/"
	}
	return c
}

// validTouch returns why s is not a legal touches entry, or "".
func validTouch(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > MaxTouchLen:
		return fmt.Sprintf("%d bytes is too long", len(s))
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "control characters"
	}
	if KindOfTouch(s) == TouchUID {
		return ""
	}
	if strings.Contains(s, `\`) {
		return `'\' is not a separator; paths are repo-relative with '/'`
	}
	if strings.HasPrefix(s, "/") || (len(s) > 1 && s[1] == ':') {
		return "absolute; paths are repo-relative with '/'"
	}
	if slices.Contains(strings.Split(s, "/"), "..") {
		return `".." is not allowed; paths are repo-relative`
	}
	if KindOfTouch(s) == TouchGlob {
		if _, err := path.Match(strings.ReplaceAll(s, "**", "*"), ""); err != nil {
			return "not a valid glob (path.Match syntax, plus ** for any folders)"
		}
	}
	return ""
}

// validateTouches is the reducer's check of a touches list.
func validateTouches(l []string) error {
	if len(l) > MaxTouches {
		return fmt.Errorf("touches: %d entries, at most %d", len(l), MaxTouches)
	}
	for _, s := range l {
		if why := validTouch(s); why != "" {
			return fmt.Errorf("touches entry %q: %s", s, why)
		}
	}
	return nil
}

// MatchTouch reports whether the repo-relative file path p is named by the
// path or glob entry s: a path names itself and, as a folder, what is under
// it; in a glob, "**" matches any number of folders (none included).
func MatchTouch(s, p string) bool {
	switch KindOfTouch(s) {
	case TouchPath:
		s = strings.TrimSuffix(s, "/")
		return p == s || s == "." || s == "" || strings.HasPrefix(p, s+"/")
	case TouchGlob:
		return matchGlob(strings.Split(s, "/"), strings.Split(p, "/"))
	}
	return false
}

// matchGlob matches path segments against pattern segments, "**" taking
// any number of segments.
func matchGlob(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchGlob(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
