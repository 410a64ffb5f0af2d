package state

import (
	"context"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caller is who a write is made for, beyond the process: the MCP client's
// name and version (clientInfo of its initialize request) and the session
// it speaks in. It is recorded in each event's actor.client as the URL
// query "name=…&session=…&version=…" (Encode), within the 256 bytes the log
// allows; ParseCaller reads it back.
type Caller struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	Session string `json:"session,omitempty"`
}

// Longest part of a Caller kept, in bytes, before escaping: what arrives
// over the network is clipped, never refused.
const (
	callerNameMax    = 80
	callerVersionMax = 40
	callerSessionMax = 100
	// clientMax is eventlog's limit on actor.client, in bytes.
	clientMax = 256
)

type callerKey struct{}

// WithCaller returns ctx carrying c: every request State.Append appends
// under it that names no client records c.Encode(). A zero c leaves ctx
// as it is.
func WithCaller(ctx context.Context, c Caller) context.Context {
	if c == (Caller{}) {
		return ctx
	}
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller ctx carries, and false when it carries
// none.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// clientOf is what Append records for a request that names no client: the
// ctx's caller, else the state's own Options.Client.
func clientOf(ctx context.Context, def string) string {
	if c, ok := CallerFrom(ctx); ok {
		if s := c.Encode(); s != "" {
			return s
		}
	}
	return def
}

// Encode returns c as recorded in actor.client: at most 256 bytes of valid
// UTF-8, control characters dropped, each part clipped; "" for a zero
// Caller.
func (c Caller) Encode() string {
	c = Caller{Name: clean(c.Name, callerNameMax), Version: clean(c.Version, callerVersionMax), Session: clean(c.Session, callerSessionMax)}
	if c == (Caller{}) {
		return ""
	}
	for {
		v := url.Values{}
		for _, kv := range [][2]string{{"name", c.Name}, {"version", c.Version}, {"session", c.Session}} {
			if kv[1] != "" {
				v.Set(kv[0], kv[1])
			}
		}
		s := v.Encode()
		if len(s) <= clientMax {
			return s
		}
		// Escaping grew it past the limit (a name of many multi-byte
		// characters): clip the longest part and try again.
		switch {
		case len(c.Name) >= len(c.Session) && len(c.Name) >= len(c.Version):
			c.Name = clean(c.Name, len(c.Name)/2)
		case len(c.Session) >= len(c.Version):
			c.Session = clean(c.Session, len(c.Session)/2)
		default:
			c.Version = clean(c.Version, len(c.Version)/2)
		}
	}
}

// ParseCaller reads an actor.client back: an encoded Caller, or any other
// text (a client recorded by an older cos, Options.Client) as the name.
func ParseCaller(client string) Caller {
	if client == "" {
		return Caller{}
	}
	if strings.Contains(client, "=") {
		if v, err := url.ParseQuery(client); err == nil && (v.Has("name") || v.Has("session") || v.Has("version")) {
			return Caller{Name: v.Get("name"), Version: v.Get("version"), Session: v.Get("session")}
		}
	}
	return Caller{Name: client}
}

// clean drops control characters and invalid UTF-8 from s and clips it to
// at most n bytes on a character boundary.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
