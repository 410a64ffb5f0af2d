package hub_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cos-dev/cos/hub"
)

// rawGet sends GET path with the given Accept-Encoding ("" sends none)
// and If-None-Match, and returns the answer and its body as sent (not
// decompressed).
func rawGet(tb testing.TB, base, path, acceptEncoding, ifNoneMatch string) (*http.Response, []byte) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, b
}

func gunzip(tb testing.TB, b []byte) []byte {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestGzip_AssetsAndJSON: the page's text files and the large JSON
// answers go gzip-compressed to a client that accepts it, decode to the
// same bytes, carry Vary: Accept-Encoding and an ETag per encoding (a
// revalidation of either is a 304); small answers, clients that do not
// accept gzip and the event stream are sent as they are.
func TestGzip_AssetsAndJSON(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	for i := range 30 {
		f.do(t, http.MethodPost, "/api/tasks", fmt.Sprintf(`{"title":"task number %d of the gzip test","labels":["area/hub","gzip"]}`, i), nil)
	}
	for _, path := range []string{"/app.js", "/style.css", "/", "/api/openapi.json", "/api/board?limit=100"} {
		plain, pb := rawGet(t, f.srv.URL, path, "", "")
		zipped, zb := rawGet(t, f.srv.URL, path, "br;q=1.0, gzip;q=0.8", "")
		if plain.StatusCode != 200 || zipped.StatusCode != 200 {
			t.Fatalf("%s: %d / %d", path, plain.StatusCode, zipped.StatusCode)
		}
		if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: Content-Encoding %q without gzip accepted, %q with", path, plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"))
		}
		for _, r := range []*http.Response{plain, zipped} {
			if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Accept-Encoding") {
				t.Fatalf("%s: Vary %q, want Accept-Encoding", path, r.Header.Values("Vary"))
			}
		}
		if got := gunzip(t, zb); !strings.HasPrefix(path, "/api/board") && !bytes.Equal(got, pb) {
			t.Fatalf("%s: the gzip body decodes to %d bytes, not the %d plain ones", path, len(got), len(pb))
		}
		if len(zb)*2 > len(pb) {
			t.Errorf("%s: gzip %d bytes of %d: want at most half", path, len(zb), len(pb))
		}
		t.Logf("%-22s %6d bytes plain, %6d gzip (%.0f%%)", path, len(pb), len(zb), 100*float64(len(zb))/float64(len(pb)))
		if e1, e2 := plain.Header.Get("ETag"), zipped.Header.Get("ETag"); !strings.HasPrefix(path, "/api/") {
			if e1 == "" || e1 == e2 {
				t.Fatalf("%s: ETag %q plain, %q gzip: want two distinct ones", path, e1, e2)
			}
			if r, _ := rawGet(t, f.srv.URL, path, "gzip", e2); r.StatusCode != http.StatusNotModified {
				t.Fatalf("%s: revalidating the gzip ETag: %d, want 304", path, r.StatusCode)
			}
			if r, _ := rawGet(t, f.srv.URL, path, "", e1); r.StatusCode != http.StatusNotModified {
				t.Fatalf("%s: revalidating the plain ETag: %d, want 304", path, r.StatusCode)
			}
		}
	}
	// Small answers and refused encodings are sent as they are.
	if r, b := rawGet(t, f.srv.URL, "/api/session", "gzip", ""); r.Header.Get("Content-Encoding") != "" || !bytes.HasPrefix(b, []byte(`{`)) {
		t.Fatalf("/api/session (small): Content-Encoding %q", r.Header.Get("Content-Encoding"))
	}
	if r, _ := rawGet(t, f.srv.URL, "/api/openapi.json", "gzip;q=0, identity", ""); r.Header.Get("Content-Encoding") != "" {
		t.Fatalf("gzip;q=0: Content-Encoding %q", r.Header.Get("Content-Encoding"))
	}
	// The event stream is never compressed: its events must reach the
	// page as they are committed.
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events?since=0", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("/api/events: Content-Encoding %q, Content-Type %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	var got []byte
	buf := make([]byte, 256)
	for !bytes.Contains(got, []byte("event: cos")) && len(got) < 4096 {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	if !bytes.Contains(got, []byte("event: cos")) {
		t.Fatalf("/api/events: first bytes %q, want an event as text", got)
	}
}
