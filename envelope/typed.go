package envelope

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Typed bodies.
//
// A handler answers with a typed value: a struct, or a map holding structs
// and typed lists. OK turns it into the generic tree the trimmer works on
// directly, with reflection, into exactly what encoding/json's bytes would
// decode to (decodeGeneric) — without the bytes: strings are shared,
// integers stay int64 or uint64, a float64 stays a float64 (appendFloat
// writes encoding/json's text), invalid UTF-8 becomes U+FFFD. A top-level
// list under a TrimmableListKeys key becomes a lazyList whose elements are
// converted the first time they are asked for, so what the ladder drops is
// never converted. The envelope is then serialized once (appendValue).
//
// Only what the conversion mirrors exactly takes this path. A value holding
// anything else — a json.Marshaler or encoding.TextMarshaler, []byte, a map
// whose keys are not strings, a field tagged ",string" or ",omitzero",
// struct fields whose JSON names collide, a recursive type, a NaN or an
// infinity, an invalid json.Number, nesting past maxGenericDepth — takes
// the encode-and-decode round trip instead, which yields the same bytes, or
// the same failure.

// typeInfo is what the conversion knows of one Go type.
type typeInfo struct {
	kind reflect.Kind
	// plain: the conversion mirrors encoding/json for every value of the
	// type that check accepts.
	plain bool
	// safe: every value of the type converts; check need not look.
	safe bool
	// number: the type is json.Number.
	number bool
	// elem is the type of a pointer's target, a slice's, an array's or a
	// map's elements.
	elem   *typeInfo
	fields []fieldInfo
}

// fieldInfo is one member a struct encodes to.
type fieldInfo struct {
	name      string
	index     []int // path through embedded structs, as reflect.Value.FieldByIndex
	omitEmpty bool
	typ       *typeInfo
}

var (
	typeCache sync.Map   // reflect.Type → *typeInfo, complete ones only
	typeMu    sync.Mutex // serialises building

	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// infoOf returns the typeInfo of t, building it on first use.
func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	typeMu.Lock()
	defer typeMu.Unlock()
	built := map[reflect.Type]*typeInfo{}
	ti := buildInfo(t, built)
	for t, ti := range built {
		typeCache.Store(t, ti)
	}
	return ti
}

// buildInfo builds the typeInfo of t into built. A type met again while
// it is being built (a recursive type) is neither plain nor safe at that
// moment, so whatever holds it is not plain either.
func buildInfo(t reflect.Type, built map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	if ti, ok := built[t]; ok {
		return ti
	}
	ti := &typeInfo{kind: t.Kind()}
	built[t] = ti
	switch {
	case t == numberType:
		ti.plain, ti.number = true, true
		return ti
	case t.Kind() != reflect.Interface && marshals(t):
		return ti
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ti.plain, ti.safe = true, true
	case reflect.Float32, reflect.Float64, reflect.Interface:
		ti.plain = true
	case reflect.Pointer:
		ti.elem = buildInfo(t.Elem(), built)
		ti.plain, ti.safe = ti.elem.plain, ti.elem.safe
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return ti // []byte is base64 text
		}
		ti.elem = buildInfo(t.Elem(), built)
		ti.plain, ti.safe = ti.elem.plain, ti.elem.safe
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return ti
		}
		ti.elem = buildInfo(t.Elem(), built)
		ti.plain, ti.safe = ti.elem.plain, ti.elem.safe
	case reflect.Struct:
		fields, ok := structFields(t, built)
		if !ok {
			return ti
		}
		ti.fields, ti.plain, ti.safe = fields, true, true
		for _, f := range fields {
			ti.plain = ti.plain && f.typ.plain
			ti.safe = ti.safe && f.typ.safe
		}
	}
	ti.safe = ti.safe && ti.plain
	return ti
}

// marshals reports whether encoding/json would call a method of t (or of
// *t) to encode it.
func marshals(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	p := reflect.PointerTo(t)
	return t.Kind() != reflect.Pointer && (p.Implements(marshalerType) || p.Implements(textMarshalerType))
}

// structFields lists the members t encodes to, embedded structs' fields
// promoted, as encoding/json does; false when a name is met twice (its
// dominance rules are not mirrored), or a tag is beyond a plain name and
// omitempty.
func structFields(t reflect.Type, built map[reflect.Type]*typeInfo) ([]fieldInfo, bool) {
	var out []fieldInfo
	seen := map[string]bool{}
	visited := map[reflect.Type]bool{}
	var walk func(t reflect.Type, index []int) bool
	walk = func(t reflect.Type, index []int) bool {
		if visited[t] {
			return false
		}
		visited[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			ft := sf.Type
			if sf.Anonymous {
				st := ft
				if st.Kind() == reflect.Pointer {
					st = st.Elem()
				}
				if !sf.IsExported() && st.Kind() != reflect.Struct {
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name != "" && !plainName(name) {
				return false
			}
			omit := false
			for opts != "" {
				var o string
				o, opts, _ = strings.Cut(opts, ",")
				if o != "omitempty" {
					return false
				}
				omit = true
			}
			idx := append(append([]int(nil), index...), i)
			if name == "" && sf.Anonymous {
				st := ft
				if st.Kind() == reflect.Pointer {
					st = st.Elem()
				}
				if st.Kind() == reflect.Struct {
					if !walk(st, idx) {
						return false
					}
					continue
				}
			}
			if name == "" {
				name = sf.Name
			}
			if seen[name] {
				return false
			}
			seen[name] = true
			out = append(out, fieldInfo{name: name, index: idx, omitEmpty: omit, typ: buildInfo(ft, built)})
		}
		return true
	}
	if !walk(t, nil) {
		return nil, false
	}
	return out, true
}

// plainName reports whether a tag name holds only letters, digits, _ and
// -: names encoding/json certainly takes as they are.
func plainName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// field returns the field at f.index of struct v; false when an embedded
// pointer on the way is nil (encoding/json leaves its fields out).
func (f *fieldInfo) value(v reflect.Value) (reflect.Value, bool) {
	for _, i := range f.index[:len(f.index)-1] {
		v = v.Field(i)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
	}
	return v.Field(f.index[len(f.index)-1]), true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// check reports whether v, of the type ti describes, converts: every
// float finite, every json.Number valid, every dynamic type plain, nesting
// within maxGenericDepth.
func (ti *typeInfo) check(v reflect.Value, depth int) bool {
	if ti.safe {
		return true
	}
	if !ti.plain || depth > maxGenericDepth {
		return false
	}
	switch ti.kind {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.String:
		return !ti.number || validNumber(v.String())
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return checkAny(v.Elem(), depth+1)
	case reflect.Pointer:
		return v.IsNil() || ti.elem.check(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !ti.elem.check(v.Index(i), depth+1) {
				return false
			}
		}
	case reflect.Map:
		if m, ok := genericMap(v); ok {
			for _, e := range m {
				if !checkAny(reflect.ValueOf(e), depth+1) {
					return false
				}
			}
			return true
		}
		for it := v.MapRange(); it.Next(); {
			if !ti.elem.check(it.Value(), depth+1) {
				return false
			}
		}
	case reflect.Struct:
		for i := range ti.fields {
			f := &ti.fields[i]
			if fv, ok := f.value(v); ok && !f.typ.check(fv, depth+1) {
				return false
			}
		}
	}
	return true
}

// checkAny is check for the dynamic value of an interface.
func checkAny(v reflect.Value, depth int) bool {
	if !v.IsValid() {
		return true
	}
	if depth > maxGenericDepth {
		return false
	}
	if !v.CanInterface() {
		return infoOf(v.Type()).check(v, depth)
	}
	switch x := v.Interface().(type) {
	case nil, bool, string, int, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, e := range x {
			if !checkAny(reflect.ValueOf(e), depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !checkAny(reflect.ValueOf(e), depth+1) {
				return false
			}
		}
		return true
	}
	return infoOf(v.Type()).check(v, depth)
}

// convert returns the generic form of v, which check accepted.
func (ti *typeInfo) convert(v reflect.Value) any {
	switch ti.kind {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float64:
		return v.Float()
	case reflect.Float32:
		return json.Number(appendFloat32(nil, v.Float()))
	case reflect.String:
		if ti.number {
			if v.String() == "" {
				return json.Number("0") // encoding/json's encoding of the zero Number
			}
			return json.Number(v.String())
		}
		return validUTF8(v.String())
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return convertAny(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return ti.elem.convert(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		return ti.list(v)
	case reflect.Array:
		return ti.list(v)
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		if m, ok := genericMap(v); ok {
			return convertGenericMap(m)
		}
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			out[validUTF8(it.Key().String())] = ti.elem.convert(it.Value())
		}
		return out
	case reflect.Struct:
		out := make(map[string]any, len(ti.fields))
		for i := range ti.fields {
			f := &ti.fields[i]
			fv, ok := f.value(v)
			if !ok || f.omitEmpty && isEmpty(fv) {
				continue
			}
			out[f.name] = f.typ.convert(fv)
		}
		return out
	}
	return nil // not reached: check refused every other kind
}

// genericMap returns v as a map[string]any when it is one and reflection
// may hand it out (it was not reached through an unexported embedded
// struct).
func genericMap(v reflect.Value) (map[string]any, bool) {
	if !v.CanInterface() {
		return nil, false
	}
	m, ok := v.Interface().(map[string]any)
	return m, ok
}

func (ti *typeInfo) list(v reflect.Value) []any {
	out := make([]any, v.Len())
	for i := range out {
		out[i] = ti.elem.convert(v.Index(i))
	}
	return out
}

// convertAny is convert for the dynamic value of an interface. A generic
// tree is kept as it is when it needs no repair.
func convertAny(v reflect.Value) any {
	if !v.CanInterface() {
		return infoOf(v.Type()).convert(v)
	}
	switch x := v.Interface().(type) {
	case bool, int, int64, float64:
		return x
	case string:
		return validUTF8(x)
	case map[string]any:
		return convertGenericMap(x)
	case []any:
		if shareable(x, 0) {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = convertAny(reflect.ValueOf(e))
		}
		return out
	case nil:
		return nil
	}
	return infoOf(v.Type()).convert(v)
}

func convertGenericMap(m map[string]any) any {
	if shareable(m, 0) {
		return m
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[validUTF8(k)] = convertAny(reflect.ValueOf(e))
	}
	return out
}

// shareable reports whether a generic value is already what decoding its
// encoding gives, up to invalid UTF-8 in string values (which the encoder
// and the measurer treat as U+FFFD): isGeneric, with valid UTF-8 keys.
func shareable(v any, depth int) bool {
	if depth > maxGenericDepth {
		return false
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if !shareable(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !shareable(e, depth+1) {
				return false
			}
		}
		return true
	}
	return isGeneric(v, depth)
}

// validUTF8 returns s with each byte of an invalid UTF-8 sequence replaced
// by U+FFFD, as encoding/json writes it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return string(b)
}

// appendFloat32 appends f as encoding/json writes a float32.
func appendFloat32(dst []byte, f float64) []byte {
	format := byte('f')
	if a := float32(math.Abs(f)); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 32)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// validNumber reports whether s is a JSON number, or empty (encoding/json
// writes the zero json.Number as 0).
func validNumber(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = s[2:]
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	}
	return s == ""
}

// typedBody converts data into the body OK trims, top-level trimmable
// lists lazy; false when data is not what the conversion mirrors (the
// caller takes the round trip).
func typedBody(data any) (map[string]any, bool) {
	v := reflect.ValueOf(data)
	ti := infoOf(v.Type())
	if !ti.plain || !ti.check(v, 0) {
		return nil, false
	}
	for ti.kind == reflect.Pointer {
		if v.IsNil() {
			return map[string]any{}, true // null: the empty body, as decoded
		}
		v, ti = v.Elem(), ti.elem
	}
	var body map[string]any
	switch ti.kind {
	case reflect.Struct:
		body = make(map[string]any, len(ti.fields)+1)
		for i := range ti.fields {
			f := &ti.fields[i]
			fv, ok := f.value(v)
			if !ok || f.omitEmpty && isEmpty(fv) {
				continue
			}
			body[f.name] = member(f.name, fv, f.typ)
		}
	case reflect.Map:
		if v.IsNil() {
			return map[string]any{}, true
		}
		body = make(map[string]any, v.Len()+1)
		for it := v.MapRange(); it.Next(); {
			k := validUTF8(it.Key().String())
			body[k] = member(k, it.Value(), ti.elem)
		}
	default:
		return nil, false // not an object: the round trip names the failure
	}
	if isList(body[keyNodes]) && isList(body[keyEdges]) {
		materialize(body) // the subgraph trim needs every node and edge
	}
	return body, true
}

// member converts the top-level value v under key: a list under a
// trimmable key lazily, as decodeBody leaves it.
func member(key string, v reflect.Value, ti *typeInfo) any {
	if !trimmableKey[key] {
		return ti.convert(v)
	}
	for ti.kind == reflect.Interface || ti.kind == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if ti.kind == reflect.Interface {
			v = v.Elem()
			ti = infoOf(v.Type())
		} else {
			v, ti = v.Elem(), ti.elem
		}
	}
	switch {
	case ti.kind == reflect.Slice && v.IsNil():
		return nil
	case ti.kind == reflect.Slice || ti.kind == reflect.Array:
		elem := ti.elem
		return &lazyList{n: v.Len(), src: func(i int) any { return elem.convert(v.Index(i)) }}
	}
	return ti.convert(v)
}
