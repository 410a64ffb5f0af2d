package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
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
	// SessionDir, when set, is the folder where each HTTP session keeps
	// what re-creating it needs (http_sessions.go), so a client that keeps
	// its session id goes on after the server restarts. Empty: sessions
	// end with the process.
	SessionDir string
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
	// Stateful sessions: a session id is valid once this server issued it
	// or re-created it from its record, until it ends (DELETE, or idle past
	// ttl): a forged or ended id is answered 404, and the client
	// initializes again.
	store, err := newSessionStore(opts.SessionDir, ttl, s.logger)
	if err != nil {
		return err
	}
	httpOpts := []mcpserver.StreamableHTTPOption{mcpserver.WithEndpointPath(Path), mcpserver.WithSessionIdManagerResolver(store),
		mcpserver.WithSessionIdleTTL(ttl), mcpserver.WithHeartbeatInterval(min(ListenHeartbeat, ttl/2))}
	if len(list) > 0 {
		httpOpts = append(httpOpts, mcpserver.WithStreamableHTTPCORS(mcpserver.WithCORSAllowedOrigins(list...)))
	}
	srv := s.MCP()
	recordSessions(srv, store)
	streamable := mcpserver.NewStreamableHTTPServer(srv, httpOpts...)
	mux.Handle(Path, s.httpFilter(opts.Token, allowed, store, streamable))
	return nil
}

// recordSessions keeps store's records in step with srv's sessions: what
// an initialize said, and the resources a session subscribes to.
func recordSessions(srv *mcpserver.MCPServer, store *sessionStore) {
	hooks := srv.GetHooks() // setupLive made sure there are hooks
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil && session.SessionID() != "" {
			store.initialized(session.SessionID(), req, res)
		}
	})
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			store.subscribed(session.SessionID(), req.Params.URI, true)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if session := mcpserver.ClientSessionFromContext(ctx); session != nil {
			store.subscribed(session.SessionID(), req.Params.URI, false)
		}
	})
}

// httpFilter checks the origin, the bearer token and the body size,
// re-creates a recorded session this process does not know, refuses a
// message other than initialize without a session id (400), and answers
// unknown tools like the stdio filter does.
func (s *Server) httpFilter(secret string, allowed httpauth.Origins, store *sessionStore, next http.Handler) http.Handler {
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
		if id := r.Header.Get(mcpserver.HeaderKeySessionID); id != "" && r.Method != http.MethodDelete {
			if !store.known(id) {
				store.revive(r, next, id)
			}
			if r.Method == http.MethodGet && !store.known(id) {
				// A GET stream of a session nobody issued would listen to
				// nothing: refuse it as a POST naming it is refused.
				http.Error(w, "session "+strconv.Quote(clip(id, 80))+" is unknown or has ended", http.StatusNotFound)
				return
			}
			store.touch(id)
		} else if r.Method == http.MethodDelete && id == "" {
			http.Error(w, "DELETE ends a session: send its Mcp-Session-Id", http.StatusBadRequest)
			return
		} else if id != "" && !store.known(id) && !store.recorded(id) {
			// A DELETE of a session nobody issued (or one already ended)
			// ends nothing: say so, as for any other request naming it.
			http.Error(w, "session "+strconv.Quote(clip(id, 80))+" is unknown or has ended", http.StatusNotFound)
			return
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
			if msg := sessionlessMessage(r, body); msg != "" {
				http.Error(w, msg, http.StatusBadRequest)
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

// sessionlessMessage returns why a POST without Mcp-Session-Id is refused
// (400, as the transport spec asks of a server that issues sessions): it
// carries a message other than initialize. It returns "" for one with a
// session id, an initialize, a body that is not one JSON-RPC object
// (mcp-go answers those), and a request of a protocol without sessions
// (2026-07-28 on).
func sessionlessMessage(r *http.Request, body []byte) string {
	if r.Header.Get(mcpserver.HeaderKeySessionID) != "" || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		return ""
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == string(mcp.MethodInitialize) {
		return ""
	}
	if v, ok := m.Params.Meta[mcp.MetaKeyProtocolVersion].(string); ok && mcp.IsModernProtocol(v) {
		return ""
	}
	what := "a " + m.Method + " message"
	if m.Method == "" {
		what = "a message"
	}
	return "Bad Request: " + what + " needs the Mcp-Session-Id header of an initialized session; send initialize first"
}
