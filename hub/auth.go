package hub

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/cos-dev/cos/envelope"
)

// CookieName is the cookie POST /api/login sets: HttpOnly, SameSite=Strict,
// Path=/, Secure over TLS. Its value is derived from the token (an HMAC),
// never the token itself.
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
//     else 401 E_UNAUTHORIZED with "WWW-Authenticate: Bearer".
func (h *Hub) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := h.checkOrigin(r); e != nil {
			h.fail(w, http.StatusForbidden, e)
			return
		}
		if e := h.checkToken(r); e != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cos"`)
			h.fail(w, http.StatusUnauthorized, e)
			return
		}
		next.ServeHTTP(w, r)
	})
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

// checkToken applies the token rule of guard.
func (h *Hub) checkToken(r *http.Request) *envelope.Error {
	if !h.token.Set() || h.authenticated(r) {
		return nil
	}
	msg := "this server requires a token: send the header Authorization: Bearer <token>, or log in with POST /api/login"
	if vals := r.Header.Values("Authorization"); len(vals) > 0 {
		msg, _ = h.token.CheckBearer(vals)
	} else if _, err := r.Cookie(CookieName); err == nil {
		msg = "the login cookie is not valid for this server (its token changed): log in again with POST /api/login"
	}
	return envelope.Errorf(envelope.CodeUnauthorized, "%s", msg)
}

// authenticated reports whether r carries the right bearer token or login
// cookie. It is true when no token is configured.
func (h *Hub) authenticated(r *http.Request) bool {
	if !h.token.Set() {
		return true
	}
	if vals := r.Header.Values("Authorization"); len(vals) > 0 {
		_, ok := h.token.CheckBearer(vals)
		return ok
	}
	c, err := r.Cookie(CookieName)
	if err != nil {
		return false
	}
	want := h.cookieValue()
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(want)) == 1
}

// cookieValue is the login cookie's value: an HMAC-SHA256 keyed with the
// configured token, so it changes when the token does and does not reveal it.
func (h *Hub) cookieValue() string { return h.cookie }

// login serves POST /api/login {"token": "…"}: the right token sets the
// login cookie (200, {"authenticated": true}); a wrong one is 401
// E_UNAUTHORIZED; a body that is not that JSON object is 400 E_ARGUMENT.
// Without a configured token it sets nothing and answers authenticated.
func (h *Hub) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, http.StatusMethodNotAllowed, envelope.Errorf(envelope.CodeArgument,
			"/api/login takes POST with the body {\"token\": \"…\"}, not %s", clip(r.Method, 20)).
			WithDetails(map[string]any{"method": clip(r.Method, 20), "allow": []string{http.MethodPost}}))
		return
	}
	if e := h.checkOrigin(r); e != nil {
		h.fail(w, http.StatusForbidden, e)
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
		h.logger.Warn("hub: login with a wrong token refused", "remote", r.RemoteAddr)
		h.fail(w, http.StatusUnauthorized, envelope.Errorf(envelope.CodeUnauthorized, "the token is wrong"))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: h.cookieValue(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	h.ok(w, map[string]any{"auth_required": true, "authenticated": true})
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
	h.ok(w, map[string]any{"auth_required": h.token.Set(), "authenticated": h.authenticated(r)})
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

// sessionSecretOf derives the login cookie's value from the token.
func sessionSecretOf(token string) string {
	if token == "" {
		return ""
	}
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("cos hub login cookie v1"))
	return hex.EncodeToString(m.Sum(nil))
}
