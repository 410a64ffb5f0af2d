package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cos-dev/cos/internal/roles"
)

// Default role ids (package roles); AnalyzeTask (projections/tasks) calls
// for these.
const (
	RolePlanner     = roles.Planner
	RoleResearcher  = roles.Researcher
	RoleImplementer = roles.Implementer
	RoleTester      = roles.Tester
	RoleReviewer    = roles.Reviewer
)

// RolesFile is the name of the registry override in the state folder.
const RolesFile = "roles.json"

// Field types of an output class.
const (
	TypeString  = "string"  // a non-empty string
	TypeStrings = "strings" // a list of non-empty strings
	TypeInt     = "int"     // a whole number ≥ 0
	TypeNumber  = "number"  // any finite number
	TypeBool    = "bool"
	TypeObject  = "object"
	TypeAny     = "any"
)

var fieldTypes = []string{TypeString, TypeStrings, TypeInt, TypeNumber, TypeBool, TypeObject, TypeAny}

// FieldSpec is one field of an output class.
type FieldSpec struct {
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
	// Enum, for TypeString, lists the legal values.
	Enum []string `json:"enum,omitempty"`
	// MinItems, for TypeStrings, is the least number of entries.
	MinItems int `json:"min_items,omitempty"`
}

// OutputClass defines what an output must hold: its fields (unknown fields
// are rejected) and a corrected example given in every error.
type OutputClass struct {
	Fields  map[string]FieldSpec `json:"fields"`
	Example json.RawMessage      `json:"example,omitempty"`
}

// Registry maps role ids to output classes (role_id → output_class) and
// holds the classes, including those of the non-role kinds (backtrack,
// discovery, degraded_formula).
type Registry struct {
	Roles   map[string]string      `json:"roles"`
	Classes map[string]OutputClass `json:"output_classes"`
}

// DefaultRegistry returns the built-in registry:
//
//	role         output_class  required fields
//	planner      plan          summary, steps (≥ 1)
//	researcher   findings      question, findings (≥ 1)
//	implementer  change        summary, files (≥ 1)
//	tester       test_report   passed, failed
//	reviewer     review        verdict (approve|request_changes|comment), findings
//	(kind)       backtrack     reason
//	(kind)       discovery     summary
//	(kind)       degraded_formula  formula, reason
//
// Every class also accepts an optional "notes" string.
func DefaultRegistry() *Registry {
	str := FieldSpec{Type: TypeString}
	reqStr := FieldSpec{Type: TypeString, Required: true}
	strs := FieldSpec{Type: TypeStrings}
	return &Registry{
		Roles: map[string]string{
			RolePlanner: "plan", RoleResearcher: "findings", RoleImplementer: "change",
			RoleTester: "test_report", RoleReviewer: "review",
		},
		Classes: map[string]OutputClass{
			"plan": {Fields: map[string]FieldSpec{"summary": reqStr, "steps": {Type: TypeStrings, Required: true, MinItems: 1},
				"risks": strs, "assumptions": strs, "notes": str},
				Example: json.RawMessage(`{"summary":"Split the parser","steps":["extract lexer","add tests"]}`)},
			"findings": {Fields: map[string]FieldSpec{"question": reqStr, "findings": {Type: TypeStrings, Required: true, MinItems: 1},
				"sources": strs, "notes": str},
				Example: json.RawMessage(`{"question":"Why does login loop?","findings":["cookie path is /api"]}`)},
			"change": {Fields: map[string]FieldSpec{"summary": reqStr, "files": {Type: TypeStrings, Required: true, MinItems: 1},
				"tests": strs, "notes": str},
				Example: json.RawMessage(`{"summary":"Fix cookie path","files":["auth/session.go"]}`)},
			"test_report": {Fields: map[string]FieldSpec{"passed": {Type: TypeInt, Required: true}, "failed": {Type: TypeInt, Required: true},
				"command": str, "failures": strs, "notes": str},
				Example: json.RawMessage(`{"passed":41,"failed":0,"command":"go test ./..."}`)},
			"review": {Fields: map[string]FieldSpec{"verdict": {Type: TypeString, Required: true, Enum: []string{"approve", "request_changes", "comment"}},
				"findings": {Type: TypeStrings, Required: true}, "summary": str, "notes": str},
				Example: json.RawMessage(`{"verdict":"approve","findings":[]}`)},
			KindBacktrack: {Fields: map[string]FieldSpec{"reason": reqStr, "from": str, "to": str, "notes": str},
				Example: json.RawMessage(`{"reason":"the cache was not the cause","from":"cache theory","to":"cookie path"}`)},
			KindDiscovery: {Fields: map[string]FieldSpec{"summary": reqStr, "uids": strs, "notes": str},
				Example: json.RawMessage(`{"summary":"sessions are stored twice","uids":["code:file:auth/session.go"]}`)},
			KindDegradedFormula: {Fields: map[string]FieldSpec{"formula": reqStr, "reason": reqStr, "fallback": str, "notes": str},
				Example: json.RawMessage(`{"formula":"exhaustive-review","reason":"no tester available","fallback":"single review"}`)},
		},
	}
}

// LoadRegistry returns DefaultRegistry overridden by <stateDir>/roles.json
// when that file exists. The file has the Registry's shape; its roles and
// output_classes are merged over the defaults (same key replaces):
//
//	{"output_classes": {"audit_report": {"fields": {"summary": {"type": "string", "required": true}}}},
//	 "roles": {"security": "audit_report", "planner": "plan"}}
//
// A missing file is not an error; a malformed one, an unknown field type or
// a role naming a class that does not exist is ErrRegistry.
func LoadRegistry(stateDir string) (*Registry, error) {
	r := DefaultRegistry()
	path := filepath.Join(stateDir, RolesFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %v", ErrRegistry, path, err)
	}
	var over Registry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&over); err != nil {
		return nil, fmt.Errorf("%w: decode %s: %v", ErrRegistry, path, err)
	}
	maps.Copy(r.Roles, over.Roles)
	maps.Copy(r.Classes, over.Classes)
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Validate checks that every role names an existing class, that every kind
// has its class, and that every field has a known type.
func (r *Registry) Validate() error {
	for _, role := range slices.Sorted(maps.Keys(r.Roles)) {
		if role == "" || strings.ContainsAny(role, " \t\n") {
			return fmt.Errorf("%w: role id %q is not legal", ErrRegistry, role)
		}
		if _, ok := r.Classes[r.Roles[role]]; !ok {
			return fmt.Errorf("%w: role %q names output_class %q, which is not defined (defined: %s)", ErrRegistry, role, r.Roles[role], strings.Join(slices.Sorted(maps.Keys(r.Classes)), ", "))
		}
	}
	for _, k := range []string{KindBacktrack, KindDiscovery, KindDegradedFormula} {
		if _, ok := r.Classes[k]; !ok {
			return fmt.Errorf("%w: output_class %q is missing", ErrRegistry, k)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Classes)) {
		for _, f := range slices.Sorted(maps.Keys(r.Classes[name].Fields)) {
			if t := r.Classes[name].Fields[f].Type; !slices.Contains(fieldTypes, t) {
				return fmt.Errorf("%w: output_class %q field %q has type %q; legal: %s", ErrRegistry, name, f, t, strings.Join(fieldTypes, ", "))
			}
		}
	}
	return nil
}

// RoleIDs returns the registered role ids, sorted.
func (r *Registry) RoleIDs() []string { return slices.Sorted(maps.Keys(r.Roles)) }

// ClassOf returns the output class name of a record: the role's class for
// KindOutput, the kind itself otherwise.
func (r *Registry) ClassOf(kind, role string) (string, error) {
	switch kind {
	case KindOutput:
		c, ok := r.Roles[role]
		if !ok {
			return "", fmt.Errorf("%w: %q; registered roles: %s", ErrUnknownRole, role, strings.Join(r.RoleIDs(), ", "))
		}
		return c, nil
	case KindBacktrack, KindDiscovery, KindDegradedFormula:
		return kind, nil
	}
	return "", fmt.Errorf("%w: %q; legal: %s", ErrUnknownKind, kind, strings.Join(Kinds, ", "))
}

// check validates output (a JSON object) against the class and returns its
// canonical encoding.
func (c OutputClass) check(kind, role, class string, output json.RawMessage) (json.RawMessage, error) {
	example := string(c.Example)
	if example == "" {
		example = c.generatedExample()
	}
	fail := func(ps ...Problem) error {
		return &OutputError{Kind: kind, Role: role, Class: class, Problems: ps, Example: example}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(output, &fields); err != nil || fields == nil {
		return nil, fail(Problem{Field: "output", Got: clip(output), Legal: "a JSON object with fields " + c.describe()})
	}
	var ps []Problem
	for _, name := range slices.Sorted(maps.Keys(c.Fields)) {
		spec := c.Fields[name]
		v, ok := fields[name]
		if !ok {
			if spec.Required {
				ps = append(ps, Problem{Field: "output." + name, Legal: spec.legal(), Hint: "required"})
			}
			continue
		}
		if hint, ok := spec.accepts(v); !ok {
			ps = append(ps, Problem{Field: "output." + name, Got: clip(v), Legal: spec.legal(), Hint: hint})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if _, ok := c.Fields[name]; !ok {
			ps = append(ps, Problem{Field: "output." + name, Got: clip(fields[name]), Legal: "accepted fields: " + strings.Join(slices.Sorted(maps.Keys(c.Fields)), ", "), Hint: "unknown field"})
		}
	}
	if len(ps) > 0 {
		return nil, fail(ps...)
	}
	return canonicalJSON(output)
}

func (c OutputClass) describe() string {
	names := slices.Sorted(maps.Keys(c.Fields))
	parts := make([]string, len(names))
	for i, n := range names {
		req := ""
		if c.Fields[n].Required {
			req = ", required"
		}
		parts[i] = fmt.Sprintf("%s (%s%s)", n, c.Fields[n].Type, req)
	}
	return strings.Join(parts, ", ")
}

func (c OutputClass) generatedExample() string {
	ex := map[string]any{}
	for name, spec := range c.Fields {
		if !spec.Required {
			continue
		}
		switch spec.Type {
		case TypeString:
			ex[name] = "…"
			if len(spec.Enum) > 0 {
				ex[name] = spec.Enum[0]
			}
		case TypeStrings:
			ex[name] = []string{"…"}
		case TypeInt, TypeNumber:
			ex[name] = 1
		case TypeBool:
			ex[name] = true
		default:
			ex[name] = map[string]any{}
		}
	}
	b, _ := json.Marshal(ex)
	return string(b)
}

func (s FieldSpec) legal() string {
	switch s.Type {
	case TypeString:
		if len(s.Enum) > 0 {
			return "one of " + strings.Join(s.Enum, ", ")
		}
		return "a non-empty string"
	case TypeStrings:
		if s.MinItems > 0 {
			return fmt.Sprintf("a list of at least %d non-empty strings", s.MinItems)
		}
		return "a list of non-empty strings"
	case TypeInt:
		return "a whole number ≥ 0"
	case TypeNumber:
		return "a number"
	case TypeBool:
		return "true or false"
	case TypeObject:
		return "a JSON object"
	}
	return "any JSON value"
}

// accepts reports whether v fits the spec, with a hint when it does not.
func (s FieldSpec) accepts(v json.RawMessage) (string, bool) {
	switch s.Type {
	case TypeString:
		var str string
		if json.Unmarshal(v, &str) != nil {
			return "must be a string", false
		}
		if strings.TrimSpace(str) == "" {
			return "must not be blank", false
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return "not one of the legal values", false
		}
	case TypeStrings:
		var list []string
		if json.Unmarshal(v, &list) != nil || list == nil {
			var one string
			if json.Unmarshal(v, &one) == nil {
				b, _ := json.Marshal([]string{one})
				return "a single value still goes in a list: " + string(b), false
			}
			return "must be a list of strings", false
		}
		if len(list) < s.MinItems {
			return fmt.Sprintf("%d entries, need at least %d", len(list), s.MinItems), false
		}
		for _, it := range list {
			if strings.TrimSpace(it) == "" {
				return "entries must not be blank", false
			}
		}
	case TypeInt:
		var f float64
		if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < 0 {
			return "must be a whole number ≥ 0", false
		}
	case TypeNumber:
		var f float64
		if json.Unmarshal(v, &f) != nil {
			return "must be a number", false
		}
	case TypeBool:
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return "must be true or false", false
		}
	case TypeObject:
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil || m == nil {
			return "must be a JSON object", false
		}
	}
	return "", true
}

// canonicalJSON re-encodes v with sorted object keys and numbers kept as
// written.
func canonicalJSON(v json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return json.Marshal(x)
}

const maxGot = 120

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
	return s
}
