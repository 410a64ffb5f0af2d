package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
)

// maxArgBytes bounds the raw argument object of one call.
const maxArgBytes = 8 << 20

// maxArgDepth bounds how deeply the arguments nest: the argument object
// is level 1, each object or list inside it one more. Real arguments
// (graph upserts with metadata, TaskSignals, evidence outputs) stay far
// below it; deeper is refused before the arguments are decoded.
const maxArgDepth = 128

// Args are a call's validated arguments. Getters return the zero value for
// an argument that was not sent; Has tells them apart.
type Args struct {
	vals map[string]any
}

// Has reports whether the argument was sent (and was not JSON null).
func (a *Args) Has(name string) bool { _, ok := a.vals[name]; return ok }

// Str returns a TString argument.
func (a *Args) Str(name string) string { s, _ := a.vals[name].(string); return s }

// StrOr returns a TString argument or def when absent.
func (a *Args) StrOr(name, def string) string {
	if !a.Has(name) {
		return def
	}
	return a.Str(name)
}

// Int returns a TInt argument or def when absent.
func (a *Args) Int(name string, def int) int {
	if v, ok := a.vals[name].(int); ok {
		return v
	}
	return def
}

// Float returns a TNumber argument or def when absent.
func (a *Args) Float(name string, def float64) float64 {
	if v, ok := a.vals[name].(float64); ok {
		return v
	}
	return def
}

// Bool returns a TBool argument or def when absent.
func (a *Args) Bool(name string, def bool) bool {
	if v, ok := a.vals[name].(bool); ok {
		return v
	}
	return def
}

// maxListItemLen bounds each string of a TStringList argument, in
// characters: a path, a name or a choice is never longer, and an error
// must not echo a megabyte back.
const maxListItemLen = 4096

// Strings returns a TStringList argument (nil when absent).
func (a *Args) Strings(name string) []string { s, _ := a.vals[name].([]string); return s }

// Raw returns a TObject, TObjectList or TJSON argument as raw JSON (nil when
// absent). A list sent as a JSON string arrives here already decoded.
func (a *Args) Raw(name string) json.RawMessage {
	switch v := a.vals[name].(type) {
	case json.RawMessage:
		return v
	case objectList:
		return v.raw
	}
	return nil
}

// Objects returns the elements of a TObjectList argument, each an object's
// raw JSON (nil when absent): the list as parsing split it, not decoded
// again.
func (a *Args) Objects(name string) []json.RawMessage {
	l, _ := a.vals[name].(objectList)
	return l.items
}

// objectList is a parsed TObjectList argument: the list's JSON text and its
// elements.
type objectList struct {
	raw   json.RawMessage
	items []json.RawMessage
}

// argError builds the one E_ARGUMENT message of a failed argument: the
// field, what arrived, what is legal, and a corrected example
// (docs/envelope.md, validation messages).
func argError(t *Tool, field, got, expected string) *envelope.Error {
	msg := fmt.Sprintf("%s: got %s, expected %s", field, got, expected)
	d := map[string]any{"field": field, "got": got, "expected": expected, "accepted_arguments": t.paramNames()}
	if t.Example != "" {
		msg += "; example: " + t.Example
		d["example"] = json.RawMessage(t.Example)
	}
	return envelope.Errorf(envelope.CodeArgument, "%s", msg).WithDetails(d)
}

// describe renders a received JSON value for an error message: its type and
// a short excerpt.
func describe(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	kind := "a number"
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		kind = "a string"
	case raw[0] == '[':
		kind = "a list"
	case raw[0] == '{':
		kind = "an object"
	case raw[0] == 't' || raw[0] == 'f':
		kind = "a boolean"
	case raw[0] == 'n':
		return "null"
	}
	s := string(raw)
	if len(s) > 60 {
		n := 60
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return kind + " " + s
}

// parseArgs validates raw against t's parameters: an object, no unknown
// keys, required keys present, each value of its declared type and range.
func parseArgs(t *Tool, raw json.RawMessage) (*Args, *envelope.Error) {
	a := &Args{vals: map[string]any{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if len(raw) > maxArgBytes {
		return nil, argError(t, "arguments", fmt.Sprintf("%d bytes", len(raw)), fmt.Sprintf("at most %d bytes", maxArgBytes))
	}
	if !utf8.Valid(raw) {
		return nil, argError(t, "arguments", "bytes that are not valid UTF-8", "a JSON object in UTF-8")
	}
	if depth, at := nestingDepth(raw, maxArgDepth); depth > maxArgDepth {
		return nil, argError(t, "arguments", fmt.Sprintf("JSON that nests deeper than %d levels (at byte offset %d)", maxArgDepth, at),
			fmt.Sprintf("a JSON object of named arguments nested at most %d levels deep", maxArgDepth))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// The parser checks the whole text before decoding, so broken
			// JSON is reported as such, whatever its first byte.
			return nil, argError(t, "arguments", fmt.Sprintf("text that is not valid JSON (%v, at byte offset %d): %s", syn, syn.Offset, excerpt(raw)),
				"a JSON object of named arguments")
		}
		return nil, argError(t, "arguments", describe(raw), "a JSON object of named arguments")
	}
	if k, dup := DuplicateKey(raw); dup {
		// Which of the two a decoder keeps is its choice (encoding/json
		// keeps the last, others the first): refuse rather than guess.
		if strings.ContainsAny(k, ".[") {
			return nil, argError(t, shortKey(k), "the key twice in one object", "each key at most once")
		}
		return nil, argError(t, shortKey(k), "the argument twice", "each argument at most once")
	}
	var unknown []string
	for k := range obj {
		if _, ok := t.param(k); !ok {
			unknown = append(unknown, shortKey(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		accepted := strings.Join(t.paramNames(), ", ")
		if accepted == "" {
			accepted = "none"
		}
		msg := fmt.Sprintf("Unknown argument: %s. %s accepts: %s", strings.Join(unknown, ", "), t.Name, accepted)
		d := map[string]any{"unknown": unknown, "accepted_arguments": t.paramNames()}
		if t.Example != "" {
			msg += "; example: " + t.Example
			d["example"] = json.RawMessage(t.Example)
		}
		return nil, envelope.Errorf(envelope.CodeArgument, "%s", msg).WithDetails(d)
	}
	for _, p := range t.Params {
		v, ok := obj[p.Name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			if p.Required {
				return nil, argError(t, p.Name, "nothing", p.Type.String()+" (required)")
			}
			continue
		}
		val, err := parseValue(t, p, v)
		if err != nil {
			return nil, err
		}
		a.vals[p.Name] = val
	}
	return a, nil
}

// nestingDepth returns how deeply the JSON text raw nests objects and
// lists (0 for a scalar), counting no further than limit+1, and the byte
// offset where it first went past limit. Brackets inside strings do not
// count; raw need not be valid JSON.
func nestingDepth(raw []byte, limit int) (depth, at int) {
	var cur int
	inString, escaped := false, false
	for i, b := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			cur++
			if cur > depth {
				depth = cur
			}
			if depth > limit {
				return depth, i
			}
		case b == '}' || b == ']':
			cur--
		}
	}
	return depth, 0
}

// excerpt is raw's first 60 bytes (whole runes), for an error message.
func excerpt(raw []byte) string {
	s := string(raw)
	if len(s) <= 60 {
		return s
	}
	n := 60
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// blank reports whether s holds nothing but whitespace.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// blankText describes an empty or whitespace-only string for an error
// message.
func blankText(s string) string {
	if s == "" {
		return "an empty string"
	}
	return fmt.Sprintf("a string of only whitespace, %s (an empty string once trimmed)", strconv.Quote(clip(s, 20)))
}

// nonEmptyText is what a NonEmpty argument expects, with its description.
func nonEmptyText(p Param) string {
	what := "a non-empty string"
	if p.Type == TStringList {
		what = "a list of non-empty strings"
	}
	if p.Description != "" {
		what += " (" + p.Description + ")"
	}
	return what
}

func rangeText(p Param) string {
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("in [%s, %s]", num(*p.Min), num(*p.Max))
	case p.Min != nil:
		return "≥ " + num(*p.Min)
	case p.Max != nil:
		return "≤ " + num(*p.Max)
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func parseValue(t *Tool, p Param, v json.RawMessage) (any, *envelope.Error) {
	expected := p.Type.String()
	if r := rangeText(p); r != "" {
		expected += " " + r
	}
	if len(p.Enum) > 0 {
		expected += " (one of " + strings.Join(p.Enum, ", ") + ")"
	}
	bad := func() *envelope.Error { return argError(t, p.Name, describe(v), expected) }
	switch p.Type {
	case TString:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, bad()
		}
		if p.NonEmpty && blank(s) {
			return nil, argError(t, p.Name, blankText(s), nonEmptyText(p))
		}
		if p.MaxLen > 0 && utf8.RuneCountInString(s) > p.MaxLen {
			return nil, argError(t, p.Name, fmt.Sprintf("a string of %d characters", utf8.RuneCountInString(s)), fmt.Sprintf("at most %d characters", p.MaxLen))
		}
		if len(p.Enum) > 0 && !contains(p.Enum, s) {
			// The type was right: name only the value and the choices.
			return nil, argError(t, p.Name, fmt.Sprintf("%q", clip(s, 60)), "one of "+strings.Join(p.Enum, ", "))
		}
		return s, nil
	case TInt, TNumber:
		var f float64
		if json.Unmarshal(v, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad()
		}
		if p.Type == TInt && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return nil, bad()
		}
		if (p.Min != nil && f < *p.Min) || (p.Max != nil && f > *p.Max) {
			return nil, bad()
		}
		if p.Type == TInt {
			return int(f), nil
		}
		return f, nil
	case TBool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, bad()
		}
		return b, nil
	case TStringList:
		list, ok := decodeList[string](v)
		if !ok && p.OrOne {
			var one string
			if ok = json.Unmarshal(v, &one) == nil; ok {
				list = []string{one}
			}
		}
		if !ok {
			return nil, bad()
		}
		if p.MaxLen > 0 && len(list) > p.MaxLen {
			return nil, argError(t, p.Name, fmt.Sprintf("a list of %d strings", len(list)), fmt.Sprintf("at most %d strings", p.MaxLen))
		}
		for i, s := range list {
			if n := utf8.RuneCountInString(s); n > maxListItemLen {
				return nil, argError(t, p.Name, fmt.Sprintf("a string of %d characters in the list", n), fmt.Sprintf("strings of at most %d characters", maxListItemLen))
			}
			if p.NonEmpty && blank(s) {
				return nil, argError(t, p.Name, fmt.Sprintf("a list holding %s at [%d]", blankText(s), i), nonEmptyText(p))
			}
		}
		seen := make(map[string]bool, len(list))
		for _, s := range list {
			if len(p.Enum) > 0 && !contains(p.Enum, s) {
				return nil, argError(t, p.Name, fmt.Sprintf("a list holding %q", s), expected)
			}
			if len(p.Enum) > 0 && seen[s] {
				// A choice named twice means nothing more; a list of
				// 200,000 repeats would only crowd the answer out.
				return nil, argError(t, p.Name, fmt.Sprintf("a list holding %q more than once", s), "each value at most once")
			}
			seen[s] = true
		}
		return list, nil
	case TObject:
		if b := bytes.TrimSpace(v); len(b) > 0 && b[0] == '"' {
			var s string // an object sent as a JSON string
			if json.Unmarshal(b, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") && json.Valid([]byte(s)) {
				return json.RawMessage(s), nil
			}
		}
		if b := bytes.TrimSpace(v); len(b) == 0 || b[0] != '{' {
			return nil, bad()
		}
		return v, nil
	case TObjectList:
		list, text, ok := decodeListText[json.RawMessage](v)
		if !ok {
			return nil, bad()
		}
		for _, e := range list {
			if b := bytes.TrimSpace(e); len(b) == 0 || b[0] != '{' {
				return nil, argError(t, p.Name, "a list holding "+describe(e), expected)
			}
		}
		if p.MaxLen > 0 && len(list) > p.MaxLen {
			return nil, argError(t, p.Name, fmt.Sprintf("a list of %d objects", len(list)), fmt.Sprintf("at most %d objects", p.MaxLen))
		}
		// The elements are kept as split: re-encoding them would only
		// scan every byte again, and the handler decodes each one anyway.
		return objectList{raw: text, items: list}, nil
	}
	return v, nil
}

// decodeList decodes a JSON array, or a JSON string holding one.
func decodeList[T any](v json.RawMessage) ([]T, bool) {
	list, _, ok := decodeListText[T](v)
	return list, ok
}

// decodeListText is decodeList that also returns the array's JSON text (v
// itself, or the text the string held).
func decodeListText[T any](v json.RawMessage) ([]T, json.RawMessage, bool) {
	var list []T
	if err := json.Unmarshal(v, &list); err == nil {
		if list == nil {
			list = []T{}
		}
		return list, v, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil || !strings.HasPrefix(strings.TrimSpace(s), "[") {
		return nil, nil, false
	}
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		return nil, nil, false
	}
	if list == nil {
		list = []T{}
	}
	return list, json.RawMessage(s), true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxKeyShown bounds how much of an unknown argument name an error repeats.
const maxKeyShown = 64

// shortKey is k, or its first maxKeyShown bytes (whole runes) and its length
// when longer: an error never echoes a huge key back.
func shortKey(k string) string {
	if len(k) <= maxKeyShown {
		return k
	}
	cut := maxKeyShown
	for cut > 0 && !utf8.RuneStart(k[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", k[:cut], len(k))
}

// DuplicateKey returns the first key that raw, a valid JSON object, holds
// twice within one object at any depth, as a path ("title",
// "patch.status", "nodes[0].uid"), compared after unescaping (so "a" and
// "\u0061" are the same key); false for anything else.
func DuplicateKey(raw json.RawMessage) (string, bool) {
	type frame struct {
		obj     bool
		wantKey bool
		seen    map[string]bool
		path    string // of this value
		key     string // the value being read: its key, or
		index   int    // its index in a list
	}
	child := func(f *frame) string {
		switch {
		case f == nil:
			return ""
		case f.obj && f.path == "":
			return f.key
		case f.obj:
			return f.path + "." + f.key
		default:
			return fmt.Sprintf("%s[%d]", f.path, f.index)
		}
	}
	// done marks the value just read in f as complete.
	done := func(f *frame) {
		if f == nil {
			return
		}
		if f.obj {
			f.wantKey = true
		} else {
			f.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []*frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		f := top()
		if f != nil && f.obj && f.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				done(top())
				if len(stack) == 0 {
					return "", false
				}
				continue
			}
			k, _ := tok.(string)
			f.key, f.wantKey = k, false
			if f.seen[k] {
				return child(f), true
			}
			f.seen[k] = true
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, wantKey: true, seen: map[string]bool{}, path: child(f)})
		case json.Delim('['):
			stack = append(stack, &frame{path: child(f)})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			done(top())
			if len(stack) == 0 {
				return "", false
			}
		default:
			if f == nil {
				return "", false // not an object
			}
			done(f)
		}
	}
}
