package natslog

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ParseStore splits a store address "nats://host:port[/STREAM]" — or a
// comma-separated list of servers, "nats://h1:4222,nats://h2:4222/STREAM",
// where only the last may name the stream — into the server URLs to dial
// (comma-separated, as nats.Connect takes them) and the stream name (empty
// when none is given: Options.Stream's default applies). tls:// is accepted
// too. Errors name what is wrong: another scheme, a missing host or port, a
// port outside 1–65535, a stream name that is not 1–32 letters, digits,
// '_' or '-', user information (credentials belong in the environment, not
// in a flag).
func ParseStore(s string) (urls string, stream string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", fmt.Errorf("store address is empty, want nats://host:port[/STREAM]")
	}
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		u, err := url.Parse(p)
		if err != nil || p == "" {
			return "", "", fmt.Errorf("store address %q: server %d is not a URL like nats://host:port", s, i+1)
		}
		switch u.Scheme {
		case "nats", "tls":
		default:
			return "", "", fmt.Errorf("store address %q: scheme %q, want nats:// or tls://", s, u.Scheme)
		}
		if u.User != nil {
			return "", "", fmt.Errorf("store address %q: holds user information; pass credentials another way", s)
		}
		if u.Hostname() == "" || u.Port() == "" {
			return "", "", fmt.Errorf("store address %q: server %q lacks a host or port, want nats://host:port", s, p)
		}
		if n, err := strconv.Atoi(u.Port()); err != nil || n < 1 || n > 65535 {
			return "", "", fmt.Errorf("store address %q: server %q: port %s is not a number from 1 to 65535", s, p, u.Port())
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return "", "", fmt.Errorf("store address %q: a query or fragment is not allowed", s)
		}
		if path := strings.Trim(u.Path, "/"); path != "" {
			if i != len(parts)-1 {
				return "", "", fmt.Errorf("store address %q: only the last server may name the stream", s)
			}
			if !validStreamName(path) {
				return "", "", fmt.Errorf("store address %q: stream name %q must be 1-32 letters, digits, '_' or '-'", s, path)
			}
			stream = path
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return strings.Join(out, ","), stream, nil
}
