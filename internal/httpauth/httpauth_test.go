package httpauth

import (
	"errors"
	"testing"
)

func TestParseOrigin(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"HTTP://Example.COM:80", "http://example.com"},
		{"https://example.com:443/", "https://example.com"},
		{"http://127.0.0.1:7777", "http://127.0.0.1:7777"},
		{"http://[::1]:7777", "http://[::1]:7777"},
	} {
		got, err := ParseOrigin(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"null", "example.com", "ftp://example.com", "http://u@example.com", "http://example.com/x", "http://example.com:0", "http://example.com?q"} {
		if _, err := ParseOrigin(in); !errors.Is(err, ErrBadOrigin) {
			t.Errorf("ParseOrigin(%q): %v; want ErrBadOrigin", in, err)
		}
	}
}

func TestToken_CheckBearer(t *testing.T) {
	if (Token{}).Equal("") || NewToken("").Set() {
		t.Fatal("an unset token matches or is set")
	}
	tok := NewToken("abc")
	for _, c := range []struct {
		values []string
		ok     bool
	}{
		{[]string{"Bearer abc"}, true},
		{[]string{"bearer   abc"}, true},
		{[]string{"Bearer abd"}, false},
		{[]string{"Basic abc"}, false},
		{[]string{"Bearer abc", "Bearer abc"}, false},
		{nil, false},
	} {
		if msg, ok := tok.CheckBearer(c.values); ok != c.ok || (!ok && msg == "") {
			t.Errorf("CheckBearer(%q) = %q, %v; want %v", c.values, msg, ok, c.ok)
		}
	}
}
