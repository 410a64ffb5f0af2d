package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/internal/testutil"
)

// webProc is a running cos process serving HTTP.
type webProc struct {
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	url    string // http://127.0.0.1:PORT/
	waited chan error
}

// startWeb starts "cos args…" as a real process and waits until its stderr
// matches addrRE (whose first group is HOST:PORT); it is killed at cleanup.
func startWeb(t *testing.T, addrRE *regexp.Regexp, args ...string) *webProc {
	t.Helper()
	cmd := cosProcess(t, args...)
	p := &webProc{cmd: cmd, stderr: &testutil.SyncBuffer{}, waited: make(chan error, 1)}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			_, _ = p.stderr.Write([]byte(sc.Text() + "\n"))
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.waited <- cmd.Wait(); _ = pw.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-p.waited:
		case <-time.After(10 * time.Second):
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := addrRE.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = "http://" + m[1] + "/"
			return p
		}
		select {
		case err := <-p.waited:
			t.Fatalf("cos %v ended before serving: %v\n%s", args, err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("cos %v did not start serving:\n%s", args, p.stderr.String())
		}
	}
}

var hubLine = regexp.MustCompile(`Hub: http://(127\.0\.0\.1:[0-9]+)/`)

// get fetches url and returns the status, Content-Type and body.
func get(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// TestHub_SecondOnOneFolderSaysWhereTheFirstIs: cos hub serves the page
// and the API and prints its address; a second cos hub on the same state
// folder exits 1 naming the first's address and pid; once the first dies
// another starts.
func TestHub_SecondOnOneFolderSaysWhereTheFirstIs(t *testing.T) {
	dir := t.TempDir()
	first := startWeb(t, hubLine, "--state-dir", dir, "hub", "--nats", "off")
	if status, ctype, _ := get(t, first.url); status != 200 || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("GET /: %d %s", status, ctype)
	}
	status, _, body := get(t, first.url+"api/health")
	if status != 200 || !strings.Contains(string(body), `"ok":true`) {
		t.Fatalf("GET /api/health: %d %s", status, body)
	}
	info, err := hub.ReadInfo(dir)
	if err != nil || info.URL() != first.url || info.PID != first.cmd.Process.Pid {
		t.Fatalf("hub.json %+v (%v); want %s pid %d", info, err, first.url, first.cmd.Process.Pid)
	}

	second := cosProcess(t, "--state-dir", dir, "hub", "--nats", "off")
	out, err := second.CombinedOutput()
	var ee *exec.ExitError
	want := "a Hub already serves this state folder at " + first.url + " (pid " + strconv.Itoa(first.cmd.Process.Pid) + ")"
	if !errors.As(err, &ee) || ee.ExitCode() != ExitError || !strings.Contains(string(out), want) {
		t.Fatalf("second cos hub: %v\n%s\nwant exit 1 and %q", err, out, want)
	}

	// A Hub that dies leaves hub.json behind but not the lock: the next
	// one starts and records itself.
	_ = first.cmd.Process.Kill()
	<-first.waited
	first.waited <- nil
	third := startWeb(t, hubLine, "--state-dir", dir, "hub", "--nats", "off")
	if info, err := hub.ReadInfo(dir); err != nil || info.URL() != third.url || info.PID != third.cmd.Process.Pid {
		t.Fatalf("hub.json %+v (%v) after a new Hub started; want %s pid %d", info, err, third.url, third.cmd.Process.Pid)
	}
}

// TestHub_AddressRules: cos hub refuses a non-loopback address without a
// token and a malformed origin before opening anything.
func TestHub_AddressRules(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hub", "--http", "0.0.0.0:0"}, "requires --token"},
		{[]string{"hub", "--http", "nonsense"}, "want HOST:PORT"},
		{[]string{"hub", "--allow-origin", "evil.example"}, "--allow-origin"},
		{[]string{"hub", "--session-idle", "-1h"}, "--session-idle"},
	} {
		code, _, errs := run(t, dir, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("cos %v: exit %d %q; want %d mentioning %q", c.args, code, errs, ExitUsage, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, hub.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused cos hub took the lock: %v", err)
	}
}

var serveHubLine = regexp.MustCompile(`serving MCP over HTTP" addr=(127\.0\.0\.1:[0-9]+)`)

// TestServe_HTTPServesHubBesideMCP: cos serve --http serves the page at /,
// the API under /api/ and MCP at /mcp on one port, and a cos hub started
// after it names it.
func TestServe_HTTPServesHubBesideMCP(t *testing.T) {
	dir := t.TempDir()
	srv := startWeb(t, serveHubLine, "--state-dir", dir, "serve", "--http", "127.0.0.1:0", "--stdio=false", "--nats", "off", "--watch=false", "--index=false")
	if status, ctype, body := get(t, srv.url); status != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(string(body), "<html") {
		t.Fatalf("GET /: %d %s", status, ctype)
	}
	status, ctype, body := get(t, srv.url+"api/health")
	if status != 200 || ctype != "application/json" || !strings.Contains(string(body), `"ok":true`) {
		t.Fatalf("GET /api/health: %d %s %s", status, ctype, body)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.url+"mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"serverInfo"`) {
		t.Fatalf("POST /mcp initialize: %d %s", resp.StatusCode, b)
	}
	var health struct {
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(body, &health); err != nil || !health.OK {
		t.Fatalf("health body %s: %v", body, err)
	}

	out, err := cosProcess(t, "--state-dir", dir, "hub", "--nats", "off").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "a Hub already serves this state folder at "+srv.url) {
		t.Fatalf("cos hub beside cos serve --http: %v\n%s", err, out)
	}
}
