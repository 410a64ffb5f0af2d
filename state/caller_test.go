package state

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaller_EncodeParse(t *testing.T) {
	for _, tc := range []struct {
		in   Caller
		want Caller
	}{
		{Caller{Name: "claude-code", Version: "1.0.3", Session: "mcp-session-1"}, Caller{Name: "claude-code", Version: "1.0.3", Session: "mcp-session-1"}},
		{Caller{Name: "a&b=c d", Session: "stdio"}, Caller{Name: "a&b=c d", Session: "stdio"}},
		{Caller{Name: "evil\nname\x00", Version: "\t1"}, Caller{Name: "evilname", Version: "1"}},
		{Caller{Name: strings.Repeat("я", 200), Version: strings.Repeat("v", 100), Session: strings.Repeat("s", 300)},
			Caller{Name: strings.Repeat("я", 40), Version: strings.Repeat("v", 40), Session: strings.Repeat("s", 100)}},
	} {
		enc := tc.in.Encode()
		if len(enc) > clientMax || !utf8.ValidString(enc) {
			t.Errorf("%+v: encoded %d bytes %q", tc.in, len(enc), enc)
		}
		got := ParseCaller(enc)
		// A clipped part stays a prefix of what was sent.
		if !strings.HasPrefix(tc.want.Name, got.Name) || got.Version != tc.want.Version || !strings.HasPrefix(tc.want.Session, got.Session) || got.Name == "" {
			t.Errorf("%+v: round trip %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if got := ParseCaller("legacy client"); got != (Caller{Name: "legacy client"}) {
		t.Errorf("a bare name: %+v", got)
	}
	if (Caller{}).Encode() != "" || clientOf(context.Background(), "opt") != "opt" {
		t.Error("a zero caller must record the state's own client")
	}
	ctx := WithCaller(context.Background(), Caller{Name: "x", Session: "s"})
	if got := clientOf(ctx, "opt"); got != "name=x&session=s" {
		t.Errorf("clientOf: %q", got)
	}
}

func FuzzCaller(f *testing.F) {
	f.Add("claude-code", "1.0", "mcp-session-x")
	f.Add("a=b&c", "", "stdio")
	f.Add(strings.Repeat("é", 300), "\x00", "")
	f.Fuzz(func(t *testing.T, name, version, session string) {
		enc := Caller{Name: name, Version: version, Session: session}.Encode()
		if len(enc) > clientMax || !utf8.ValidString(enc) {
			t.Fatalf("encoded %d bytes, valid UTF-8 %v", len(enc), utf8.ValidString(enc))
		}
		got := ParseCaller(enc)
		if want := clean(name, callerNameMax); !strings.HasPrefix(want, got.Name) {
			t.Fatalf("name %q came back as %q", want, got.Name)
		}
	})
}
