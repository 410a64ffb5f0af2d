package natslog_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cos-dev/cos/eventlog/natslog"
)

func TestToken_Examples(t *testing.T) {
	for name, want := range map[string]string{
		"task:TASK-001":   "task:TASK-001",
		"graph":           "graph",
		"a.b":             "a%2Eb",
		"*>":              "%2A%3E",
		"%":               "%25",
		"evidence:é":      "evidence:%C3%A9",
		"x y\t\x00":       "x%20y%09%00",
		"file:cmd/cos.go": "file:cmd%2Fcos%2Ego",
	} {
		if got := natslog.EncodeToken(name); got != want {
			t.Errorf("EncodeToken(%q) = %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{"", "a.b", "a*", "%2", "%2e", "%41", "a b", "%ZZ"} {
		if got, err := natslog.DecodeToken(bad); err == nil {
			t.Errorf("DecodeToken(%q) = %q, want an error", bad, got)
		}
	}
}

// Every name round-trips, a token is one subject token (no '.', '*', '>',
// whitespace or control byte), and a token that decodes is the encoding
// of what it decodes to (so two names never share a subject).
func FuzzToken(f *testing.F) {
	for _, s := range []string{"task:TASK-001", "a.b", "*", ">", "%", "é", "\x00", "%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := natslog.EncodeToken(s)
		if strings.ContainsAny(tok, ".*> \t\r\n") || !utf8.ValidString(tok) {
			t.Fatalf("EncodeToken(%q) = %q is not one plain subject token", s, tok)
		}
		for i := 0; i < len(tok); i++ {
			if tok[i] < 0x21 || tok[i] > 0x7e {
				t.Fatalf("EncodeToken(%q) = %q holds byte %#x", s, tok, tok[i])
			}
		}
		back, err := natslog.DecodeToken(tok)
		if err != nil || back != s {
			t.Fatalf("DecodeToken(EncodeToken(%q)) = %q, %v", s, back, err)
		}
		if name, err := natslog.DecodeToken(s); err == nil && natslog.EncodeToken(name) != s {
			t.Fatalf("DecodeToken(%q) = %q but that encodes as %q", s, name, natslog.EncodeToken(name))
		}
	})
}

func TestParseStore(t *testing.T) {
	for _, c := range []struct {
		in, urls, stream, err string
	}{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222", "", ""},
		{"nats://h:4222/COS_A", "nats://h:4222", "COS_A", ""},
		{"nats://a:1,nats://b:2/S", "nats://a:1,nats://b:2", "S", ""},
		{" tls://h:4222 ", "tls://h:4222", "", ""},
		{"", "", "", "empty"},
		{"http://h:4222", "", "", "scheme"},
		{"nats://h", "", "", "host or port"},
		{"nats://u:p@h:4222", "", "", "user information"},
		{"nats://h:4222/bad.name", "", "", "stream name"},
		{"nats://a:1/S,nats://b:2", "", "", "only the last"},
		{"nats://h:1?x=1", "", "", "query"},
	} {
		urls, stream, err := natslog.ParseStore(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseStore(%q) = %v, want an error saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || urls != c.urls || stream != c.stream {
			t.Errorf("ParseStore(%q) = %q, %q, %v; want %q, %q", c.in, urls, stream, err, c.urls, c.stream)
		}
	}
}

func TestDecodeToken_NamesTheRune(t *testing.T) {
	_, err := natslog.DecodeToken("evidence:é")
	if err == nil || !strings.Contains(err.Error(), `"é" at byte offset 9`) {
		t.Errorf("DecodeToken(evidence:é) = %v, want it to name \"é\" at byte offset 9", err)
	}
}
