package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeGeneric parses one JSON value into the generic tree the trimmer
// works on: map[string]any, []any, string, json.Number (the exact source
// text), bool and nil — what encoding/json's Decoder with UseNumber yields,
// including its repairs (an invalid UTF-8 byte or a lone surrogate escape
// becomes U+FFFD; the last of duplicate keys wins). It exists because the
// reflection-based decoder was most of OK's cost on large bodies.
func decodeGeneric(b []byte) (any, error) {
	d := decoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.i != len(d.b) {
		return nil, d.errorf("unexpected data after the top-level value")
	}
	return v, nil
}

// maxDecodeDepth is encoding/json's nesting limit.
const maxDecodeDepth = 10000

var errDecode = errors.New("decode json")

type decoder struct {
	b []byte
	i int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", errDecode, d.i, fmt.Sprintf(format, args...))
}

func (d *decoder) skipSpace() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if depth > maxDecodeDepth {
		return nil, d.errorf("nesting deeper than %d", maxDecodeDepth)
	}
	d.skipSpace()
	if d.i >= len(d.b) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.b[d.i]; c {
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	case '"':
		return d.string()
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
		return nil, d.errorf("invalid character %q", c)
	}
}

func (d *decoder) literal(word string) error {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return d.errorf("invalid literal")
	}
	d.i += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.i++ // {
	m := map[string]any{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
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
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.skipSpace()
		if d.i >= len(d.b) {
			return nil, d.errorf("unexpected end of object")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.errorf("expected ',' or '}'")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.i++ // [
	a := []any{}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.skipSpace()
		if d.i >= len(d.b) {
			return nil, d.errorf("unexpected end of array")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.errorf("expected ',' or ']'")
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? and keeps its text.
func (d *decoder) number() (any, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.i < len(d.b) && isDigit(d.b[d.i]):
		for d.i < len(d.b) && isDigit(d.b[d.i]) {
			d.i++
		}
	default:
		return nil, d.errorf("invalid number")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.i >= len(d.b) || !isDigit(d.b[d.i]) {
			return nil, d.errorf("invalid number")
		}
		for d.i < len(d.b) && isDigit(d.b[d.i]) {
			d.i++
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.i >= len(d.b) || !isDigit(d.b[d.i]) {
			return nil, d.errorf("invalid number")
		}
		for d.i < len(d.b) && isDigit(d.b[d.i]) {
			d.i++
		}
	}
	return json.Number(d.b[start:d.i]), nil
}

// string decodes a quoted string starting at d.b[d.i] == '"'.
func (d *decoder) string() (string, error) {
	d.i++ // opening quote
	start := d.i
	// Fast path: no escapes, ASCII or valid UTF-8 only.
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := string(d.b[start:d.i])
			d.i++
			return s, nil
		case c == '\\' || c < 0x20:
			return d.stringSlow(start)
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, w := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && w == 1 {
				return d.stringSlow(start)
			}
			d.i += w
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *decoder) stringSlow(start int) (string, error) {
	out := make([]byte, 0, d.i-start+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.errorf("control character in string")
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return "", d.errorf("unterminated escape")
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", d.errorf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A valid pair consumes the second escape; anything
					// else is U+FFFD and the next escape stands alone.
					if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
						save := d.i
						d.i += 2
						r2, ok := d.hex4()
						if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							continue
						}
						d.i = save
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", d.errorf("invalid escape %q", e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, w := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && w == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.b[d.i:d.i+w]...)
			}
			d.i += w
		}
	}
	return "", d.errorf("unterminated string")
}

// hex4 reads four hex digits at d.i.
func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}
