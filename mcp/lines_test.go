package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader_SplitsAndSkips(t *testing.T) {
	const max = 100
	long := `{"id":5,"params":"` + strings.Repeat("y", 300) + `"}`
	in := "a\n\n" + strings.Repeat("b", max) + "\n" + long + "\n" + strings.Repeat("c", max+1) + "\nlast"
	lr := newLineReader(strings.NewReader(in), max)
	type got struct {
		line string
		over *oversizedLine
	}
	var all []got
	for {
		line, over, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{string(line), over})
	}
	want := []got{
		{"a", nil},
		{"", nil},
		{strings.Repeat("b", max), nil},
		{"", &oversizedLine{Size: int64(len(long)), ID: json.RawMessage("5")}},
		{"", &oversizedLine{Size: max + 1}},
		{"last", nil},
	}
	if len(all) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(all), len(want), all)
	}
	for i := range want {
		g, w := all[i], want[i]
		if g.line != w.line || (g.over == nil) != (w.over == nil) ||
			(g.over != nil && (g.over.Size != w.over.Size || string(g.over.ID) != string(w.over.ID))) {
			t.Errorf("line %d: got %q %+v, want %q %+v", i, g.line, g.over, w.line, w.over)
		}
	}
}

// TestLineReader_LongLinesInChunks reads lines longer than the buffer and
// the small-line part, under and over the limit.
func TestLineReader_LongLinesInChunks(t *testing.T) {
	const max = 3 << 20
	ok := bytes.Repeat([]byte("z"), max)
	in := string(ok) + "\n" + strings.Repeat("z", max+1) + "\nend\n"
	lr := newLineReader(strings.NewReader(in), max)
	line, over, err := lr.next()
	if err != nil || over != nil || !bytes.Equal(line, ok) {
		t.Fatalf("a line at the limit: %d bytes, %+v, %v", len(line), over, err)
	}
	if _, over, err = lr.next(); err != nil || over == nil || over.Size != max+1 || over.ID != nil {
		t.Fatalf("a line over the limit: %+v, %v", over, err)
	}
	if line, _, err = lr.next(); err != nil || string(line) != "end" {
		t.Fatalf("after it: %q, %v", line, err)
	}
}

func TestIDScanner(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"x"}`, `7`},
		{`{"id":"abc","params":{"id":9}}`, `"abc"`},
		{`{"params":{"id":9,"deep":[{"id":1}]},"id":-1.5e3}`, `-1.5e3`},
		{` { "id" : "a\"b\\" , "x":1}`, `"a\"b\\"`},
		{`{"method":"x","params":{"q":"\"id\":4"}}`, ``},
		{`{"id":null}`, ``},
		{`{"id":true}`, ``},
		{`{"id":{"a":1}}`, ``},
		{`{"id":[1]}`, ``},
		{`{"idx":3,"xid":4}`, ``},
		{`{"id":1,"id":2}`, `2`},
		{`{"id":1,"id":null}`, ``},
		{`[{"id":1}]`, ``},
		{`"id"`, ``},
		{`{"id":"` + strings.Repeat("x", maxIDBytes) + `"}`, ``},
		{`{"id":12`, `12`}, // cut off at the end of a line
		{`{"x":"` + strings.Repeat("q", 100000) + `","id":3}`, `3`},
	}
	for _, tc := range cases {
		for _, split := range []int{0, 1, 2, 5, 7} {
			var s idScanner
			p := []byte(tc.in)
			if split > 0 {
				for len(p) > 0 {
					k := min(split, len(p))
					s.feed(p[:k])
					p = p[k:]
				}
			} else {
				s.feed(p)
			}
			if got := string(s.result()); got != tc.want {
				t.Errorf("%.60q fed in pieces of %d: id %q, want %q", tc.in, split, got, tc.want)
			}
		}
	}
}

// FuzzIDScanner checks the scanner against encoding/json: for a valid
// object whose keys hold no escapes, the id found is the one json decodes
// when that is a string or number, and nothing otherwise; for any input it
// returns nothing or a JSON string or number, however the bytes are split.
func FuzzIDScanner(f *testing.F) {
	for _, s := range []string{`{"id":1}`, `{"a":{"id":2},"id":"x"}`, `{"id":"\u00e9"}`, `[1,{"id":2}]`, `{"id":[1]}`, `{"i\u0064":3}`, `{`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		var s idScanner
		p := in
		k := int(split)%16 + 1
		for len(p) > 0 {
			n := min(k, len(p))
			s.feed(p[:n])
			p = p[n:]
		}
		got := s.result()
		if got != nil {
			var v any
			if json.Unmarshal(got, &v) != nil {
				t.Fatalf("%q: id %q is not JSON", in, got)
			}
			switch v.(type) {
			case string, float64:
			default:
				t.Fatalf("%q: id %q is no string or number", in, got)
			}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(in, &m) != nil || bytes.Contains(in, []byte(`\`)) {
			return // invalid JSON, or keys that may hold escapes
		}
		var want json.RawMessage
		if raw, ok := m["id"]; ok && len(raw) <= maxIDBytes {
			var v any
			_ = json.Unmarshal(raw, &v)
			switch v.(type) {
			case string, float64:
				want = raw
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: id %q, encoding/json says %q", in, got, want)
		}
	})
}
