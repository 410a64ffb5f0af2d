package eventlog

import (
	"regexp"
	"strings"
)

// TypePatternLegal says in an error which type patterns ParseTypePattern
// takes.
const TypePatternLegal = `an event type such as task.updated, or a prefix ending in ".*" such as task.*`

var (
	exactTypeShape  = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)
	prefixTypeShape = regexp.MustCompile(`^([a-z][a-z0-9_]*\.)+\*$`)
)

// TypePattern selects events by type: one exact type ("task.updated") or
// every type under a prefix ("task.*": "task.created", "task.updated", …).
// The CLI (cos log --type), the hub (/api/events?types=) and cos_history
// read patterns with ParseTypePattern, so all take the same forms.
type TypePattern struct {
	// Exact is the type, or the prefix with its trailing "*" cut ("task.")
	// when Prefix.
	Exact  string
	Prefix bool
}

// ParseTypePattern reads s, trimmed of spaces: area.verb_noun, or a dotted
// prefix followed by ".*". ok is false for any other text.
func ParseTypePattern(s string) (TypePattern, bool) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) > 128:
		return TypePattern{}, false
	case exactTypeShape.MatchString(s):
		return TypePattern{Exact: s}, true
	case prefixTypeShape.MatchString(s):
		return TypePattern{Exact: strings.TrimSuffix(s, "*"), Prefix: true}, true
	}
	return TypePattern{}, false
}

// Match reports whether the event type typ matches p.
func (p TypePattern) Match(typ string) bool {
	if p.Prefix {
		return strings.HasPrefix(typ, p.Exact)
	}
	return typ == p.Exact
}

// String is the pattern as written: "task.updated", "task.*".
func (p TypePattern) String() string {
	if p.Prefix {
		return p.Exact + "*"
	}
	return p.Exact
}

// MatchAny reports whether typ matches one of ps; an empty ps matches every
// type.
func MatchAny(ps []TypePattern, typ string) bool {
	if len(ps) == 0 {
		return true
	}
	for _, p := range ps {
		if p.Match(typ) {
			return true
		}
	}
	return false
}
