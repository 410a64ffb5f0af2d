package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/cos-dev/cos/internal/httpauth"
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
var ErrBadOrigin = httpauth.ErrBadOrigin

// ParseOrigin returns s as a browser serialises an origin: scheme and host
// in lower case, the default port (80 for http, 443 for https) left out, no
// trailing slash.
func ParseOrigin(s string) (string, error) { return httpauth.ParseOrigin(s) }

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
	allowed, err := httpauth.NewOrigins(opts.AllowedOrigins)
	if err != nil {
		return err
	}
	list := allowed.List()
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
func (s *Server) httpFilter(secret string, allowed httpauth.Origins, next http.Handler) http.Handler {
	token := httpauth.NewToken(secret)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Values("Origin"); len(origin) > 0 {
			if !allowed.Allowed(r, origin) {
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
		if token.Set() {
			if msg, ok := token.CheckBearer(r.Header.Values("Authorization")); !ok {
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
