package hub_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/hub"
)

const testToken = "s3cret-token-of-the-hub"

// taskCount is how many tasks the board holds, read through the runner.
func (f *liveHub) taskCount(tb testing.TB) int {
	tb.Helper()
	env := f.r.Call(context.Background(), "cos_task_board", json.RawMessage(`{}`), envelope.Options{NoBudget: true})
	if !env.OK() {
		tb.Fatalf("board: %s", env.JSON())
	}
	var doc struct {
		Data struct {
			Tasks []any `json:"tasks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(env.JSON(), &doc); err != nil {
		tb.Fatal(err)
	}
	return len(doc.Data.Tasks)
}

// TestAuth_Matrix: who may read and write /api with and without a token:
// bearer, login cookie, wrong token, no credentials; the page itself loads
// without a token; every refusal is an envelope and changes nothing.
func TestAuth_Matrix(t *testing.T) {
	open := openLiveHub(t, "", hub.Options{})
	tok := openLiveHub(t, "", hub.Options{Token: testToken})

	// The login cookie, from a successful login.
	resp, doc := tok.do(t, http.MethodPost, "/api/login", `{"token":"`+testToken+`"}`, nil)
	if resp.StatusCode != http.StatusOK || doc["ok"] != true {
		t.Fatalf("login: %d %v", resp.StatusCode, doc)
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == hub.CookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.Secure ||
		strings.Contains(cookie.Value, testToken) || cookie.Value == "" {
		t.Fatalf("login cookie %+v: want HttpOnly, SameSite=Strict, Path=/, not Secure over plain HTTP, not the token", cookie)
	}
	cookieHdr := hub.CookieName + "=" + cookie.Value

	cases := []struct {
		name   string
		f      *liveHub
		method string
		path   string
		body   string
		header map[string]string
		status int
		code   string
	}{
		{"open: read", open, "GET", "/api/health", "", nil, 200, ""},
		{"open: write", open, "POST", "/api/tasks", `{"title":"open write"}`, nil, 201, ""},
		{"open: page", open, "GET", "/", "", nil, 200, ""},
		{"token: page without token", tok, "GET", "/", "", nil, 200, ""},
		{"token: read without token", tok, "GET", "/api/health", "", nil, 401, "E_UNAUTHORIZED"},
		{"token: events without token", tok, "GET", "/api/events", "", nil, 401, "E_UNAUTHORIZED"},
		{"token: unknown route without token", tok, "GET", "/api/nothing", "", nil, 401, "E_UNAUTHORIZED"},
		{"token: write without token", tok, "POST", "/api/tasks", `{"title":"nope"}`, nil, 401, "E_UNAUTHORIZED"},
		{"token: read with bearer", tok, "GET", "/api/health", "", map[string]string{"Authorization": "Bearer " + testToken}, 200, ""},
		{"token: bearer scheme any case", tok, "GET", "/api/health", "", map[string]string{"Authorization": "bEaReR " + testToken}, 200, ""},
		{"token: wrong bearer", tok, "GET", "/api/health", "", map[string]string{"Authorization": "Bearer wrong"}, 401, "E_UNAUTHORIZED"},
		{"token: basic scheme", tok, "GET", "/api/health", "", map[string]string{"Authorization": "Basic " + testToken}, 401, "E_UNAUTHORIZED"},
		{"token: write with bearer", tok, "POST", "/api/tasks", `{"title":"bearer write"}`, map[string]string{"Authorization": "Bearer " + testToken}, 201, ""},
		{"token: read with cookie", tok, "GET", "/api/health", "", map[string]string{"Cookie": cookieHdr}, 200, ""},
		{"token: write with cookie", tok, "POST", "/api/tasks", `{"title":"cookie write"}`, map[string]string{"Cookie": cookieHdr}, 201, ""},
		{"token: forged cookie", tok, "GET", "/api/health", "", map[string]string{"Cookie": hub.CookieName + "=" + strings.Repeat("0", 64)}, 401, "E_UNAUTHORIZED"},
		{"token: cookie is not the token", tok, "GET", "/api/health", "", map[string]string{"Cookie": hub.CookieName + "=" + testToken}, 401, "E_UNAUTHORIZED"},
		{"token: wrong bearer beats a good cookie", tok, "GET", "/api/health", "", map[string]string{"Authorization": "Bearer wrong", "Cookie": cookieHdr}, 401, "E_UNAUTHORIZED"},
		{"token: login with wrong token", tok, "POST", "/api/login", `{"token":"wrong"}`, nil, 401, "E_UNAUTHORIZED"},
		{"token: login body not JSON", tok, "POST", "/api/login", `token=x`, nil, 400, "E_ARGUMENT"},
		{"token: login unknown key", tok, "POST", "/api/login", `{"token":"x","user":"me"}`, nil, 400, "E_ARGUMENT"},
		{"token: login token not a string", tok, "POST", "/api/login", `{"token":1}`, nil, 400, "E_ARGUMENT"},
		{"token: login with GET", tok, "GET", "/api/login", "", nil, 405, "E_ARGUMENT"},
		{"token: login without Content-Type", tok, "POST", "/api/login", `{"token":"` + testToken + `"}`, map[string]string{"Content-Type": ""}, 415, "E_ARGUMENT"},
		{"token: login as a form", tok, "POST", "/api/login", `{"token":"` + testToken + `"}`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "E_ARGUMENT"},
		{"open: write without Content-Type", open, "POST", "/api/tasks", `{"title":"no type"}`, map[string]string{"Content-Type": ""}, 415, "E_ARGUMENT"},
		{"open: write as text/plain", open, "POST", "/api/tasks", `{"title":"plain"}`, map[string]string{"Content-Type": "text/plain"}, 415, "E_ARGUMENT"},
		{"open: write with charset", open, "POST", "/api/tasks", `{"title":"charset"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 201, ""},
		{"token: logout with GET", tok, "GET", "/api/logout", "", nil, 405, "E_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.f.taskCount(t)
			resp, doc := c.f.do(t, c.method, c.path, c.body, c.header)
			if resp.StatusCode != c.status || failCode(doc) != c.code {
				t.Fatalf("%s %s: status %d code %q %v; want %d %q", c.method, c.path, resp.StatusCode, failCode(doc), doc, c.status, c.code)
			}
			if c.status == 401 && c.path != "/api/login" && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 without WWW-Authenticate: Bearer")
			}
			if c.status >= 400 && c.f.taskCount(t) != before {
				t.Fatal("a refused request changed the board")
			}
		})
	}

	// /api/session tells the page whether to ask for the token.
	for _, c := range []struct {
		name     string
		f        *liveHub
		header   map[string]string
		required bool
		authed   bool
	}{
		{"open", open, nil, false, true},
		{"token, none sent", tok, nil, true, false},
		{"token, cookie", tok, map[string]string{"Cookie": cookieHdr}, true, true},
		{"token, bearer", tok, map[string]string{"Authorization": "Bearer " + testToken}, true, true},
		{"token, wrong bearer", tok, map[string]string{"Authorization": "Bearer x"}, true, false},
	} {
		resp, doc := c.f.do(t, http.MethodGet, "/api/session", "", c.header)
		data, _ := doc["data"].(map[string]any)
		if resp.StatusCode != 200 || data["auth_required"] != c.required || data["authenticated"] != c.authed {
			t.Fatalf("session %s: %d %v; want auth_required %v authenticated %v", c.name, resp.StatusCode, doc, c.required, c.authed)
		}
	}
}

// TestAuth_Origin: a request from a foreign origin is refused (403
// E_ORIGIN) before anything runs, even with the right token; the server's
// own origin and an allowed one pass; a cross-site browser write without
// Origin is refused; without a token, a Host that is not loopback (DNS
// rebinding) is refused.
func TestAuth_Origin(t *testing.T) {
	const allowed = "https://board.example.org"
	f := openLiveHub(t, "", hub.Options{Token: testToken, AllowedOrigins: []string{allowed}})
	open := openLiveHub(t, "", hub.Options{})
	own := f.srv.URL        // http://127.0.0.1:PORT
	openOwn := open.srv.URL // the other server's
	bearer := "Bearer " + testToken
	cases := []struct {
		name   string
		f      *liveHub
		method string
		path   string
		header map[string]string
		status int
		code   string
	}{
		{"write, foreign origin", f, "POST", "/api/tasks", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"}, 403, "E_ORIGIN"},
		{"write, foreign origin, no token", open, "POST", "/api/tasks", map[string]string{"Origin": "http://evil.example"}, 403, "E_ORIGIN"},
		{"write, null origin", open, "POST", "/api/tasks", map[string]string{"Origin": "null"}, 403, "E_ORIGIN"},
		{"write, own port other host", open, "POST", "/api/tasks", map[string]string{"Origin": "http://evil.example" + openOwn[strings.LastIndex(openOwn, ":"):]}, 403, "E_ORIGIN"},
		{"write, cross-site without origin", open, "POST", "/api/tasks", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "E_ORIGIN"},
		{"login, foreign origin", f, "POST", "/api/login", map[string]string{"Origin": "http://evil.example"}, 403, "E_ORIGIN"},
		{"read, foreign origin", f, "GET", "/api/health", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"}, 403, "E_ORIGIN"},
		{"write, own origin", f, "POST", "/api/tasks", map[string]string{"Authorization": bearer, "Origin": own}, 201, ""},
		{"write, own origin as localhost", open, "POST", "/api/tasks", map[string]string{"Origin": strings.Replace(openOwn, "127.0.0.1", "localhost", 1)}, 201, ""},
		{"write, allowed origin", f, "POST", "/api/tasks", map[string]string{"Authorization": bearer, "Origin": allowed}, 201, ""},
		{"write, same-origin fetch", open, "POST", "/api/tasks", map[string]string{"Sec-Fetch-Site": "same-origin"}, 201, ""},
		{"read, rebound host without token", open, "GET", "/api/health", map[string]string{"Host": "evil.example"}, 403, "E_ORIGIN"},
		{"read, localhost host without token", open, "GET", "/api/health", map[string]string{"Host": "localhost"}, 200, ""},
		{"read, other host with token", f, "GET", "/api/health", map[string]string{"Authorization": bearer, "Host": "hub.internal"}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.f.taskCount(t)
			body := ""
			if c.method == "POST" {
				body = `{"title":"from ` + c.name + `"}`
				if c.path == "/api/login" {
					body = `{"token":"` + testToken + `"}`
				}
			}
			req, err := http.NewRequest(c.method, c.f.srv.URL+c.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			if resp.StatusCode != c.status || failCode(doc) != c.code {
				t.Fatalf("status %d code %q %v; want %d %q", resp.StatusCode, failCode(doc), doc, c.status, c.code)
			}
			if c.status >= 400 && c.f.taskCount(t) != before {
				t.Fatal("a refused write changed the board")
			}
			if resp.Header.Get("Set-Cookie") != "" && c.status != 200 {
				t.Fatal("a refused request set a cookie")
			}
		})
	}
}

// TestAuth_CookieSecureOverTLS: the login cookie is Secure when the login
// came over TLS.
func TestAuth_CookieSecureOverTLS(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{Token: testToken})
	srv := httptest.NewTLSServer(f.h.Handler())
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL+"/api/login", "application/json", strings.NewReader(`{"token":"`+testToken+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if resp.StatusCode != 200 || len(cs) != 1 || !cs[0].Secure || !cs[0].HttpOnly {
		t.Fatalf("TLS login: %d cookies %+v; want one Secure HttpOnly cookie", resp.StatusCode, cs)
	}
}

// TestNew_RejectsBadOptions: New refuses a malformed allowed origin and
// negative limits.
func TestNew_RejectsBadOptions(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	for _, o := range []hub.Options{
		{AllowedOrigins: []string{"evil.example"}},
		{MaxEventStreams: -1},
		{Heartbeat: -1},
	} {
		if _, err := hub.New(f.r, f.st, o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}
