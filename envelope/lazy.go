package envelope

import "slices"

// Lazy top-level lists.
//
// (A typed body's lists are lazy the same way, their elements converted
// rather than decoded on demand: typed.go.)
//
// A large body is mostly one or two long lists, and the ladder keeps only a
// budget's worth of each. So when OK decodes the encoding/json output of a
// handler's struct, a top-level array under a TrimmableListKeys key is only
// split into its elements' encoded forms; an element is decoded the first
// time the measurer, the trimmer or the encoder asks for it. What the
// ladder drops is never decoded. Trimming still runs on decoded values:
// every element it measures or keeps is a generic tree.
//
// A lazyList never survives OK: okBody materializes what is left before the
// envelope is serialized, so Envelope.Map() holds only generic values.

// lazyList is a JSON array of n elements held as their encoded forms (raw)
// or as a typed list's elements (src converts element i, typed.go),
// decoded in order on demand.
type lazyList struct {
	n   int
	raw [][]byte
	src func(i int) any
	dec []any // decoded prefix: dec[i] is element i
}

func (l *lazyList) len() int { return l.n }

// elem returns element i, decoding it (and any before it) if needed.
func (l *lazyList) elem(i int) any {
	for len(l.dec) <= i {
		var v any
		if j := len(l.dec); l.src != nil {
			v = l.src(j)
		} else if d, err := decodeGeneric(l.raw[j]); err == nil {
			// An error cannot happen: the bytes are encoding/json
			// output, which is valid JSON, and splitList found this
			// element's bounds.
			v = d
		}
		l.dec = append(l.dec, v)
	}
	return l.dec[i]
}

// prefix returns the first n elements, decoded, as a new slice.
func (l *lazyList) prefix(n int) []any {
	if n > 0 {
		l.elem(n - 1)
	}
	return slices.Clone(l.dec[:n])
}

// decodeBody decodes encoding/json output that must be an object, leaving
// top-level trimmable lists lazy. A body that is graph-export shaped is
// decoded in full: the subgraph trim needs every node and edge.
func decodeBody(b []byte) (any, error) {
	d := decoder{b: b}
	d.skipSpace()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return decodeGeneric(b)
	}
	d.i++
	m := map[string]any{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
	} else {
		for {
			d.skipSpace()
			if d.i >= len(d.b) || d.b[d.i] != '"' {
				return nil, d.errorf("expected an object key")
			}
			k, err := d.string()
			if err != nil {
				return nil, err
			}
			d.skipSpace()
			if d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, d.errorf("expected ':'")
			}
			d.i++
			d.skipSpace()
			var v any
			if trimmableKey[k] && d.i < len(d.b) && d.b[d.i] == '[' {
				v, err = d.splitList()
			} else {
				v, err = d.value(1)
			}
			if err != nil {
				return nil, err
			}
			m[k] = v
			d.skipSpace()
			if d.i >= len(d.b) {
				return nil, d.errorf("unexpected end of object")
			}
			if d.b[d.i] == '}' {
				d.i++
				break
			}
			if d.b[d.i] != ',' {
				return nil, d.errorf("expected ',' or '}'")
			}
			d.i++
		}
	}
	d.skipSpace()
	if d.i != len(d.b) {
		return nil, d.errorf("unexpected data after the top-level value")
	}
	if isList(m[keyNodes]) && isList(m[keyEdges]) {
		materialize(m)
	}
	return m, nil
}

var trimmableKey = func() map[string]bool {
	m := make(map[string]bool, len(TrimmableListKeys))
	for _, k := range TrimmableListKeys {
		m[k] = true
	}
	return m
}()

func isList(v any) bool {
	switch v.(type) {
	case []any, *lazyList:
		return true
	}
	return false
}

// materialize replaces every lazy list in m by its decoded elements.
func materialize(m map[string]any) {
	for k, v := range m {
		if l, ok := v.(*lazyList); ok {
			m[k] = l.prefix(l.len())
		}
	}
}

// splitList records the bounds of each element of the array at d.i.
func (d *decoder) splitList() (any, error) {
	d.i++ // [
	l := &lazyList{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return l, nil
	}
	for {
		d.skipSpace()
		start := d.i
		if err := d.skipValue(); err != nil {
			return nil, err
		}
		if d.i == start {
			return nil, d.errorf("expected an array element")
		}
		l.raw = append(l.raw, d.b[start:d.i])
		l.n++
		d.skipSpace()
		if d.i >= len(d.b) {
			return nil, d.errorf("unexpected end of array")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return l, nil
		default:
			return nil, d.errorf("expected ',' or ']'")
		}
	}
}

// skipValue moves past one value without decoding it. It tracks strings and
// nesting only; the element is validated when decoded.
func (d *decoder) skipValue() error {
	depth := 0
	for d.i < len(d.b) {
		switch c := d.b[d.i]; c {
		case '"':
			d.i++
			for d.i < len(d.b) && d.b[d.i] != '"' {
				if d.b[d.i] == '\\' {
					d.i++
				}
				d.i++
			}
			if d.i >= len(d.b) {
				return d.errorf("unterminated string")
			}
			d.i++
		case '{', '[':
			depth++
			d.i++
		case '}', ']':
			if depth == 0 {
				return nil // end of the enclosing array
			}
			depth--
			d.i++
		case ',':
			if depth == 0 {
				return nil
			}
			d.i++
		default:
			d.i++
		}
		if depth == 0 && d.i < len(d.b) {
			switch d.b[d.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return nil
			}
		}
	}
	if depth != 0 {
		return d.errorf("unexpected end of input")
	}
	return nil
}
