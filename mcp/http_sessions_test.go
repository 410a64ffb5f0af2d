package mcp

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/mcpsdk"
)

// httpServe starts `cos serve --http addr` on state (HTTP only) and waits
// until it answers; the test's end kills it.
func httpServe(t testing.TB, state, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(cosBin, "serve", "--state-dir", state, "--nats", "off", "--index=false", "--watch=false",
		"--http", addr, "--stdio=false")
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	waitHTTP(t, "http://"+addr+Path, nil)
	return cmd
}

// stopServe ends a server as a restart does (SIGTERM) and waits for it.
func stopServe(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, cmd, 20*time.Second); code != 0 {
		t.Fatalf("cos serve after SIGTERM: exit %d", code)
	}
}

// sessionPost posts body in session (none: "") and returns the status and
// body.
func sessionPost(t testing.TB, url, session, body string) (int, string) {
	t.Helper()
	h := map[string]string{"MCP-Protocol-Version": "2025-06-18"}
	if session != "" {
		h["Mcp-Session-Id"] = session
	}
	resp, b := httpPost(t, url, body, h)
	return resp.StatusCode, b
}

// A session's record lives in the state folder while the session does: a
// restarted server re-creates the session (its subscriptions too) for a
// client that keeps its id; DELETE forgets it on disk; a record that is
// not what the server wrote is dropped, never used.
func TestWire_HTTPSessionOutlivesRestart(t *testing.T) {
	_, state := wireRepo(t)
	addr := freeAddr(t)
	url := "http://" + addr + Path
	srv := httpServe(t, state, addr)
	resp, _ := httpPost(t, url, initBody, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if code, body := sessionPost(t, url, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"cos://board"}}`); code != http.StatusOK {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	file := filepath.Join(state, SessionFolder, id+".json")
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `"cos://board"`) || !strings.Contains(string(b), `"2025-06-18"`) {
		t.Fatalf("session record %s: %v %s", file, err, b)
	}

	stopServe(t, srv)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("a restart removed the session record: %v", err)
	}
	srv = httpServe(t, state, addr)
	if code, body := sessionPost(t, url, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cos_health","arguments":{}}}`); code != http.StatusOK || !strings.Contains(body, `\"ok\":true`) {
		t.Fatalf("a call with the session id after a restart: %d %s", code, body)
	}
	// The re-created session holds its subscription: unsubscribing
	// rewrites the record without it.
	if code, body := sessionPost(t, url, id, `{"jsonrpc":"2.0","id":4,"method":"resources/unsubscribe","params":{"uri":"cos://board"}}`); code != http.StatusOK {
		t.Fatalf("unsubscribe: %d %s", code, body)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "cos://board") {
		t.Errorf("record after unsubscribe: %s", b)
	}

	// DELETE ends the session and its record.
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", r, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("DELETE left the record: %v", err)
	}
	// A GET stream of an id nobody issued is refused, as a POST is.
	get, _ := http.NewRequest(http.MethodGet, url, nil)
	get.Header.Set("Mcp-Session-Id", "mcp-session-00000000-0000-4000-8000-000000000002")
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if r, err := http.DefaultClient.Do(get); err != nil || r.StatusCode != http.StatusNotFound {
		t.Fatalf("GET of a forged session: %v %v, want 404", r, err)
	} else {
		_ = r.Body.Close()
	}
	// A DELETE without a session id names what it needs: 400.
	del, _ := http.NewRequest(http.MethodDelete, url, nil)
	if r, err := http.DefaultClient.Do(del); err != nil || r.StatusCode != http.StatusBadRequest {
		t.Fatalf("DELETE without a session id: %v %v, want 400", r, err)
	} else {
		_ = r.Body.Close()
	}
	// A second DELETE, or one of an id nobody issued, ends nothing: 404.
	for _, gone := range []string{id, "../../../log", "mcp-session-00000000-0000-4000-8000-000000000001"} {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", gone)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusNotFound {
			t.Fatalf("DELETE of %q: %v %v, want 404", gone, r, err)
		}
	}
	stopServe(t, srv)
	httpServe(t, state, addr)
	if code, body := sessionPost(t, url, id, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); code != http.StatusNotFound {
		t.Fatalf("a deleted session after a restart: %d %s, want 404", code, body)
	}

	// A forged record (an id this server never issued, a protocol it
	// never spoke) is not used, and is removed.
	forged := "mcp-session-00000000-0000-4000-8000-000000000000"
	bad := filepath.Join(state, SessionFolder, forged+".json")
	rec, _ := json.Marshal(map[string]any{"id": forged, "protocol_version": "1999-01-01", "client_info": map[string]string{"name": "x", "version": "1"},
		"capabilities": map[string]any{}, "active": time.Now().UTC()})
	if err := os.WriteFile(bad, rec, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, body := sessionPost(t, url, forged, `{"jsonrpc":"2.0","id":6,"method":"ping"}`); code != http.StatusNotFound {
		t.Fatalf("a forged record: %d %s, want 404", code, body)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a forged record was kept: %v", err)
	}
}

// checkRecord trusts nothing in a record file.
func TestSessionRecordChecks(t *testing.T) {
	id := "mcp-session-00000000-0000-4000-8000-000000000000"
	now := time.Now().UTC()
	good := sessionRecord{ID: id, ProtocolVersion: "2025-06-18", Active: now, Subscriptions: []string{"cos://board", "cos://task/TASK-001"}}
	enc := func(mod func(*sessionRecord)) []byte {
		r := good
		mod(&r)
		b, _ := json.Marshal(r)
		return b
	}
	if _, err := checkRecord(id, enc(func(*sessionRecord) {}), time.Hour, now); err != nil {
		t.Fatalf("a good record: %v", err)
	}
	for name, b := range map[string][]byte{
		"not json":       []byte("{"),
		"another id":     enc(func(r *sessionRecord) { r.ID = "mcp-session-x" }),
		"unknown proto":  enc(func(r *sessionRecord) { r.ProtocolVersion = "2099-01-01" }),
		"idle past ttl":  enc(func(r *sessionRecord) { r.Active = now.Add(-2 * time.Hour) }),
		"future":         enc(func(r *sessionRecord) { r.Active = now.Add(time.Hour) }),
		"bad uri":        enc(func(r *sessionRecord) { r.Subscriptions = []string{"file:///etc/passwd"} }),
		"duplicate uri":  enc(func(r *sessionRecord) { r.Subscriptions = []string{"cos://board", "cos://board"} }),
		"long name":      enc(func(r *sessionRecord) { r.ClientInfo.Name = strings.Repeat("n", maxClientText+1) }),
		"over the bound": append(enc(func(*sessionRecord) {}), make([]byte, maxRecordBytes)...),
	} {
		if _, err := checkRecord(id, b, time.Hour, now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The SDK's own client keeps working across a server restart with no code
// of its own: the same Client object calls a tool after the restart, and a
// resource it subscribed to before still sends it updates.
func TestSDK_HTTPSessionSurvivesRestart(t *testing.T) {
	mcpsdk.Require(t)
	_, state := wireRepo(t)
	addr := freeAddr(t)
	srv := httpServe(t, state, addr)
	p := mcpsdk.Start(t, 3*time.Minute, sdkRestartScript, "http://"+addr+Path)
	ready := p.Expect("READY ", time.Minute)
	stopServe(t, srv)
	httpServe(t, state, addr)
	p.Send("restarted")
	if got := p.Expect("CALL2 ", time.Minute); got != "CALL2 ok "+strings.TrimPrefix(ready, "READY ") {
		t.Fatalf("a call after the restart: %q (before: %q)\nstderr:\n%s", got, ready, p.Stderr())
	}
	liveCosCall(t, state, "cos_task_create", `{"title":"after the restart"}`)
	p.Send("changed")
	got := p.Expect("UPDATED ", time.Minute)
	if got == "UPDATED none" {
		t.Fatalf("no notifications/resources/updated for cos://board after the restart\nstderr:\n%s", p.Stderr())
	}
	t.Logf("the update came %s", strings.TrimPrefix(got, "UPDATED "))
}

const sdkRestartScript = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => (await lines.next()).value;
const sleep = ms => new Promise(r => setTimeout(r, ms));
let updates = [];
const client = new Client({ name: "sdk-restart", version: "1.0.0" });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => { updates.push(n.params.uri); });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const health = async () => {
  const r = await client.callTool({ name: "cos_health", arguments: {} });
  return r.isError ? "error" : "ok";
};
if (await health() !== "ok") throw new Error("cos_health failed");
await client.subscribeResource({ uri: "cos://board" });
console.log("READY " + transport.sessionId);
await next();
console.log("CALL2 " + await health() + " " + transport.sessionId);
updates = [];
await next();
const wait = async ms => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    if (updates.includes("cos://board")) return true;
  }
  return false;
};
if (await wait(8000)) {
  console.log("UPDATED on the listening stream");
} else {
  await health();
  console.log(await wait(5000) ? "UPDATED with the next call" : "UPDATED none");
}
await client.close();
`
