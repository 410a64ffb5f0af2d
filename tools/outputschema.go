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
// an array may name its element type ("[]string", "[]object",
// "[]integer"), and a trailing "?" allows null ("string?": a string or
// null). Nested objects and arrays are described by their type only (an
// array's element type stays in the Go spec): the schema stays small
// enough for an agent to read in every tools/list.
type Fields map[string]string

// fieldTypes are the types a Fields value may name, before "[]" and "?".
var fieldTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "object": true, "array": true}

// check reports the first malformed type in f.
func (f Fields) check() error {
	for k, v := range f {
		base := strings.TrimPrefix(strings.TrimSuffix(v, "?"), "[]")
		if k == "" || k == "meta" || !fieldTypes[base] {
			return fmt.Errorf("data field %q: type %q", k, v)
		}
	}
	return nil
}

// fieldSchema is the JSON Schema of one Fields type: its JSON type, with
// "null" beside it when it is nullable. An array's element type is checked
// (Fields.check) but not sent: in every tools/list it would cost more than
// the few string lists it describes tell a caller.
func fieldSchema(v string) map[string]any {
	nullable := strings.HasSuffix(v, "?")
	v = strings.TrimSuffix(v, "?")
	s := map[string]any{}
	typ := v
	if strings.HasPrefix(v, "[]") {
		typ = "array" // its elements are not described, as a nested object's fields are not
	}
	if nullable {
		s["type"] = []string{typ, "null"}
	} else {
		s["type"] = typ
	}
	return s
}

// fieldsOf derives Fields from a Go answer type (a struct, or a pointer
// to one): each exported field under its json name, typed by its Go kind;
// embedded structs are flattened, `json:"-"` fields left out, and a slice,
// map or pointer field is nullable unless its tag says omitempty.
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

// goJSONType is the Fields type encoding/json gives a value of type t.
func goJSONType(t reflect.Type) string {
	t = indirect(t)
	switch {
	case t == timeType:
		return "string"
	case t == rawJSONType:
		return "object"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // []byte encodes as base64
		}
		switch e := goJSONType(t.Elem()); e {
		case "string", "integer", "number", "boolean", "object":
			return "[]" + e
		}
		return "array"
	}
	return "object"
}

// OutputSchema returns the JSON Schema of the tool's structured content:
// the envelope, an object whose data holds the tool's Data fields (and
// meta, which every answer has). It leaves out what a client gains nothing
// from in every tool of tools/list, all of which the server's instructions
// say once: ok (a boolean in every answer), a failure's error object (code,
// category, retryable, message, details), "required", and data's own
// "type": its properties say it is an object, and an answer without data
// is a failure. The schema does not forbid other properties, so a
// failure's {ok: false, error} still validates against it.
//
// A paged tool's paging fields (PageFields) are said once too: the
// instructions name them for every paged answer.
func (t *Tool) OutputSchema() json.RawMessage {
	props := map[string]any{}
	_, paged := t.Data["next_cursor"]
	for k, v := range t.Data {
		if paged && slices.Contains(PageFields, k) {
			continue
		}
		props[k] = fieldSchema(v)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"data": map[string]any{"properties": props},
	}})
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
