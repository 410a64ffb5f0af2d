package hub

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

func get(t testing.TB, h http.Handler, method, path string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestAssets_ContentTypesAndCaching(t *testing.T) {
	h := Assets()
	for _, tc := range []struct {
		path, contentType, cache, bodyHas string
	}{
		{"/", "text/html; charset=utf-8", "no-cache", `id="token-dialog"`},
		{"/index.html", "text/html; charset=utf-8", "no-cache", `type="module"`},
		{"/app.js", "text/javascript; charset=utf-8", "public, max-age=300", "location.hash"},
		{"/style.css", "text/css; charset=utf-8", "public, max-age=300", "{"},
		{"/vendor/cytoscape/cytoscape.min.js", "text/javascript; charset=utf-8", "public, max-age=300", "cytoscape"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := get(t, h, http.MethodGet, tc.path, nil)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", res.StatusCode)
			}
			if got := res.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tc.contentType)
			}
			if got := res.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control = %q, want %q", got, tc.cache)
			}
			if got := res.Header.Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy = %q, want %q", got, ContentSecurityPolicy)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
			}
			if !strings.Contains(string(body), tc.bodyHas) {
				t.Errorf("body does not contain %q", tc.bodyHas)
			}
			etag := res.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			again := get(t, h, http.MethodGet, tc.path, map[string]string{"If-None-Match": etag})
			if again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation with the ETag: status = %d, want 304", again.StatusCode)
			}
		})
	}
}

func TestAssets_CSPAllowsOnlySelf(t *testing.T) {
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(ContentSecurityPolicy, directive) {
			t.Errorf("CSP %q lacks %q", ContentSecurityPolicy, directive)
		}
	}
	if strings.Contains(ContentSecurityPolicy, "unsafe") || strings.Contains(ContentSecurityPolicy, "http") {
		t.Errorf("CSP %q allows inline code or another origin", ContentSecurityPolicy)
	}
}

func TestAssets_MissingFilesAndDirectoriesAre404(t *testing.T) {
	h := Assets()
	for _, p := range []string{"/nope.js", "/vendor/", "/vendor", "/vendor/cytoscape/", "/ui/index.html", "/../assets.go", "/index.html/"} {
		res := get(t, h, http.MethodGet, p, nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status = %d, want 404", p, res.StatusCode)
		}
		if strings.Contains(string(body), "<a href") {
			t.Errorf("GET %s: answered a directory listing", p)
		}
	}
}

func TestAssets_WritesAre405(t *testing.T) {
	res := get(t, Assets(), http.MethodPost, "/index.html", nil)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: status = %d, want 405", res.StatusCode)
	}
	if got := res.Header.Get("Allow"); got != "GET, HEAD" {
		t.Errorf("Allow = %q, want %q", got, "GET, HEAD")
	}
	head := get(t, Assets(), http.MethodHead, "/app.js", nil)
	if head.StatusCode != http.StatusOK {
		t.Errorf("HEAD: status = %d, want 200", head.StatusCode)
	}
}

// TestAssets_VendoredCytoscapeMatchesVersionFile checks the embedded
// library against the sha256 its VERSION file records, and that its
// licence travels with it.
func TestAssets_VendoredCytoscapeMatchesVersionFile(t *testing.T) {
	f, err := os.Open("ui/vendor/cytoscape/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if fields["name"] != "cytoscape" || fields["version"] != "3.34.4" || !strings.HasPrefix(fields["licence"], "MIT") {
		t.Errorf("VERSION = %v, want cytoscape 3.34.4, MIT", fields)
	}
	res := get(t, Assets(), http.MethodGet, "/vendor/cytoscape/cytoscape.min.js", nil)
	body, _ := io.ReadAll(res.Body)
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != fields["sha256"] {
		t.Errorf("served cytoscape.min.js sha256 = %s, VERSION says %s", got, fields["sha256"])
	}
	lic := get(t, Assets(), http.MethodGet, "/vendor/cytoscape/LICENSE", nil)
	lb, _ := io.ReadAll(lic.Body)
	if lic.StatusCode != http.StatusOK || !strings.Contains(string(lb), "Cytoscape Consortium") {
		t.Errorf("LICENSE: status %d, body %.60q", lic.StatusCode, lb)
	}
}

// TestAssets_EveryReferenceResolves follows every script and stylesheet of
// index.html, every ES module import and every vendored script a module
// loads itself (the graph library): each must be an embedded file served
// as JavaScript or CSS, none from another origin (no CDN).
func TestAssets_EveryReferenceResolves(t *testing.T) {
	h := Assets()
	res := get(t, h, http.MethodGet, "/", nil)
	page, _ := io.ReadAll(res.Body)
	refs := regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(string(page), -1)
	imports := regexp.MustCompile(`(?m)^import\s[^'"]*['"]([^'"]+)['"]`)
	vendored := regexp.MustCompile(`['"](vendor/[^'"]+\.js)['"]`)
	seen := map[string]bool{}
	queue := []string{}
	for _, m := range refs {
		if strings.HasPrefix(m[1], "data:") {
			continue
		}
		queue = append(queue, "/"+strings.TrimPrefix(m[1], "/"))
	}
	if len(queue) < 2 {
		t.Fatalf("index.html references %v; want the stylesheet and app.js", queue)
	}
	for len(queue) > 0 {
		p := path.Clean(queue[0])
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		if strings.Contains(p, ":") {
			t.Errorf("%s is not served by the Hub", p)
			continue
		}
		res := get(t, h, http.MethodGet, p, nil)
		body, _ := io.ReadAll(res.Body)
		ct := res.Header.Get("Content-Type")
		if res.StatusCode != http.StatusOK || !(strings.HasPrefix(ct, "text/javascript") || strings.HasPrefix(ct, "text/css")) {
			t.Errorf("%s: status %d, Content-Type %q", p, res.StatusCode, ct)
			continue
		}
		if strings.HasSuffix(p, ".js") && !strings.Contains(p, "/vendor/") {
			for _, m := range imports.FindAllStringSubmatch(string(body), -1) {
				queue = append(queue, path.Join(path.Dir(p), m[1]))
			}
			for _, m := range vendored.FindAllStringSubmatch(string(body), -1) {
				queue = append(queue, path.Join(path.Dir(p), m[1]))
			}
		}
	}
	for _, want := range []string{"/app.js", "/board.js", "/graph.js", "/feed.js", "/evidence.js", "/health.js", "/live.js", "/timetravel.js", "/api.js",
		"/keys.js", "/task.js", "/metrics.js", "/graphmap.js", "/vendor/cytoscape/cytoscape.min.js"} {
		if !seen[want] {
			t.Errorf("%s is not reachable from index.html", want)
		}
	}
}
