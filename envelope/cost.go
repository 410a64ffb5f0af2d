package envelope

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// cost is the size of a piece of serialized JSON. All three counts are
// additive under concatenation, so the cost of an envelope with a list cut
// to k elements is computed from per-element costs without re-serializing.
type cost struct {
	bytes    int // UTF-8 bytes
	ascii    int // bytes below 0x80
	nonASCII int // runes at or above 0x80
}

func (c cost) plus(d cost) cost {
	return cost{c.bytes + d.bytes, c.ascii + d.ascii, c.nonASCII + d.nonASCII}
}

// asciiCost is the cost of n ASCII bytes.
func asciiCost(n int) cost { return cost{n, n, 0} }

// tokens is the script-aware token estimate: ASCII about 4
// characters per token, every non-ASCII character about one token, so CJK,
// Arabic or Cyrillic text is not undercounted.
func (c cost) tokens() int { return c.ascii/4 + c.nonASCII }

// size is the token-normalised size the budget is compared against
// (docs/envelope.md, token budget): max(bytes, tokens×4), which is the raw
// length for ASCII.
func (c cost) size() int { return max(c.bytes, 4*c.tokens()) }

// tokensEstimated is the value of meta.tokens_estimated: at least 1.
func (c cost) tokensEstimated() int { return max(1, c.tokens()) }

// digits is the encoded length of a non-negative integer.
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// runeCost returns the encoded cost of the character starting at s[i]
// inside a JSON string, and its width in s.
func runeCost(s string, i int) (cost, int) {
	b := s[i]
	if b < utf8.RuneSelf {
		return asciiCost(int(escapeLen[b])), 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && w == 1 {
		return cost{3, 0, 1}, 1 // written as U+FFFD
	}
	return cost{w, 0, 1}, w
}

// stringCost is the encoded cost of s, quotes included.
func stringCost(s string) cost {
	c := asciiCost(2)
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			n := int(escapeLen[b])
			c.bytes += n
			c.ascii += n
			i++
			continue
		}
		rc, w := runeCost(s, i)
		c = c.plus(rc)
		i += w
	}
	return c
}

// bytesCost is the cost of already-encoded UTF-8 JSON.
func bytesCost(b []byte) cost {
	var c cost
	c.bytes = len(b)
	for _, x := range b {
		if x < utf8.RuneSelf {
			c.ascii++
		} else if utf8.RuneStart(x) {
			c.nonASCII++
		}
	}
	return c
}

// measurer sums the encoded cost of values. With a positive limit it stops
// early once the token-normalised size exceeds it: the answer "over" is all
// the caller needs then, and a 50 MB body is never walked to the end.
type measurer struct {
	c     cost
	limit int // 0: no limit
	over  bool
}

func (m *measurer) add(c cost) {
	m.c = m.c.plus(c)
	if m.limit > 0 && m.c.size() > m.limit {
		m.over = true
	}
}

func (m *measurer) value(v any) {
	if m.over {
		return
	}
	switch x := v.(type) {
	case nil:
		m.add(asciiCost(4))
	case bool:
		if x {
			m.add(asciiCost(4))
		} else {
			m.add(asciiCost(5))
		}
	case string:
		m.add(stringCost(x))
	case json.Number:
		m.add(asciiCost(len(x)))
	case int:
		m.add(asciiCost(len(strconv.AppendInt(nil, int64(x), 10))))
	case int64:
		m.add(asciiCost(len(strconv.AppendInt(nil, x, 10))))
	case uint64:
		m.add(asciiCost(len(strconv.AppendUint(nil, x, 10))))
	case float64:
		m.add(asciiCost(len(appendFloat(nil, x))))
	case []any:
		n := 2
		if len(x) > 1 {
			n += len(x) - 1
		}
		m.add(asciiCost(n))
		for _, e := range x {
			if m.over {
				return
			}
			m.value(e)
		}
	case *lazyList:
		n := 2
		if x.len() > 1 {
			n += x.len() - 1
		}
		m.add(asciiCost(n))
		for i := range x.len() {
			if m.over {
				return
			}
			m.value(x.elem(i))
		}
	case map[string]any:
		n := 2
		if len(x) > 1 {
			n += len(x) - 1
		}
		m.add(asciiCost(n + len(x))) // braces, commas, one colon per member
		for k, e := range x {
			if m.over {
				return
			}
			m.add(stringCost(k))
			m.value(e)
		}
	default:
		m.add(bytesCost(marshalStray(x)))
	}
}

// measure returns the encoded cost of v.
func measure(v any) cost {
	var m measurer
	m.value(v)
	return m.c
}

// measureLimited returns the encoded cost of v and whether its size exceeds
// limit; when it does, the returned cost is partial.
func measureLimited(v any, limit int) (cost, bool) {
	m := measurer{limit: limit}
	m.value(v)
	return m.c, m.over
}
