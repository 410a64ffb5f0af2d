package mcp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Path is where Mount serves MCP over streamable HTTP.
const Path = "/mcp"

// HTTPOptions configure Mount.
type HTTPOptions struct {
	// Token, when set, is required on every request as
	// "Authorization: Bearer <token>" (the scheme in any case). A request
	// without it, with another scheme or with another token is answered 401
	// with "WWW-Authenticate: Bearer". Empty: no token is asked for.
	Token string
	// AllowedOrigins are the origins ("scheme://host[:port]", as a browser
	// sends them in the Origin header) whose requests are served besides the
	// server's own; they also get CORS headers. A request with any other
	// Origin is answered 403. Requests without Origin (non-browser clients)
	// are not affected.
	AllowedOrigins []string
	// SessionIdleTTL is how long an HTTP session may stay silent (no
	// request, nothing written to its GET stream) before it is ended and
	// its subscriptions dropped: a client that vanishes without a DELETE
	// must not hold them forever. 0 means DefaultSessionIdleTTL. A GET
	// stream is kept alive by a ping every ListenHeartbeat.
	SessionIdleTTL time.Duration
}

// DefaultSessionIdleTTL is HTTPOptions.SessionIdleTTL's default: 10
// minutes.
const DefaultSessionIdleTTL = 10 * time.Minute

// ListenHeartbeat is how often a session's GET stream gets a ping, which
// keeps a listening client's session alive (well inside the idle TTL).
const ListenHeartbeat = 30 * time.Second

// Validate checks every allowed origin; the error names the first bad one.
func (o HTTPOptions) Validate() error {
	if o.SessionIdleTTL < 0 {
		return fmt.Errorf("session idle TTL %v is negative", o.SessionIdleTTL)
	}
	for _, s := range o.AllowedOrigins {
		if _, err := ParseOrigin(s); err != nil {
			return err
		}
	}
	return nil
}

// ErrBadOrigin is returned by ParseOrigin (wrapped, with the value) for a
// string that is not an origin.
var ErrBadOrigin = errors.New("not an origin: want scheme://host[:port] with scheme http or https and no path, query or user")

// ParseOrigin returns s as a browser serialises an origin: scheme and host
// in lower case, the default port (80 for http, 443 for https) left out, no
// trailing slash.
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

// Mount serves MCP over streamable HTTP at Path on mux. Every request is
// checked in this order: a present Origin must be the server's own (http on
// the address and port the request came in on; for a loopback address also
// localhost and the other loopback addresses) or one of
// opts.AllowedOrigins, else 403; the bearer token, else 401; a POST body
// must fit MaxMessageBytes, else 413. It returns opts.Validate's error.
func (s *Server) Mount(mux *http.ServeMux, opts HTTPOptions) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	allowed := make(map[string]bool, len(opts.AllowedOrigins))
	var list []string
	for _, o := range opts.AllowedOrigins {
		norm, _ := ParseOrigin(o)
		if !allowed[norm] {
			allowed[norm] = true
			list = append(list, norm)
		}
	}
	ttl := opts.SessionIdleTTL
	if ttl == 0 {
		ttl = DefaultSessionIdleTTL
	}
	// Stateful sessions: a session id is valid only once this server issued
	// it and until it ends (DELETE, or idle past ttl): a forged or ended id
	// is answered 404, and the client initializes again.
	httpOpts := []mcpserver.StreamableHTTPOption{mcpserver.WithEndpointPath(Path), mcpserver.WithStateful(true),
		mcpserver.WithSessionIdleTTL(ttl), mcpserver.WithHeartbeatInterval(min(ListenHeartbeat, ttl/2))}
	if len(list) > 0 {
		httpOpts = append(httpOpts, mcpserver.WithStreamableHTTPCORS(mcpserver.WithCORSAllowedOrigins(list...)))
	}
	streamable := mcpserver.NewStreamableHTTPServer(s.MCP(), httpOpts...)
	mux.Handle(Path, s.httpFilter(opts.Token, allowed, streamable))
	return nil
}

// httpFilter checks the origin, the bearer token and the body size, and
// answers unknown tools like the stdio filter does.
func (s *Server) httpFilter(token string, allowed map[string]bool, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Values("Origin"); len(origin) > 0 {
			if !originAllowed(r, origin, allowed) {
				s.logger.Warn("http: request from a foreign origin refused", "origin", strings.Join(origin, ", "))
				http.Error(w, fmt.Sprintf("requests from origin %q are refused: it is not this server's own origin nor one it allows "+
					"(whoever runs the server can allow it with --allow-origin)", strings.Join(origin, ", ")), http.StatusForbidden)
				return
			}
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				next.ServeHTTP(w, r) // a CORS preflight carries no credentials
				return
			}
		}
		if token != "" {
			if msg, ok := checkBearer(r.Header.Values("Authorization"), want); !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cos"`)
				http.Error(w, msg, http.StatusUnauthorized)
				return
			}
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				http.Error(w, fmt.Sprintf("request body is over the limit of %d bytes (%s) for one message",
					MaxMessageBytes, sizeText(MaxMessageBytes)), http.StatusRequestEntityTooLarge)
				return
			case err != nil:
				http.Error(w, "reading the request body failed: "+err.Error(), http.StatusBadRequest)
				return
			}
			if resp := s.unknownToolResponse(r.Header.Get(mcpserver.HeaderKeySessionID), body); resp != nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(resp)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			cw := &cancelAwareWriter{ResponseWriter: w} // cancel.go
			next.ServeHTTP(cw, r)
			cw.flushStatus()
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkBearer checks Authorization header values against the SHA-256 of
// the token (RFC 9110 credentials: the scheme is case-insensitive and
// followed by one or more spaces; RFC 6750 Bearer). It compares digests in
// constant time, so neither the token's bytes nor its length leak through
// timing. It returns a message for the 401 when the check fails.
func checkBearer(values []string, want [32]byte) (string, bool) {
	const ask = "this server requires the header Authorization: Bearer <token>"
	switch {
	case len(values) == 0:
		return ask, false
	case len(values) > 1:
		return "more than one Authorization header; send exactly one: Authorization: Bearer <token>", false
	}
	scheme, rest, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return fmt.Sprintf("the Authorization scheme must be Bearer, not %q; %s", scheme, ask), false
	}
	got := sha256.Sum256([]byte(strings.TrimLeft(rest, " ")))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return "the bearer token is wrong", false
	}
	return "", true
}

// originAllowed reports whether the Origin header values (a browser sends
// exactly one) name the server's own origin or an allowed one.
func originAllowed(r *http.Request, values []string, allowed map[string]bool) bool {
	if len(values) != 1 {
		return false
	}
	origin, err := ParseOrigin(values[0])
	if err != nil {
		return false // "null" (an opaque origin) and anything malformed
	}
	if allowed[origin] {
		return true
	}
	return ownOrigin(r, origin)
}

// ownOrigin reports whether origin (as ParseOrigin returns it) is http at
// the local address and port of r's connection, or, on a loopback
// connection, at localhost or a loopback address and that port.
func ownOrigin(r *http.Request, origin string) bool {
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
