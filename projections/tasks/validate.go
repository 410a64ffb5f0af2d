package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Limits of the task arguments.
const (
	MaxDescriptionLen = 20000 // characters
	MaxLabels         = 32
	MaxLabelLen       = 64 // characters
	MaxDependsOn      = 64
	MaxAssigneeLen    = 128 // characters
)

// CreateExample and PatchExample are the corrected examples of create and
// patch errors.
const (
	CreateExample = `{"title": "Fix login redirect", "priority": "high", "labels": ["auth"], "depends_on": ["TASK-001"]}`
	PatchExample  = `{"status": "in_progress", "labels": ["auth", "urgent"]}`
)

// Near misses of status and priority, for the "did you mean" hint.
var (
	statusSynonyms = map[string]string{"open": StatusTodo, "new": StatusTodo, "doing": StatusInProgress, "wip": StatusInProgress,
		"in-progress": StatusInProgress, "closed": StatusDone, "complete": StatusDone, "completed": StatusDone, "canceled": StatusCancelled}
	prioritySynonyms = map[string]string{"urgent": PriorityCritical, "normal": PriorityMedium, "p0": PriorityCritical,
		"p1": PriorityHigh, "p2": PriorityMedium, "p3": PriorityLow}
)

var (
	createKeys = []string{"title", "description", "priority", "status", "labels", "signals", "depends_on", "parent", "touches"}
	patchKeys  = createKeys
)

// ParseCreate decodes and validates the task fields of cos_task_create from a
// JSON object (title, description?, priority?, status?, labels?, signals?,
// depends_on?, parent?, touches? — see ParseTouches). Transport arguments such as request_id are the
// tool's and must not be passed. Every problem is reported at once in an
// *ArgumentError. Defaults: priority medium, status todo. Existence of
// depends_on and parent, and cycles, are the board's to check
// (Board.CheckRelations).
func ParseCreate(raw json.RawMessage) (Created, error) {
	fields, errs, err := objectFields(raw, "arguments", createKeys, CreateExample)
	if err != nil {
		return Created{}, err
	}
	c := Created{Priority: DefaultPriority, Status: DefaultStatus}
	if v, ok := fields["title"]; !ok {
		errs = append(errs, &FieldError{Field: "title", Legal: titleLegal(), Hint: "required", Example: CreateExample})
	} else if t, fe := parseTitle(v, CreateExample); fe != nil {
		errs = append(errs, fe)
	} else {
		c.Title = t
	}
	errs = append(errs, parseCommon(fields, "", CreateExample, &commonDst{
		description: &c.Description, priority: &c.Priority, status: &c.Status, labels: &c.Labels,
		signals: &c.Signals, dependsOn: &c.DependsOn, parent: &c.Parent, touches: &c.Touches,
	})...)
	return c, asError(errs)
}

// ParsePatch decodes and validates the patch of cos_task_update: a JSON
// object with any of the create fields. null for signals clears them; null
// or "" for parent clears it; [] clears labels, depends_on or touches (null
// too for touches). An empty patch
// is an error.
func ParsePatch(raw json.RawMessage) (Patch, error) {
	fields, errs, err := objectFields(raw, "patch", patchKeys, PatchExample)
	if err != nil {
		return Patch{}, err
	}
	if len(fields) == 0 && len(errs) > 0 {
		return Patch{}, asError(errs)
	}
	if len(fields) == 0 {
		return Patch{}, asError([]*FieldError{{Field: "patch", Got: "{}", Legal: "an object with at least one of " + strings.Join(patchKeys, ", "), Example: PatchExample}})
	}
	var p Patch
	if v, ok := fields["title"]; ok {
		if t, fe := parseTitle(v, PatchExample); fe != nil {
			fe.Field = "patch.title"
			errs = append(errs, fe)
		} else {
			p.Title = &t
		}
	}
	var d commonDst
	if _, ok := fields["description"]; ok {
		d.description = new(string)
	}
	if _, ok := fields["priority"]; ok {
		d.priority = new(string)
	}
	if _, ok := fields["status"]; ok {
		d.status = new(string)
	}
	if _, ok := fields["labels"]; ok {
		d.labels = new([]string)
	}
	if v, ok := fields["signals"]; ok {
		if jsonKind(v) == "null" {
			p.ClearSignals = true
			delete(fields, "signals")
		} else {
			d.signals = new(*Signals)
		}
	}
	if _, ok := fields["depends_on"]; ok {
		d.dependsOn = new([]string)
	}
	if v, ok := fields["parent"]; ok {
		empty := ""
		if jsonKind(v) == "null" {
			p.Parent = &empty
			delete(fields, "parent")
		} else {
			d.parent = new(string)
		}
	}
	if v, ok := fields["touches"]; ok {
		if jsonKind(v) == "null" {
			p.Touches = &[]string{}
			delete(fields, "touches")
		} else {
			d.touches = new([]string)
		}
	}
	errs = append(errs, parseCommon(fields, "patch.", PatchExample, &d)...)
	if err := asError(errs); err != nil {
		return Patch{}, err
	}
	p.Description = d.description
	p.Priority = d.priority
	p.Status = d.status
	p.Labels = d.labels
	if d.signals != nil {
		p.Signals = *d.signals
	}
	p.DependsOn = d.dependsOn
	if d.touches != nil {
		p.Touches = d.touches
	}
	if d.parent != nil {
		p.Parent = d.parent
	}
	return p, nil
}

// ValidateAssignee checks a claim's assignee: 1–128 characters, no control
// characters.
func ValidateAssignee(a string) error {
	if a == "" || len([]rune(a)) > MaxAssigneeLen || strings.IndexFunc(a, unicode.IsControl) >= 0 || strings.TrimSpace(a) != a {
		return asError([]*FieldError{{Field: "assignee", Got: clip(mustJSON(a)), Legal: fmt.Sprintf("1–%d characters, no control characters or surrounding spaces", MaxAssigneeLen), Example: `{"task_id": "TASK-001", "assignee": "agent-7"}`}})
	}
	return nil
}

// ValidateTaskID checks that id looks like "TASK-NNN"; field names the
// argument in the error.
func ValidateTaskID(field, id string) error {
	if !ValidID(id) {
		return asError([]*FieldError{{Field: field, Got: clip(mustJSON(id)), Legal: `a task id "TASK-" + at least three digits, e.g. "TASK-001"`, Example: `{"task_id": "TASK-001"}`}})
	}
	return nil
}

// commonDst receives the optional fields shared by create and patch; a nil
// pointer means "not wanted".
type commonDst struct {
	description *string
	priority    *string
	status      *string
	labels      *[]string
	signals     **Signals
	dependsOn   *[]string
	parent      *string
	touches     *[]string
}

func parseCommon(fields map[string]json.RawMessage, prefix, example string, d *commonDst) []*FieldError {
	var errs []*FieldError
	bad := func(key string, v json.RawMessage, legal, hint string) {
		errs = append(errs, &FieldError{Field: prefix + key, Got: clip(v), Legal: legal, Hint: hint, Example: example})
	}
	if v, ok := fields["description"]; ok && d.description != nil {
		var s string
		if json.Unmarshal(v, &s) != nil || len([]rune(s)) > MaxDescriptionLen {
			bad("description", v, fmt.Sprintf("a string of at most %d characters", MaxDescriptionLen), "")
		} else {
			*d.description = s
		}
	}
	if v, ok := fields["priority"]; ok && d.priority != nil {
		if p, hint, ok := parseEnum(v, Priorities, prioritySynonyms); !ok {
			bad("priority", v, quoteAll(Priorities)+" (default \"medium\")", hint)
		} else {
			*d.priority = p
		}
	}
	if v, ok := fields["status"]; ok && d.status != nil {
		if s, hint, ok := parseEnum(v, Statuses, statusSynonyms); !ok {
			bad("status", v, quoteAll(Statuses), hint)
		} else {
			*d.status = s
		}
	}
	if v, ok := fields["labels"]; ok && d.labels != nil {
		if l, hint, ok := parseStringList(v, MaxLabels, func(s string) bool {
			_, _, hidden := HiddenNameRune(s)
			return len([]rune(s)) <= MaxLabelLen && !hidden
		}); !ok {
			bad("labels", v, fmt.Sprintf(`a list of at most %d non-empty strings of at most %d characters without control, bidi or invisible characters, e.g. ["auth", "backend"]`, MaxLabels, MaxLabelLen), hint)
		} else {
			*d.labels = l
		}
	}
	if v, ok := fields["signals"]; ok && d.signals != nil {
		s, err := parseSignals(v, prefix+"signals.")
		if ae, isAE := err.(*ArgumentError); isAE {
			errs = append(errs, ae.Fields...)
		} else {
			*d.signals = &s
		}
	}
	if v, ok := fields["depends_on"]; ok && d.dependsOn != nil {
		if l, hint, ok := parseStringList(v, MaxDependsOn, ValidID); !ok {
			bad("depends_on", v, fmt.Sprintf(`a list of at most %d task ids, e.g. ["TASK-001", "TASK-014"]`, MaxDependsOn), hint)
		} else {
			*d.dependsOn = l
		}
	}
	if v, ok := fields["touches"]; ok && d.touches != nil {
		if l, fe := parseTouches(v, prefix+"touches", example); fe != nil {
			errs = append(errs, fe)
		} else {
			*d.touches = l
		}
	}
	if v, ok := fields["parent"]; ok && d.parent != nil {
		var s string
		if json.Unmarshal(v, &s) != nil || (s != "" && !ValidID(s)) {
			bad("parent", v, `a task id, e.g. "TASK-001"`, "")
		} else {
			*d.parent = s
		}
	}
	return errs
}

// objectFields decodes raw as a JSON object (an error when it is not one)
// and returns one FieldError per unknown key, naming the accepted ones.
func objectFields(raw json.RawMessage, what string, keys []string, example string) (map[string]json.RawMessage, []*FieldError, error) {
	raw = bytes.TrimSpace(raw)
	var fields map[string]json.RawMessage
	if jsonKind(raw) != "object" || json.Unmarshal(raw, &fields) != nil {
		return nil, nil, asError([]*FieldError{{Field: what, Got: clip(raw), Legal: "a JSON object with keys " + strings.Join(keys, ", "), Example: example}})
	}
	var errs []*FieldError
	var unknown []string
	for k := range fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		hint := "Unknown argument"
		if near := nearest(k, keys); near != "" {
			hint = fmt.Sprintf("Unknown argument; did you mean %q?", near)
		}
		errs = append(errs, &FieldError{Field: k, Got: clip(fields[k]), Legal: "accepted keys: " + strings.Join(keys, ", "), Hint: hint, Example: example})
		delete(fields, k)
	}
	return fields, errs, nil
}

func titleLegal() string {
	return fmt.Sprintf("a non-empty string of at most %d characters", MaxTitleLen)
}

func parseTitle(v json.RawMessage, example string) (string, *FieldError) {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", &FieldError{Field: "title", Got: clip(v), Legal: titleLegal(), Hint: "must be a string", Example: example}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", &FieldError{Field: "title", Got: clip(v), Legal: titleLegal(), Hint: "must not be blank", Example: example}
	}
	if n := len([]rune(s)); n > MaxTitleLen {
		return "", &FieldError{Field: "title", Got: clip(v), Legal: titleLegal(), Hint: fmt.Sprintf("%d characters is too long; put the rest in \"description\"", n), Example: example}
	}
	if i, r, bad := HiddenRune(s); bad {
		return "", &FieldError{Field: "title", Got: clip(v), Legal: titleLegal() + ", without control or bidi characters",
			Hint: fmt.Sprintf("character %d is U+%04X, which can make a title read as another; remove it", i+1, r), Example: example}
	}
	return s, nil
}

// HiddenRune returns the first rune of s (its index in runes) that can
// make one title read as another: a C0 or C1 control character (tab and
// newline included), a bidirectional control (U+200E, U+200F, U+061C,
// U+202A–U+202E, U+2066–U+2069), a line or paragraph separator (U+2028,
// U+2029) or an invisible character that is no part of any script's
// writing (U+200B, U+2060–U+2064, U+206A–U+206F, U+FEFF, U+FFF9–U+FFFB).
// The zero-width joiners U+200C and U+200D stay: emoji and several
// scripts need them. bad is false when s has none.
func HiddenRune(s string) (i int, r rune, bad bool) { return firstRune(s, IsHiddenRune) }

// HiddenNameRune is HiddenRune for a name — a label, a touch, a holder's
// name — where nothing invisible has a use: every format character
// (Unicode category Cf, the joiners included) is refused too, so "bob"
// and "bob" followed by a zero-width character cannot be two holders.
func HiddenNameRune(s string) (i int, r rune, bad bool) {
	return firstRune(s, func(r rune) bool { return IsHiddenRune(r) || unicode.Is(unicode.Cf, r) })
}

func firstRune(s string, hidden func(rune) bool) (i int, r rune, bad bool) {
	for _, c := range s {
		if hidden(c) {
			return i, c, true
		}
		i++
	}
	return 0, 0, false
}

// IsHiddenRune reports whether r is a character HiddenRune refuses.
func IsHiddenRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0x200b, r == 0xfeff:
		return true
	case r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f, r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}

// parseStringList accepts a list of strings, or a JSON string holding one
// (docs/envelope.md, validation messages); entries are trimmed and
// de-duplicated in order.
func parseStringList(v json.RawMessage, maxLen int, ok func(string) bool) ([]string, string, bool) {
	if jsonKind(v) == "string" {
		var s string
		_ = json.Unmarshal(v, &s)
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") {
			return parseStringList(json.RawMessage(t), maxLen, ok)
		}
		return nil, "a single value still goes in a list: " + string(mustJSON([]string{s})), false
	}
	var items []string
	if jsonKind(v) != "list" || json.Unmarshal(v, &items) != nil {
		return nil, "must be a list of strings", false
	}
	if len(items) > maxLen {
		return nil, fmt.Sprintf("%d entries is too many", len(items)), false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" || !ok(it) {
			return nil, fmt.Sprintf("entry %q is not legal", it), false
		}
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out, "", true
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}
