package hub

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/envelope"
)

// CookieName is the cookie POST /api/login sets: HttpOnly, SameSite=Strict,
// Path=/, Secure over TLS, Max-Age the session's idle timeout. Its value is
// a random session id the server holds in memory, never the token.
const CookieName = "cos_hub"

// maxLoginBytes bounds the body of POST /api/login.
const maxLoginBytes = 4096

// guard checks every /api request it wraps, in this order:
//
//   - a present Origin must be the server's own or an allowed one, else
//     403 E_ORIGIN; a write (any method but GET, HEAD, OPTIONS) without
//     Origin that the browser marks "Sec-Fetch-Site: cross-site" is
//     refused the same way;
//   - with no token configured, the Host header must name a loopback
//     address, localhost or an allowed origin's host (a page of another
//     site that made its own name resolve to 127.0.0.1 is refused: 403
//     E_ORIGIN);
//   - with a token, "Authorization: Bearer <token>" or the login cookie,
//     else 401 E_UNAUTHORIZED with "WWW-Authenticate: Bearer"; wrong
//     bearer tokens count as wrong logins, and an address that must wait
//     gets 429 with Retry-After for any bearer token until it has.
func (h *Hub) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := h.checkOrigin(r); e != nil {
			h.fail(w, http.StatusForbidden, e)
			return
		}
		if h.bearerWaits(w, r) {
			return
		}
		e := h.checkToken(w, r)
		h.noteBearer(r, e == nil)
		if e != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cos"`)
			h.fail(w, http.StatusUnauthorized, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A bearer token is tried like a login: the same throttle slows an
// address that keeps sending wrong ones, on every route that reads one.

// bearerWaits answers 429 with Retry-After and reports true when r
// carries a bearer token (a token being configured) from an address that
// must still wait after wrong tokens.
func (h *Hub) bearerWaits(w http.ResponseWriter, r *http.Request) bool {
	if !h.token.Set() || len(r.Header.Values("Authorization")) == 0 {
		return false
	}
	if d := h.throttle.wait(clientAddr(r.RemoteAddr)); d > 0 {
		h.tooMany(w, d)
		return true
	}
	return false
}

// noteBearer counts r's bearer token, if it carries one: a wrong one is a
// failure of its address, a right one starts the count over.
func (h *Hub) noteBearer(r *http.Request, right bool) {
	if !h.token.Set() || len(r.Header.Values("Authorization")) == 0 {
		return
	}
	if right {
		h.throttle.ok(clientAddr(r.RemoteAddr))
	} else {
		h.throttle.fail(clientAddr(r.RemoteAddr))
	}
}

// checkOrigin applies the Origin and Host rules of guard.
func (h *Hub) checkOrigin(r *http.Request) *envelope.Error {
	if origin := r.Header.Values("Origin"); len(origin) > 0 {
		if !h.origins.Allowed(r, origin) {
			o := clip(strings.Join(origin, ", "), 200)
			h.logger.Warn("hub: request from a foreign origin refused", "origin", o, "path", clip(r.URL.Path, 200))
			return envelope.Errorf(envelope.CodeOrigin,
				"requests from origin %q are refused: it is not this server's own origin nor one it allows "+
					"(whoever runs the server can allow it with --allow-origin)", o).
				WithDetails(map[string]any{"origin": o})
		}
	} else if isWrite(r.Method) && strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") {
		return envelope.Errorf(envelope.CodeOrigin,
			"a write from a page of another site is refused; open the Hub itself to make changes").
			WithDetails(map[string]any{"sec_fetch_site": "cross-site"})
	}
	if !h.token.Set() && !h.localHost(r.Host) {
		host := clip(r.Host, 200)
		return envelope.Errorf(envelope.CodeOrigin,
			"requests for host %q are refused: without a token this server answers only for localhost and loopback addresses "+
				"(start it with --token to serve other names)", host).
			WithDetails(map[string]any{"host": host})
	}
	return nil
}

// localHost reports whether the Host header names a loopback address,
// localhost, the address the request came in on, or the host of an
// allowed origin.
func (h *Hub) localHost(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if host == "localhost" || h.hosts[host] {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken applies the token rule of guard. A login session used after
// a minute or more gets its cookie again, so its Max-Age counts from now.
func (h *Hub) checkToken(w http.ResponseWriter, r *http.Request) *envelope.Error {
	if !h.token.Set() {
		return nil
	}
	ok, since := h.authenticated(r)
	if ok {
		if since >= time.Minute {
			h.setCookie(w, r, sessionID(r))
		}
		return nil
	}
	msg := "this server requires a token: send the header Authorization: Bearer <token>, or log in with POST /api/login"
	if vals := r.Header.Values("Authorization"); len(vals) > 0 {
		msg, _ = h.token.CheckBearer(vals)
	} else if _, err := r.Cookie(CookieName); err == nil {
		msg = "the login session has ended (idle too long, logged out, or the server restarted): log in again with POST /api/login"
	}
	return envelope.Errorf(envelope.CodeUnauthorized, "%s", msg)
}

// authenticated reports whether r carries the right bearer token or the
// cookie of an open login session (since: how long that session had not
// been used). It is true when no token is configured.
func (h *Hub) authenticated(r *http.Request) (ok bool, since time.Duration) {
	if !h.token.Set() {
		return true, 0
	}
	if vals := r.Header.Values("Authorization"); len(vals) > 0 {
		_, ok := h.token.CheckBearer(vals)
		return ok, 0
	}
	id := sessionID(r)
	if id == "" {
		return false, 0
	}
	since, ok = h.sessions.use(id)
	return ok, since
}

// sessionID is the login cookie's value ("" without one).
func sessionID(r *http.Request) string {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// setCookie sets the login cookie to session id, for the session's idle
// timeout (id "": deletes it).
func (h *Hub) setCookie(w http.ResponseWriter, r *http.Request, id string) {
	maxAge := int(h.sessions.idle / time.Second)
	if id == "" {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// login serves POST /api/login {"token": "…"}: the right token opens a
// session and sets its cookie (200, {"authenticated": true}); a wrong one
// is 401 E_UNAUTHORIZED; a body that is not that JSON object is 400
// E_ARGUMENT, one not sent as application/json 415. After
// loginFreeFailures wrong tokens from one address, it must wait (1 s,
// doubled with each further failure, at most 5 min) and a login before
// then is 429 E_UNAUTHORIZED with Retry-After, whatever its token.
// Without a configured token it sets nothing and answers authenticated.
func (h *Hub) login(w http.ResponseWriter, r *http.Request) {
	if !h.jsonPost(w, r, "/api/login takes POST with the body {\"token\": \"…\"}") {
		return
	}
	addr := clientAddr(r.RemoteAddr)
	if d := h.throttle.wait(addr); d > 0 {
		h.tooMany(w, d)
		return
	}
	var body struct {
		Token *string `json:"token"`
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLoginBytes))
	if err != nil {
		h.fail(w, http.StatusBadRequest, envelope.Errorf(envelope.CodeArgument,
			"the login body is over %d bytes or could not be read; send {\"token\": \"…\"}", maxLoginBytes))
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Token == nil || dec.More() {
		h.fail(w, http.StatusBadRequest, envelope.Errorf(envelope.CodeArgument,
			"the login body must be the JSON object {\"token\": \"…\"} with no other key").
			WithDetails(map[string]any{"field": "token", "example": map[string]any{"token": "…"}}))
		return
	}
	if !h.token.Set() {
		h.ok(w, map[string]any{"auth_required": false, "authenticated": true})
		return
	}
	if !h.token.Equal(*body.Token) {
		d := h.throttle.fail(addr)
		h.logger.Warn("hub: login with a wrong token refused", "remote", r.RemoteAddr, "wait", d)
		e := envelope.Errorf(envelope.CodeUnauthorized, "the token is wrong")
		if d > 0 {
			e = envelope.Errorf(envelope.CodeUnauthorized, "the token is wrong; after %d wrong tokens, the next login from this address waits %s",
				loginFreeFailures, d).WithDetails(map[string]any{"retry_after_s": retrySeconds(d)})
		}
		h.fail(w, http.StatusUnauthorized, e)
		return
	}
	h.throttle.ok(addr)
	if old := sessionID(r); old != "" {
		h.sessions.close(old)
	}
	h.setCookie(w, r, h.sessions.open())
	h.ok(w, map[string]any{"auth_required": true, "authenticated": true})
}

// tooMany answers a login tried before its wait is over: 429 with
// Retry-After.
func (h *Hub) tooMany(w http.ResponseWriter, d time.Duration) {
	s := retrySeconds(d)
	w.Header().Set("Retry-After", strconv.Itoa(s))
	h.fail(w, http.StatusTooManyRequests, envelope.Errorf(envelope.CodeUnauthorized,
		"too many wrong tokens from this address: try again in %d s", s).
		WithDetails(map[string]any{"retry_after_s": s}))
}

// retrySeconds is d in whole seconds, rounded up, at least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// jsonPost checks a session route's write as every write is checked: POST
// (else 405 with Allow; usage says what the route takes), the Origin rule
// (403) and a JSON body (415: a form post cannot make one). It reports
// whether r passed; a failure is answered.
func (h *Hub) jsonPost(w http.ResponseWriter, r *http.Request, usage string) bool {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, http.StatusMethodNotAllowed, envelope.Errorf(envelope.CodeArgument, "%s, not %s", usage, clip(r.Method, 20)).
			WithDetails(map[string]any{"method": clip(r.Method, 20), "allow": []string{http.MethodPost}}))
		return false
	}
	if e := h.checkOrigin(r); e != nil {
		h.fail(w, http.StatusForbidden, e)
		return false
	}
	if e := jsonContentType(r); e != nil {
		h.fail(w, http.StatusUnsupportedMediaType, e)
		return false
	}
	return true
}

// logout serves POST /api/logout: it ends the request's login session
// and deletes its cookie, 200 {"auth_required", "authenticated": false}.
// It needs no token (ending a session that already ended is no error)
// and passes the Origin check like any write.
func (h *Hub) logout(w http.ResponseWriter, r *http.Request) {
	if !h.jsonPost(w, r, "/api/logout takes POST") {
		return
	}
	if id := sessionID(r); id != "" {
		h.sessions.close(id)
	}
	if h.token.Set() {
		h.setCookie(w, r, "")
	}
	h.ok(w, map[string]any{"auth_required": h.token.Set(), "authenticated": false})
}

// session serves GET /api/session: {"auth_required", "authenticated"},
// so the page knows whether to ask for the token.
func (h *Hub) session(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.fail(w, http.StatusMethodNotAllowed, envelope.Errorf(envelope.CodeArgument,
			"/api/session takes GET, not %s", clip(r.Method, 20)).
			WithDetails(map[string]any{"method": clip(r.Method, 20), "allow": []string{http.MethodGet, http.MethodHead}}))
		return
	}
	if e := h.checkOrigin(r); e != nil {
		h.fail(w, http.StatusForbidden, e)
		return
	}
	if h.bearerWaits(w, r) {
		return
	}
	ok, _ := h.authenticated(r)
	h.noteBearer(r, ok)
	h.ok(w, map[string]any{"auth_required": h.token.Set(), "authenticated": ok})
}

// ok writes a success envelope of data.
func (h *Hub) ok(w http.ResponseWriter, data map[string]any) {
	writeEnvelope(w, h.logger, http.StatusOK, envelope.OK(data, envelope.Meta{LogSeq: h.st.Position().Seq},
		envelope.Options{NoBudget: true}))
}

// fail writes a failure envelope with status.
func (h *Hub) fail(w http.ResponseWriter, status int, e *envelope.Error) {
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfterSeconds)
	}
	writeEnvelope(w, h.logger, status, envelope.Fail(e))
}

// isWrite reports whether method changes something.
func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// hostOfOrigin returns the host of a normalised origin, lower case,
// without brackets or port.
func hostOfOrigin(origin string) string {
	_, rest, _ := strings.Cut(origin, "://")
	if h, _, err := net.SplitHostPort(rest); err == nil {
		rest = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]"))
}

// jsonContentType refuses a request whose Content-Type is not
// application/json (parameters such as charset aside), a missing one
// included: E_ARGUMENT, answered 415.
func jsonContentType(r *http.Request) *envelope.Error {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	got := "none"
	if ct != "" {
		got = strconv.Quote(clip(ct, 80))
	}
	return envelope.Errorf(envelope.CodeArgument, "send the body as JSON with the header Content-Type: application/json; got Content-Type %s", got).
		WithDetails(map[string]any{"field": "Content-Type", "got": clip(ct, 80), "expected": "application/json"})
}
