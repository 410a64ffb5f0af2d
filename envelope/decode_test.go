package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is the reference: encoding/json's Decoder with UseNumber, one
// value, nothing but whitespace after it.
func stdDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func FuzzDecodeGeneric(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0,2.5e-3,1E+9,true,false,null],"b":{"c":"d"}}`,
		`"\u00e9\ud83d\ude00\ud800\u0041\udc00x\\\"\/\b\f\n\r\t"`,
		"\"\xff\xfe日本\"",
		`[01]`, `[1.]`, `[-]`, `{"a" 1}`, `[1,]`, `{"a":1,"a":2}`, ` [ ] `, `{} x`, `"\x01"`, `1e`, `-01`,
		`[[[[[[[[[[]]]]]]]]]]`, `{"k":"` + strings.Repeat(`\"`, 40) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gerr := decodeGeneric(b)
		want, werr := stdDecode(b)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("decodeGeneric err = %v, encoding/json err = %v, input %q", gerr, werr, b)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeGeneric = %#v, encoding/json = %#v, input %q", got, want, b)
		}
	})
}

func TestDecodeGeneric_Errors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1 2]`, `tru`, `"abc`, `{"a":}`, `nul`, `[1,]`, `"\q"`, `"\u12"`} {
		if _, err := decodeGeneric([]byte(in)); !errors.Is(err, errDecode) {
			t.Errorf("decodeGeneric(%q) err = %v, want errDecode", in, err)
		}
	}
	deep := strings.Repeat("[", maxDecodeDepth+2) + strings.Repeat("]", maxDecodeDepth+2)
	if _, err := decodeGeneric([]byte(deep)); !errors.Is(err, errDecode) {
		t.Errorf("nesting past the limit: err = %v", err)
	}
}
