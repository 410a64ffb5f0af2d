package hub_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/hub"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// login posts the token and returns the answer's login cookie (nil: none).
func (f *liveHub) login(tb testing.TB, token string) (*http.Response, *http.Cookie) {
	tb.Helper()
	resp, _ := f.do(tb, http.MethodPost, "/api/login", `{"token":"`+token+`"}`, nil)
	for _, c := range resp.Cookies() {
		if c.Name == hub.CookieName {
			return resp, c
		}
	}
	return resp, nil
}

// TestAuth_SessionExpiresWhenIdle: a login session is a random id, not a
// function of the token; its cookie has the idle timeout as Max-Age; use
// keeps it open and idleness past the timeout ends it.
func TestAuth_SessionExpiresWhenIdle(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f := openLiveHub(t, "", hub.WithClock(hub.Options{Token: testToken, SessionIdle: time.Hour}, clock.now))
	resp, c1 := f.login(t, testToken)
	if resp.StatusCode != 200 || c1 == nil || c1.MaxAge != 3600 {
		t.Fatalf("login: %d cookie %+v; want a cookie with Max-Age 3600", resp.StatusCode, c1)
	}
	_, c2 := f.login(t, testToken)
	if c2 == nil || c2.Value == c1.Value || len(c1.Value) < 32 {
		t.Fatalf("two logins gave cookies %q and %q: want distinct random session ids", c1.Value, c2.Value)
	}
	read := func(c *http.Cookie) (*http.Response, map[string]any) {
		return f.do(t, http.MethodGet, "/api/health", "", map[string]string{"Cookie": hub.CookieName + "=" + c.Value})
	}
	for range 3 { // used every 50 minutes: it stays open past the hour
		clock.add(50 * time.Minute)
		resp, doc := read(c1)
		if resp.StatusCode != 200 {
			t.Fatalf("read after 50 min idle: %d %v", resp.StatusCode, doc)
		}
		if rc := resp.Cookies(); len(rc) != 1 || rc[0].Value != c1.Value || rc[0].MaxAge != 3600 {
			t.Fatalf("a session used again after 50 min got cookies %+v; want its cookie again with Max-Age 3600", rc)
		}
	}
	clock.add(61 * time.Minute)
	resp, doc := read(c1)
	if resp.StatusCode != 401 || failCode(doc) != "E_UNAUTHORIZED" || !strings.Contains(errMessage(doc), "log in again") {
		t.Fatalf("read after 61 min idle: %d %v; want 401 E_UNAUTHORIZED asking to log in again", resp.StatusCode, doc)
	}
	if resp, doc := read(c2); resp.StatusCode != 401 {
		t.Fatalf("the other session, idle 3 h: %d %v; want 401", resp.StatusCode, doc)
	}
	_, doc = f.do(t, http.MethodGet, "/api/session", "", map[string]string{"Cookie": hub.CookieName + "=" + c1.Value})
	if data, _ := doc["data"].(map[string]any); data["authenticated"] != false {
		t.Fatalf("session of an ended login: %v; want authenticated false", doc)
	}
}

// TestAuth_Logout: POST /api/logout ends the session and deletes the
// cookie; the cookie no longer opens the API; a foreign origin may not
// log anyone out.
func TestAuth_Logout(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{Token: testToken})
	_, c := f.login(t, testToken)
	if c == nil || c.MaxAge != int(hub.DefaultSessionIdle/time.Second) {
		t.Fatalf("login cookie %+v; want Max-Age %d", c, int(hub.DefaultSessionIdle/time.Second))
	}
	hdr := map[string]string{"Cookie": hub.CookieName + "=" + c.Value}
	if resp, doc := f.do(t, http.MethodGet, "/api/health", "", hdr); resp.StatusCode != 200 {
		t.Fatalf("read with the cookie: %d %v", resp.StatusCode, doc)
	}
	foreign := map[string]string{"Cookie": hub.CookieName + "=" + c.Value, "Origin": "https://evil.example"}
	if resp, doc := f.do(t, http.MethodPost, "/api/logout", "{}", foreign); resp.StatusCode != 403 || failCode(doc) != "E_ORIGIN" {
		t.Fatalf("logout from a foreign origin: %d %v; want 403 E_ORIGIN", resp.StatusCode, doc)
	}
	resp, doc := f.do(t, http.MethodPost, "/api/logout", "{}", hdr)
	data, _ := doc["data"].(map[string]any)
	if resp.StatusCode != 200 || data["authenticated"] != false || data["auth_required"] != true {
		t.Fatalf("logout: %d %v", resp.StatusCode, doc)
	}
	if rc := resp.Cookies(); len(rc) != 1 || rc[0].Name != hub.CookieName || rc[0].MaxAge >= 0 || rc[0].Value != "" {
		t.Fatalf("logout set cookies %+v; want %s deleted", rc, hub.CookieName)
	}
	if resp, doc := f.do(t, http.MethodGet, "/api/health", "", hdr); resp.StatusCode != 401 || failCode(doc) != "E_UNAUTHORIZED" {
		t.Fatalf("read with the cookie after logout: %d %v; want 401", resp.StatusCode, doc)
	}
	if resp, doc := f.do(t, http.MethodPost, "/api/logout", "{}", nil); resp.StatusCode != 200 {
		t.Fatalf("logout without a session: %d %v; want 200", resp.StatusCode, doc)
	}
	open := openLiveHub(t, "", hub.Options{})
	if resp, doc := open.do(t, http.MethodPost, "/api/logout", "{}", nil); resp.StatusCode != 200 || len(resp.Cookies()) != 0 {
		t.Fatalf("logout without a token: %d %v cookies %v; want 200 and no cookie", resp.StatusCode, doc, resp.Cookies())
	}
}

// TestAuth_LoginThrottle: after 5 wrong tokens from one address, a login
// before the wait is over is 429 with Retry-After whatever its token; the
// wait doubles with each further failure; the right token after the wait
// works and starts the count over.
func TestAuth_LoginThrottle(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f := openLiveHub(t, "", hub.WithClock(hub.Options{Token: testToken}, clock.now))
	for i := 1; i <= 5; i++ {
		if resp, doc := f.do(t, http.MethodPost, "/api/login", `{"token":"wrong"}`, nil); resp.StatusCode != 401 {
			t.Fatalf("wrong token %d: %d %v; want 401", i, resp.StatusCode, doc)
		}
	}
	tooMany := func(wantRetry string) {
		t.Helper()
		resp, c := f.login(t, testToken)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != wantRetry || c != nil {
			t.Fatalf("right token while throttled: %d Retry-After %q cookie %v; want 429 Retry-After %s and no cookie",
				resp.StatusCode, resp.Header.Get("Retry-After"), c, wantRetry)
		}
	}
	tooMany("1")
	clock.add(time.Second)
	if resp, doc := f.do(t, http.MethodPost, "/api/login", `{"token":"wrong"}`, nil); resp.StatusCode != 401 {
		t.Fatalf("wrong token 6: %d %v; want 401", resp.StatusCode, doc)
	}
	tooMany("2")
	clock.add(1500 * time.Millisecond)
	tooMany("1")
	clock.add(500 * time.Millisecond)
	if resp, c := f.login(t, testToken); resp.StatusCode != 200 || c == nil {
		t.Fatalf("right token after the wait: %d cookie %v; want 200 and a cookie", resp.StatusCode, c)
	}
	for i := 1; i <= 4; i++ { // the count started over
		if resp, doc := f.do(t, http.MethodPost, "/api/login", `{"token":"wrong"}`, nil); resp.StatusCode != 401 {
			t.Fatalf("wrong token %d after a good login: %d %v; want 401", i, resp.StatusCode, doc)
		}
	}
	if resp, c := f.login(t, testToken); resp.StatusCode != 200 || c == nil {
		t.Fatalf("right token after 4 failures: %d; want 200", resp.StatusCode)
	}
}

// TestAuth_BearerThrottle: wrong bearer tokens on any route count as
// wrong logins: after five, every bearer token (the right one too) and
// every login from the address waits, 429 with Retry-After; after the
// wait the right token works and the count starts over.
func TestAuth_BearerThrottle(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f := openLiveHub(t, "", hub.WithClock(hub.Options{Token: testToken}, clock.now))
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	for i := 1; i <= 5; i++ {
		if resp, doc := f.do(t, http.MethodGet, "/api/board", "", bearer("wrong")); resp.StatusCode != 401 {
			t.Fatalf("wrong bearer %d: %d %v; want 401", i, resp.StatusCode, doc)
		}
	}
	resp, doc := f.do(t, http.MethodGet, "/api/board", "", bearer(testToken))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("right bearer while throttled: %d Retry-After %q %v; want 429 Retry-After 1", resp.StatusCode, resp.Header.Get("Retry-After"), doc)
	}
	if resp, c := f.login(t, testToken); resp.StatusCode != http.StatusTooManyRequests || c != nil {
		t.Fatalf("login while the address waits: %d cookie %v; want 429 and no cookie", resp.StatusCode, c)
	}
	clock.add(time.Second)
	if resp, doc := f.do(t, http.MethodGet, "/api/board", "", bearer(testToken)); resp.StatusCode != 200 {
		t.Fatalf("right bearer after the wait: %d %v; want 200", resp.StatusCode, doc)
	}
	for i := 1; i <= 4; i++ { // the count started over
		if resp, doc := f.do(t, http.MethodGet, "/api/board", "", bearer("wrong")); resp.StatusCode != 401 {
			t.Fatalf("wrong bearer %d after a right one: %d %v; want 401", i, resp.StatusCode, doc)
		}
	}
	if resp, doc := f.do(t, http.MethodGet, "/api/board", "", bearer(testToken)); resp.StatusCode != 200 {
		t.Fatalf("right bearer after 4 failures: %d %v; want 200", resp.StatusCode, doc)
	}
	// /api/session reads a bearer token too: it counts, and waits, alike.
	for i := 1; i <= 5; i++ {
		if resp, doc := f.do(t, http.MethodGet, "/api/session", "", bearer("wrong")); resp.StatusCode != 200 || doc["data"].(map[string]any)["authenticated"] != false {
			t.Fatalf("wrong bearer %d on /api/session: %d %v; want 200 not authenticated", i, resp.StatusCode, doc)
		}
	}
	if resp, doc := f.do(t, http.MethodGet, "/api/session", "", bearer(testToken)); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right bearer on /api/session while the address waits: %d %v; want 429", resp.StatusCode, doc)
	}
	if resp, _ := f.do(t, http.MethodGet, "/api/board", "", bearer(testToken)); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("right bearer on /api/board after wrong ones on /api/session: %d; want 429", resp.StatusCode)
	}
}

// TestClientAddr: the throttle's key is the IPv4 address, or the IPv6 /64.
func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:5555":             "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:80":  "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:1":       "192.0.2.7",
		"[::1]:9":                    "::/64",
	} {
		if got := hub.ClientAddr(remote); got != want {
			t.Errorf("ClientAddr(%s) = %q, want %q", remote, got, want)
		}
	}
}

// errMessage is a failure envelope's error.message.
func errMessage(doc map[string]any) string {
	e, _ := doc["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}
