package tools

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// schemaTypes are the Go types a Fields value may name besides the JSON
// types ("node", "[]reference", "task?"): each one's schema is reflected
// once from its Go struct (typeSchema). fieldsOf registers the struct
// types it meets under their Go name ("tasks.Task").
var schemaTypes = struct {
	sync.Mutex
	byName  map[string]reflect.Type
	schemas map[string]map[string]any
}{byName: map[string]reflect.Type{}, schemas: map[string]map[string]any{}}

// SchemaType registers v's type (a struct, or a pointer to one) under
// name for Fields values and returns name.
func SchemaType(name string, v any) string {
	registerType(name, indirect(reflect.TypeOf(v)))
	return name
}

func registerType(name string, t reflect.Type) {
	schemaTypes.Lock()
	defer schemaTypes.Unlock()
	schemaTypes.byName[name] = t
}

// namedSchema is the schema of the registered type name, and whether
// there is one.
func namedSchema(name string) (map[string]any, bool) {
	schemaTypes.Lock()
	defer schemaTypes.Unlock()
	if s, ok := schemaTypes.schemas[name]; ok {
		return s, true
	}
	t, ok := schemaTypes.byName[name]
	if !ok {
		return nil, false
	}
	s := typeSchema(t, map[reflect.Type]bool{})
	schemaTypes.schemas[name] = s
	return s, true
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// anyJSON is the schema of a value of any JSON type (an `any` field, a
// json.RawMessage). It says so with every type named, so that no
// property of a schema goes without a type.
var anyJSON = map[string]any{"type": []string{"string", "number", "boolean", "object", "array", "null"}}

// typeSchema is the JSON Schema of the values encoding/json writes for
// type t: a struct's fields under their json names (none required: the
// bytes go to every tools/list), a nil pointer, slice or map as null (the type
// nullable unless omitempty leaves it out), a map as an object whose
// additionalProperties are the element's schema, a free-form
// map[string]any as additionalProperties true. seen guards recursive
// types.
func typeSchema(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	t = indirect(t)
	switch {
	case t == timeType:
		return map[string]any{"type": "string"}
	case t == rawJSONType:
		return anyJSON
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return anyJSON
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string"} // base64
		}
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), seen)}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object", "additionalProperties": true}
		}
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), seen)}
	case reflect.Interface:
		return anyJSON
	case reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object", "additionalProperties": true}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		addProps(props, t, seen)
		return map[string]any{"type": "object", "properties": props}
	}
	return anyJSON
}

// addProps adds the json properties of struct t to props (embedded
// structs flattened).
func addProps(props map[string]any, t reflect.Type, seen map[reflect.Type]bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && indirect(sf.Type).Kind() == reflect.Struct {
			addProps(props, indirect(sf.Type), seen)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		s := typeSchema(sf.Type, seen)
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		switch sf.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
			if typ, ok := s["type"].(string); ok && !omit && !(typ == "string" && sf.Type.Kind() == reflect.Slice) {
				c := make(map[string]any, len(s))
				for k, v := range s {
					c[k] = v
				}
				c["type"] = []string{typ, "null"}
				s = c
			}
		}
		props[name] = s
	}
}

// typ is the Fields type of v's Go type (a zero value, or a struct's
// field: typ(query.Changes{}.Files)), its struct and map types registered
// under their Go names.
func typ(v any) string { return goJSONType(reflect.TypeOf(v)) }
