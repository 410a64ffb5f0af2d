package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Fields describes a tool's success data: each key of data (meta aside)
// with its JSON type. A type is one of
//
//	string  integer  number  boolean  object  array
//
// or the name of a Go type registered for schemas (SchemaType: "node",
// "reference", "task", …; fieldsOf registers the nested types it meets),
// whose schema is reflected from its Go struct. "[]T" is a list of T
// ("[]string", "[]reference"), and a trailing "?" allows null ("string?":
// a string or null). A bare "object" or "array" says nothing of its
// contents: every tool's data should name typed ones.
type Fields map[string]string

// fieldTypes are the JSON types a Fields value may name, before "[]" and "?".
var fieldTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "object": true, "array": true}

// check reports the first malformed type in f.
func (f Fields) check() error {
	for k, v := range f {
		base := strings.TrimPrefix(strings.TrimSuffix(v, "?"), "[]")
		if k == "" || k == "meta" {
			return fmt.Errorf("data field %q: type %q", k, v)
		}
		if _, named := namedSchema(base); !fieldTypes[base] && !named {
			return fmt.Errorf("data field %q: type %q", k, v)
		}
	}
	return nil
}

// FieldSchema is the JSON Schema of one Fields type: a JSON type, or a
// registered Go type's schema; a list's items typed; "null" beside the
// type when it is nullable.
func FieldSchema(v string) map[string]any {
	nullable := strings.HasSuffix(v, "?")
	v = strings.TrimSuffix(v, "?")
	var s map[string]any
	if elem, ok := strings.CutPrefix(v, "[]"); ok {
		s = map[string]any{"type": "array", "items": FieldSchema(elem)}
	} else if named, ok := namedSchema(v); ok {
		s = named
	} else {
		s = map[string]any{"type": v}
	}
	if !nullable {
		return s
	}
	c := make(map[string]any, len(s))
	for k, x := range s {
		c[k] = x
	}
	if typ, ok := s["type"].(string); ok {
		c["type"] = []string{typ, "null"}
	}
	return c
}

// FieldSchemaRefs is FieldSchema with each registered Go type v names
// written as ref(name) — a reference into a document's shared schemas —
// instead of its schema (NamedSchema gives that); a nullable one as
// anyOf the reference and null.
func FieldSchemaRefs(v string, ref func(name string) map[string]any) map[string]any {
	nullable := strings.HasSuffix(v, "?")
	v = strings.TrimSuffix(v, "?")
	var s map[string]any
	if elem, ok := strings.CutPrefix(v, "[]"); ok {
		s = map[string]any{"type": "array", "items": FieldSchemaRefs(elem, ref)}
	} else if _, ok := namedSchema(v); ok {
		s = ref(v)
		if nullable {
			return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
		}
		return s
	} else {
		s = map[string]any{"type": v}
	}
	if nullable {
		s["type"] = []string{s["type"].(string), "null"}
	}
	return s
}

// NamedSchema returns the JSON Schema of the Go type registered as name
// (a Fields type such as "tasks.Task"), and whether there is one. The
// schema is shared: read it, do not change it.
func NamedSchema(name string) (map[string]any, bool) { return namedSchema(name) }

// fieldsOf derives Fields from a Go answer type (a struct, or a pointer
// to one): each exported field under its json name, typed by its Go kind;
// embedded structs are flattened, `json:"-"` fields left out, and a slice,
// map or pointer field is nullable unless its tag says omitempty. A field
// of a struct or map type names that type, registered for its schema.
func fieldsOf(v any) Fields {
	f := Fields{}
	addFields(f, reflect.TypeOf(v))
	return f
}

func addFields(f Fields, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && indirect(sf.Type).Kind() == reflect.Struct {
			addFields(f, sf.Type)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		typ := goJSONType(sf.Type)
		switch sf.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer:
			if !strings.Contains(opts, "omitempty") && typ != "string" {
				typ += "?"
			}
		}
		f[name] = typ
	}
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	rawJSONType = reflect.TypeFor[json.RawMessage]()
)

// goJSONType is the Fields type encoding/json gives a value of type t: a
// JSON type, or for a struct or map the name it is registered under.
func goJSONType(t reflect.Type) string {
	t = indirect(t)
	if s := typeSchema(t, map[reflect.Type]bool{}); s["properties"] == nil && s["additionalProperties"] == nil && s["items"] == nil {
		if typ, ok := s["type"].(string); ok {
			return typ
		}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "[]" + goJSONType(t.Elem())
	}
	registerType(t.String(), t)
	return t.String()
}

// OutputSchema returns the JSON Schema of the tool's structured content:
// the envelope {ok, data, error}, data holding the tool's Data fields and
// meta (Meta), error a failure's (Error). Nothing is required and no
// other property is forbidden, so a failure's {ok: false, error} and a
// success's {ok: true, data} both validate; output schemas carry no
// descriptions (the instructions say the envelope once), and an object
// type met more than once is said once, in $defs (hoistRepeats).
//
// A paged tool's paging fields (PageFields) are said once too: the
// instructions name them for every paged answer.
func (t *Tool) OutputSchema() json.RawMessage {
	props := map[string]any{"meta": metaSchema}
	_, paged := t.Data["next_cursor"]
	for k, v := range t.Data {
		if paged && slices.Contains(PageFields, k) {
			continue
		}
		props[k] = FieldSchema(v)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"ok":    map[string]any{"type": "boolean"},
		"data":  map[string]any{"type": "object", "properties": props},
		"error": errorSchema,
	}})
	// A copy: the registered types' schemas are shared, hoisting edits.
	var root map[string]any
	_ = json.Unmarshal(b, &root)
	hoistRepeats(root)
	b, _ = json.Marshal(root)
	return b
}

// PageFields are the fields every paged answer (one with next_cursor)
// carries and its outputSchema leaves out: the server's instructions say
// them once.
var PageFields = []string{"next_cursor", "count", "listed", "limit", "walk_log_seq"}

// jsonTypes is the schema type of a TJSON argument: the types it names,
// or every JSON type when it names none.
func jsonTypes(ts []string) any {
	switch len(ts) {
	case 0:
		return []string{"object", "array", "string", "number", "boolean"}
	case 1:
		return ts[0]
	}
	return ts
}

// metaSchema is data.meta's schema: the keys an agent acts on in answers
// of every kind (envelope.Meta), typed. The others the instructions name
// (index, at_seq, resolved_match, truncated_*, …) are allowed, not
// listed: every tool of tools/list would repeat them.
var metaSchema = map[string]any{"type": "object", "properties": map[string]any{
	"log_seq":              map[string]any{"type": "integer"},
	"layer":                map[string]any{"type": "string"},
	"truncated":            map[string]any{"type": "boolean"},
	"completeness":         map[string]any{"type": "string"},
	"completeness_reasons": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}},
	"warnings":             map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
}}

// errorSchema is a failure's error object (envelope.Error).
var errorSchema = map[string]any{"type": "object", "required": []string{"code", "message"}, "properties": map[string]any{
	"code":      map[string]any{"type": "string"},
	"category":  map[string]any{"type": "string"},
	"retryable": map[string]any{"type": "boolean"},
	"message":   map[string]any{"type": "string"},
	"details":   map[string]any{"type": "object", "additionalProperties": true},
}}
