package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	nearestpkg "github.com/cos-dev/cos/internal/nearest"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Signals is TaskSignals, the fields docs/uids.md (TaskSignals) lists.
// After ParseSignals every field holds a legal value; absent optional fields
// hold their defaults.
type Signals struct {
	// TaskTitle is optional inside signals (cos_analyze_task takes it as its
	// own argument; the minimal call, SignalsExample, carries it).
	TaskTitle string `json:"task_title,omitempty"`
	// Dimensions is how many independent concerns the task spans: int ≥ 1;
	// default 1.
	Dimensions int `json:"dimensions"`
	// Domain lists the areas the task touches: ["meta"], ["django", "meta"];
	// default [] (no role depends on it).
	Domain []string `json:"domain"`
	// Complexity is a Cynefin domain: CLEAR|COMPLICATED|COMPLEX|CHAOTIC|CONFUSION;
	// default CONFUSION (not yet known which).
	Complexity string `json:"complexity"`
	// ScopeSize is trivial|small|medium|large|recursive; default medium.
	ScopeSize string `json:"scope_size"`
	// Action is create|modify|debug|research|review|deploy|refactor|
	// document|audit|unknown; default unknown.
	Action string `json:"action"`
	// Urgency is normal|elevated|incident; default normal.
	Urgency string `json:"urgency"`
	// Novelty is 0.0 (routine) … 1.0 (never done before); default 0.5.
	Novelty float64 `json:"novelty"`
}

// Legal values of the TaskSignals fields (docs/uids.md, TaskSignals). A
// field left out takes its default below.
var (
	Complexities = []string{"CLEAR", "COMPLICATED", "COMPLEX", "CHAOTIC", "CONFUSION"}
	ScopeSizes   = []string{"trivial", "small", "medium", "large", "recursive"}
	Actions      = []string{"create", "modify", "debug", "research", "review", "deploy", "refactor", "document", "audit", "unknown"}
	Urgencies    = []string{"normal", "elevated", "incident"}
)

// Defaults of the optional TaskSignals fields.
const (
	DefaultDimensions = 1
	DefaultComplexity = "CONFUSION"
	DefaultScopeSize  = "medium"
	DefaultAction     = "unknown"
	DefaultUrgency    = "normal"
	DefaultNovelty    = 0.5
	// MaxTitleLen is the longest task title (and signals task_title), in
	// characters.
	MaxTitleLen = 200
)

// SignalsExample is the minimal valid call, given as the corrected
// example in every TaskSignals error.
const SignalsExample = `{"task_title": "Fix auth bug", "dimensions": 2, "complexity": "COMPLICATED", "domain": ["meta"]}`

// signalKeys are the accepted keys, in the order of the TaskSignals table
// in docs/uids.md.
var signalKeys = []string{"task_title", "dimensions", "domain", "complexity", "scope_size", "action", "urgency", "novelty"}

// Near misses of the enumerated fields, for the "did you mean" hint. Keys
// are lowercase.
var (
	scopeSynonyms = map[string]string{"big": "large", "huge": "large", "xl": "large", "l": "large", "tiny": "trivial",
		"minor": "small", "s": "small", "m": "medium", "moderate": "medium", "everything": "recursive", "whole": "large"}
	actionSynonyms = map[string]string{"analyze": "research", "analyse": "research", "investigate": "research",
		"explore": "research", "fix": "debug", "bugfix": "debug", "implement": "create", "build": "create", "add": "create",
		"new": "create", "update": "modify", "change": "modify", "edit": "modify", "release": "deploy", "ship": "deploy",
		"cleanup": "refactor", "restructure": "refactor", "docs": "document", "write": "document", "inspect": "audit",
		"check": "review", "test": "review"}
	urgencySynonyms = map[string]string{"high": "elevated", "urgent": "elevated", "medium": "normal", "low": "normal",
		"critical": "incident", "emergency": "incident", "outage": "incident", "p0": "incident", "p1": "elevated"}
	complexitySynonyms = map[string]string{"simple": "CLEAR", "easy": "CLEAR", "obvious": "CLEAR", "hard": "COMPLICATED",
		"difficult": "COMPLICATED", "chaos": "CHAOTIC", "unknown": "CONFUSION", "unclear": "CONFUSION", "disorder": "CONFUSION"}
	noveltyWords = map[string]float64{"none": 0, "low": 0.2, "medium": 0.5, "moderate": 0.5, "high": 0.8, "new": 0.8, "very high": 1}
)

// ParseSignals decodes and validates TaskSignals from raw JSON: an object,
// or a JSON string holding one (signals_json). Every problem is reported at
// once in an *ArgumentError (errors.Is ErrInvalidArgument); each "common
// wrong form" of the TaskSignals table in docs/uids.md yields one FieldError
// naming the field, what arrived, the legal values and SignalsExample.
// Unknown keys are errors that list the accepted keys. The result is normalised: optional fields carry
// their defaults, domain entries are trimmed and de-duplicated.
func ParseSignals(raw json.RawMessage) (Signals, error) {
	return parseSignals(raw, "")
}

// parseSignals names fields prefix+key ("signals." inside a create).
func parseSignals(raw json.RawMessage, prefix string) (Signals, error) {
	whole := strings.TrimSuffix(prefix, ".")
	if whole == "" {
		whole = "signals_json"
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return Signals{}, asError([]*FieldError{{Field: whole, Got: clip(raw), Legal: "a JSON object of TaskSignals", Hint: "not valid JSON: " + err.Error(), Example: SignalsExample}})
		}
		raw = bytes.TrimSpace([]byte(inner))
	}
	if len(raw) == 0 || raw[0] != '{' {
		got := clip(raw)
		if len(raw) == 0 {
			got = ""
		}
		return Signals{}, asError([]*FieldError{{Field: whole, Got: got, Legal: "a JSON object with keys " + strings.Join(signalKeys, ", "), Example: SignalsExample}})
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Signals{}, asError([]*FieldError{{Field: whole, Got: clip(raw), Legal: "a JSON object of TaskSignals", Hint: "not valid JSON: " + err.Error(), Example: SignalsExample}})
	}

	s := Signals{Dimensions: DefaultDimensions, Domain: []string{}, Complexity: DefaultComplexity,
		ScopeSize: DefaultScopeSize, Action: DefaultAction, Urgency: DefaultUrgency, Novelty: DefaultNovelty}
	var errs []*FieldError
	bad := func(key string, v json.RawMessage, legal, hint string) {
		errs = append(errs, &FieldError{Field: prefix + key, Got: clip(v), Legal: legal, Hint: hint, Example: SignalsExample})
	}

	const (
		legalDims    = "an integer ≥ 1 (how many independent concerns the task spans)"
		legalDomain  = `a list of strings, e.g. ["meta"] or ["django", "meta"]`
		legalNovelty = "a number from 0.0 (routine) to 1.0 (never done before)"
	)
	if v, ok := fields["task_title"]; ok {
		var t string
		if json.Unmarshal(v, &t) != nil || strings.TrimSpace(t) == "" || len([]rune(t)) > MaxTitleLen {
			bad("task_title", v, fmt.Sprintf("a non-empty string of at most %d characters", MaxTitleLen), "")
		} else {
			s.TaskTitle = strings.TrimSpace(t)
		}
	}
	// dimensions, domain and complexity are optional: absent, they keep
	// their defaults (DefaultDimensions, [], DefaultComplexity).
	if v, ok := fields["dimensions"]; ok {
		if n, hint, ok := parseDimensions(v); !ok {
			bad("dimensions", v, legalDims, hint)
		} else {
			s.Dimensions = n
		}
	}
	if v, ok := fields["domain"]; ok {
		if d, hint, ok := parseDomain(v); !ok {
			bad("domain", v, legalDomain, hint)
		} else {
			s.Domain = d
		}
	}
	if v, ok := fields["complexity"]; ok {
		if c, hint, ok := parseEnum(v, Complexities, complexitySynonyms); !ok {
			bad("complexity", v, quoteAll(Complexities)+" (uppercase)", hint)
		} else {
			s.Complexity = c
		}
	}
	for _, e := range []struct {
		key      string
		legal    []string
		synonyms map[string]string
		dst      *string
	}{
		{"scope_size", ScopeSizes, scopeSynonyms, &s.ScopeSize},
		{"action", Actions, actionSynonyms, &s.Action},
		{"urgency", Urgencies, urgencySynonyms, &s.Urgency},
	} {
		v, ok := fields[e.key]
		if !ok {
			continue
		}
		if val, hint, ok := parseEnum(v, e.legal, e.synonyms); !ok {
			bad(e.key, v, quoteAll(e.legal), hint)
		} else {
			*e.dst = val
		}
	}
	if v, ok := fields["novelty"]; ok {
		if f, hint, ok := parseNovelty(v); !ok {
			bad("novelty", v, legalNovelty, hint)
		} else {
			s.Novelty = f
		}
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(signalKeys, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		hint := "Unknown argument"
		if near := nearest(k, signalKeys); near != "" {
			hint = fmt.Sprintf("Unknown argument; did you mean %q?", near)
		}
		errs = append(errs, &FieldError{Field: prefix + k, Got: clip(fields[k]), Legal: "accepted keys: " + strings.Join(signalKeys, ", "), Hint: hint, Example: SignalsExample})
	}
	if err := asError(errs); err != nil {
		return Signals{}, err
	}
	return s, nil
}

// validate checks an already-typed Signals (for example one decoded from an
// event) against the same rules as ParseSignals.
func (s Signals) validate() error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = ParseSignals(data)
	return err
}

func parseDimensions(v json.RawMessage) (int, string, bool) {
	switch jsonKind(v) {
	case "list":
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items)
		n := max(len(items), 1)
		return 0, fmt.Sprintf(`a list is not a count: put topic names in "domain" and give "dimensions": %d`, n), false
	case "string":
		var str string
		_ = json.Unmarshal(v, &str)
		var f float64
		if json.Unmarshal([]byte(str), &f) == nil {
			return 0, fmt.Sprintf("write the number without quotes: %s", strings.TrimSpace(str)), false
		}
		return 0, `a name is not a count: put it in "domain" and give "dimensions": 1`, false
	case "number":
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || f > math.MaxInt32 {
			return 0, "must be a whole number", false
		}
		if f < 1 {
			return 0, "must be at least 1", false
		}
		return int(f), "", true
	}
	return 0, "", false
}

func parseDomain(v json.RawMessage) ([]string, string, bool) {
	switch jsonKind(v) {
	case "string":
		var str string
		_ = json.Unmarshal(v, &str)
		// An array sent as a JSON string is accepted when it parses as the
		// declared type (docs/envelope.md, validation messages).
		if t := strings.TrimSpace(str); strings.HasPrefix(t, "[") {
			if d, _, ok := parseDomain(json.RawMessage(t)); ok {
				return d, "", true
			}
		}
		b, _ := json.Marshal([]string{str})
		return nil, "a single domain still goes in a list: " + string(b), false
	case "list":
		var items []string
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, "every entry must be a string", false
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			it = strings.TrimSpace(it)
			if it == "" {
				return nil, "entries must be non-empty", false
			}
			if !slices.Contains(out, it) {
				out = append(out, it)
			}
		}
		return out, "", true
	}
	return nil, "", false
}

// parseEnum accepts exactly one of legal. A case-insensitive match or a
// known synonym becomes the "did you mean" hint.
func parseEnum(v json.RawMessage, legal []string, synonyms map[string]string) (string, string, bool) {
	var str string
	if jsonKind(v) != "string" || json.Unmarshal(v, &str) != nil {
		return "", "must be a string", false
	}
	if slices.Contains(legal, str) {
		return str, "", true
	}
	for _, l := range legal {
		if strings.EqualFold(l, strings.TrimSpace(str)) {
			return "", fmt.Sprintf("values are case-sensitive: did you mean %q?", l), false
		}
	}
	if s, ok := synonyms[strings.ToLower(strings.TrimSpace(str))]; ok {
		return "", fmt.Sprintf("%q is not a valid value; did you mean %q?", str, s), false
	}
	return "", fmt.Sprintf("%q is not a valid value", str), false
}

func parseNovelty(v json.RawMessage) (float64, string, bool) {
	switch jsonKind(v) {
	case "number":
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return 0, "out of range", false
		}
		return f, "", true
	case "string":
		var str string
		_ = json.Unmarshal(v, &str)
		var f float64
		if json.Unmarshal([]byte(strings.TrimSpace(str)), &f) == nil {
			return 0, "write the number without quotes", false
		}
		if w, ok := noveltyWords[strings.ToLower(strings.TrimSpace(str))]; ok {
			return 0, fmt.Sprintf("a word is not a number: %q ≈ %.1f", str, w), false
		}
		return 0, "a word is not a number, e.g. 0.8 for high novelty", false
	}
	return 0, "", false
}

// jsonKind names the JSON type of v: string, number, list, object, boolean,
// null or invalid.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "invalid"
	}
	switch c := v[0]; {
	case c == '"':
		return "string"
	case c == '[':
		return "list"
	case c == '{':
		return "object"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	}
	return "invalid"
}

// maxGot bounds how much of a wrong value is echoed back.
const maxGot = 120

// clip renders a raw JSON value for FieldError.Got, compacted and bounded.
func clip(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		b.Reset()
		b.Write(v)
	}
	s := b.String()
	if r := []rune(s); len(r) > maxGot {
		s = string(r[:maxGot]) + "…"
	}
	return escapeHidden(s)
}

// escapeHidden writes each rune of s that IsHiddenRune refuses as \uXXXX,
// so an error quoting a refused value cannot itself be reordered or hidden
// by the characters it refuses.
func escapeHidden(s string) string {
	if _, _, bad := HiddenNameRune(s); !bad {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if IsHiddenRune(r) || unicode.Is(unicode.Cf, r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func quoteAll(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// nearest returns the candidate closest to s by edit distance (at most 3, or
// a prefix relation), or "".
func nearest(s string, candidates []string) string { return nearestpkg.Best(s, candidates, 3) }
