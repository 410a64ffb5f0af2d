package hub_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/cos-dev/cos/hub"
)

// firefoxUA is a browser's User-Agent: the Hub records its writes as
// "hub (Firefox)".
const firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"

// TestHub_EventsActorIsTheCallersName: a write made from the page is
// streamed with actor.client "hub (Firefox)" — the name cos_history shows —
// not the log's encoded form ("name=hub+%28Firefox%29"), and the actor
// filter finds it by that name.
func TestHub_EventsActorIsTheCallersName(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	resp, doc := f.do(t, http.MethodPost, "/api/tasks", `{"title":"from the page"}`,
		map[string]string{"Content-Type": "application/json", "User-Agent": firefoxUA})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/tasks: %d %v", resp.StatusCode, doc)
	}
	for _, query := range []string{"?since=0", "?since=0&actor=hub%20(Firefox)"} {
		s, status, body := f.openEvents(t, query, nil)
		if s == nil {
			t.Fatalf("%s: status %d %s", query, status, body)
		}
		ev, ok := s.next(t, eventWait)
		if !ok {
			t.Fatalf("%s: no event", query)
		}
		if ev.Actor.Client != "hub (Firefox)" {
			t.Fatalf("%s: actor.client %q, want %q", query, ev.Actor.Client, "hub (Firefox)")
		}
		s.Close()
	}
}

// TestHub_EventsRefuseABadSinceBesideLastEventID: a since= that is not
// a seq is refused even when Last-Event-ID is sent too (the header wins
// only between two good values), and the message reads as a sentence.
func TestHub_EventsRefuseABadSinceBesideLastEventID(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	f.call(t, "cos_task_create", `{"title":"one"}`)
	resp, doc := f.do(t, http.MethodGet, "/api/events?since=abc", "", map[string]string{"Last-Event-ID": "1"})
	if resp.StatusCode != http.StatusBadRequest || failCode(doc) != "E_ARGUMENT" {
		t.Fatalf("since=abc with Last-Event-ID: %d %v; want 400 E_ARGUMENT", resp.StatusCode, doc)
	}
	resp, doc = f.do(t, http.MethodGet, "/api/events?bogus=1", "", nil)
	msg, _ := doc["error"].(map[string]any)["message"].(string)
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(msg, "want /api/events") || !strings.Contains(msg, "types, stream, actor, since") {
		t.Fatalf("bogus=1: %d %q; want 400 naming the parameters /api/events takes", resp.StatusCode, msg)
	}
}

// TestHub_AssetsLicenseIsTextAnd404EchoesNoControlBytes: the vendored
// LICENSE and VERSION read as text in a browser, and a 404 does not send
// back the raw bytes of the path it was asked for.
func TestHub_AssetsLicenseIsTextAnd404EchoesNoControlBytes(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	for _, p := range []string{"/vendor/cytoscape/LICENSE", "/vendor/cytoscape/VERSION"} {
		resp, _ := f.do(t, http.MethodGet, p, "", nil)
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: %d %q; want 200 text/plain; charset=utf-8", p, resp.StatusCode, ct)
		}
	}
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/app.js%00%1b[31m.png", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := shortClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := make([]byte, 512)
	n, _ := resp.Body.Read(b)
	if resp.StatusCode != http.StatusNotFound || strings.ContainsAny(string(b[:n]), "\x00\x1b") {
		t.Fatalf("GET /app.js%%00%%1b…: %d %q; want 404 without control bytes", resp.StatusCode, b[:n])
	}
}

// TestHub_Browser_ErrorBarClearsOnAnotherView: the error of one view
// (a session id the server refuses) is not left in the bar above another
// view the user then opens from the nav.
func TestHub_Browser_ErrorBarClearsOnAnotherView(t *testing.T) {
	f := newBrowserFixture(t)
	browser := newBrowser(t)
	p := openTab(t, browser)
	p.allow("status of 400") // the refused session id, on purpose
	p.open(f.Hub.URL + "/#/evidence/..%2f..%2fx")
	p.wait(`!document.getElementById('error').hidden && document.getElementById('error').textContent.includes('E_ARGUMENT')`, "the evidence view's error in #error")
	p.click(`a[data-view=health]`)
	p.wait(`document.body.dataset.view === 'health' && document.body.dataset.ready === '1'`, "the health view rendered")
	p.wait(`document.getElementById('error').hidden`, "#error hidden on the health view")
}

// TestHub_TwoIfMatchHeadersAreRefused: two If-Match headers are a list
// of revisions, refused like "1", "2" in one header — not the first taken
// and the second ignored — and the task is unchanged.
func TestHub_TwoIfMatchHeadersAreRefused(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	f.call(t, "cos_task_create", `{"title":"one"}`)
	req, err := http.NewRequest(http.MethodPatch, f.srv.URL+"/api/tasks/TASK-001", strings.NewReader(`{"patch":{"title":"two"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("If-Match", `"1"`)
	req.Header.Add("If-Match", `"2"`)
	resp, err := shortClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("two If-Match headers: %d, want 400", resp.StatusCode)
	}
	if title := f.call(t, "cos_task_get", `{"task_id":"TASK-001"}`).Data()["task"].(map[string]any)["title"]; title != "one" {
		t.Fatalf("title %v after a refused PATCH, want one", title)
	}
}

// TestHub_GraphSourceExampleIsAGraphUID: the example cos_graph_source
// gives in its errors (and /api/openapi.json) is a uid of the form the
// graph uses, not one no node ever has.
func TestHub_GraphSourceExampleIsAGraphUID(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	spec, ok := f.r.Spec("cos_graph_source")
	if !ok {
		t.Fatal("no cos_graph_source")
	}
	var ex struct{ UID string }
	if err := json.Unmarshal([]byte(spec.Example), &ex); err != nil || !strings.HasPrefix(ex.UID, "code:") {
		t.Fatalf("example %s: want a uid such as code:function:server.go::Server.ListenAndServe", spec.Example)
	}
}

// TestHub_UnreadableQueryIsRefused: a query string Go cannot read — a
// bad escape, a ";" separator, more parameters than it parses — is 400,
// not run as if the parameters it lost were never sent (the whole board
// for status=%zz, the log head for since=%zz); a write route refuses
// query parameters, which it would otherwise ignore.
func TestHub_UnreadableQueryIsRefused(t *testing.T) {
	f := openLiveHub(t, "", hub.Options{})
	f.call(t, "cos_task_create", `{"title":"one"}`)
	many := make([]string, 0, 10001)
	for i := range 10001 {
		many = append(many, "p"+strconv.Itoa(i)+"=1")
	}
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/api/board?status=%zz", ""},
		{http.MethodGet, "/api/board?status=todo;limit=1", ""},
		{http.MethodGet, "/api/board?" + strings.Join(many, "&"), ""},
		{http.MethodGet, "/api/events?since=%zz", ""},
		{http.MethodPost, "/api/tasks?title=from-the-query", `{"title":"from the body"}`},
	} {
		resp, doc := f.do(t, c.method, c.path, c.body, map[string]string{"Content-Type": "application/json"})
		if resp.StatusCode != http.StatusBadRequest || failCode(doc) != "E_ARGUMENT" {
			t.Errorf("%s %.60s: %d %v; want 400 E_ARGUMENT", c.method, c.path, resp.StatusCode, doc)
		}
	}
	if head := f.head(t); head != 1 {
		t.Fatalf("log head %d after refused requests, want 1", head)
	}
}
