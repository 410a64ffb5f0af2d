// Package httpauth holds the request checks the HTTP surfaces of cos share
// (MCP at /mcp, the Hub at / and /api): the bearer token, compared in
// constant time, and the Origin rules a browser's request must pass.
package httpauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ErrBadOrigin is returned by ParseOrigin (wrapped, with the value) for a
// string that is not an origin.
var ErrBadOrigin = errors.New("not an origin: want scheme://host[:port] with scheme http or https and no path, query or user")

// ParseOrigin returns s as a browser serialises an origin: scheme and host
// in lower case, the default port (80 for http, 443 for https) left out, no
// trailing slash. It returns ErrBadOrigin (wrapped) for anything else.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q: %w", s, ErrBadOrigin)
	}
	scheme := u.Scheme // url.Parse lower-cases it
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q: port %q: %w", s, port, ErrBadOrigin)
		}
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, nil
	}
	return scheme + "://" + host, nil
}

// Origins is a set of allowed origins, each as ParseOrigin returns it.
type Origins struct {
	set  map[string]bool
	list []string
}

// NewOrigins parses every origin of list; the error names the first bad
// one (ErrBadOrigin, wrapped). Duplicates count once.
func NewOrigins(list []string) (Origins, error) {
	o := Origins{set: make(map[string]bool, len(list))}
	for _, s := range list {
		norm, err := ParseOrigin(s)
		if err != nil {
			return Origins{}, err
		}
		if !o.set[norm] {
			o.set[norm] = true
			o.list = append(o.list, norm)
		}
	}
	return o, nil
}

// List returns the allowed origins, normalised, in the order given.
func (o Origins) List() []string { return append([]string(nil), o.list...) }

// Allowed reports whether the Origin header values of r (a browser sends
// exactly one) name the server's own origin (OwnOrigin) or one of o.
// "null" (an opaque origin) and anything malformed are refused.
func (o Origins) Allowed(r *http.Request, values []string) bool {
	if len(values) != 1 {
		return false
	}
	origin, err := ParseOrigin(values[0])
	if err != nil {
		return false
	}
	if o.set[origin] {
		return true
	}
	return OwnOrigin(r, origin)
}

// OwnOrigin reports whether origin (as ParseOrigin returns it) is http at
// the local address and port of r's connection, or, on a loopback
// connection, at localhost or a loopback address and that port.
func OwnOrigin(r *http.Request, origin string) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if !ok {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if port != strconv.Itoa(local.Port) {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		return ip.Equal(local.IP) || (ip.IsLoopback() && local.IP.IsLoopback())
	}
	return host == "localhost" && local.IP.IsLoopback()
}

// Token is a configured secret, kept as its SHA-256 so that comparisons
// take the same time whatever the bytes or the length of the guess.
type Token struct {
	set    bool
	digest [32]byte
}

// NewToken returns the Token for secret; an empty secret is a Token that
// is not set (no token is asked for).
func NewToken(secret string) Token {
	if secret == "" {
		return Token{}
	}
	return Token{set: true, digest: sha256.Sum256([]byte(secret))}
}

// Set reports whether a token is configured.
func (t Token) Set() bool { return t.set }

// Equal reports, in constant time, whether guess is the token. It is false
// when no token is set.
func (t Token) Equal(guess string) bool {
	got := sha256.Sum256([]byte(guess))
	return t.set && subtle.ConstantTimeCompare(got[:], t.digest[:]) == 1
}

// AskBearer is the message a request without credentials is answered with.
const AskBearer = "this server requires the header Authorization: Bearer <token>"

// CheckBearer checks the Authorization header values against t (RFC 9110
// credentials: the scheme is case-insensitive and followed by one or more
// spaces; RFC 6750 Bearer). It returns a message for the 401 when the
// check fails.
func (t Token) CheckBearer(values []string) (string, bool) {
	switch {
	case len(values) == 0:
		return AskBearer, false
	case len(values) > 1:
		return "more than one Authorization header; send exactly one: Authorization: Bearer <token>", false
	}
	scheme, rest, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return fmt.Sprintf("the Authorization scheme must be Bearer, not %q; %s", scheme, AskBearer), false
	}
	if !t.Equal(strings.TrimLeft(rest, " ")) {
		return "the bearer token is wrong", false
	}
	return "", true
}
