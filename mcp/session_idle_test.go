package mcp

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An HTTP session that goes silent past --session-idle is ended: a client
// that vanished without a DELETE does not keep its session (and its
// subscriptions) for the life of the server. A session that keeps talking
// stays.
func TestWire_HTTPSessionIdleEnds(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	_ = wireStart(t, state, root, "--http", addr, "--stdio", "--session-idle", "2s")
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, nil)
	post := func(session, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	open := func() string {
		t.Helper()
		code, id, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %q %s", code, id, body)
		}
		post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if code, _, body := post(id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"cos://board"}}`); code != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Fatalf("subscribe: %d %s", code, body)
		}
		return id
	}
	silent, talking := open(), open()
	deadline := time.Now().Add(6 * time.Second)
	for time.Now().Before(deadline) {
		if code, _, body := post(talking, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusOK {
			t.Fatalf("a session that keeps talking was ended: %d %s", code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code, _, body := post(silent, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); code != http.StatusNotFound {
		t.Fatalf("a session silent for 6 s with --session-idle 2s: %d %s, want 404 (ended)", code, body)
	}
	// The ended session's record is gone; the talking one's is kept.
	if _, err := os.Stat(filepath.Join(state, SessionFolder, silent+".json")); !os.IsNotExist(err) {
		t.Errorf("the idle session's record is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(state, SessionFolder, talking+".json")); err != nil {
		t.Errorf("the talking session's record: %v", err)
	}
}
