package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// httpPost sends one JSON-RPC body to url with the given headers and
// returns the response and its body.
func httpPost(t testing.TB, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// waitHTTP polls url with an initialize until the listener answers; every
// attempt is a real request.
func waitHTTP(t testing.TB, url string, header map[string]string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("initialize over HTTP: %s", resp.Status)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("HTTP listener never came up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestWire_HTTPOrigin(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	c := wireStart(t, state, root, "--http", addr, "--stdio",
		"--allow-origin", "HTTPS://App.Example.com:443", "--allow-origin", "http://localhost:5173")
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, nil)
	cases := []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK}, // no Origin: not a browser
		{"http://evil.example", http.StatusForbidden},
		{"http://evil.example:" + port, http.StatusForbidden}, // DNS rebinding
		{"null", http.StatusForbidden},
		{"http://127.0.0.1:1", http.StatusForbidden},
		{"https://127.0.0.1:" + port, http.StatusForbidden},
		{"http://127.0.0.1:" + port, http.StatusOK},
		{"http://localhost:" + port, http.StatusOK},
		{"https://app.example.com", http.StatusOK},
		{"http://localhost:5173", http.StatusOK},
		{"http://localhost:5174", http.StatusForbidden},
	}
	for _, tc := range cases {
		h := map[string]string{}
		if tc.origin != "" {
			h["Origin"] = tc.origin
		}
		resp, body := httpPost(t, url, initBody, h)
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %q: %s %s, want %d", tc.origin, resp.Status, body, tc.want)
			continue
		}
		if tc.want == http.StatusForbidden && !strings.Contains(body, tc.origin) {
			t.Errorf("Origin %q: the 403 does not name the origin: %s", tc.origin, body)
		}
		if tc.origin == "https://app.example.com" && resp.Header.Get("Access-Control-Allow-Origin") != tc.origin {
			t.Errorf("allowed origin: no CORS header: %v", resp.Header)
		}
	}
	// A foreign origin changes nothing, even within a session: no task is
	// created.
	resp, _ := httpPost(t, url, initBody, nil)
	session := resp.Header.Get("Mcp-Session-Id")
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cos_task_create","arguments":{"title":"from a web page"}}}`
	if resp, body := httpPost(t, url, call, map[string]string{"Origin": "http://evil.example", "Mcp-Session-Id": session}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("tools/call from a foreign origin: %s %s", resp.Status, body)
	}
	if e := wireDecode(t, "cos_task_get", c.callTool("cos_task_get", json.RawMessage(`{"task_id":"TASK-001"}`))); e.OK {
		t.Errorf("a request from a foreign origin created a task")
	}

	out, err := exec.Command(cosBin, "serve", "--state-dir", t.TempDir(), "--nats", "off", "--http", freeAddr(t), "--allow-origin", "evil.example/path").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "evil.example/path") {
		t.Errorf("a malformed --allow-origin: %v\n%s", err, out)
	}
}

func TestWire_HTTPBearer(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	wireStart(t, state, root, "--http", addr, "--stdio", "--token", "s3cret")
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, map[string]string{"Authorization": "Bearer s3cret"})
	cases := []struct {
		auth string // "" sends no header
		want int
	}{
		{"", http.StatusUnauthorized},
		{"s3cret", http.StatusUnauthorized}, // no scheme
		{"Basic s3cret", http.StatusUnauthorized},
		{"Bearer", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cret-and-more", http.StatusUnauthorized},
		{"Bearers3cret", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK}, // the scheme is case-insensitive (RFC 9110)
		{"BEARER   s3cret", http.StatusOK},
	}
	for _, tc := range cases {
		h := map[string]string{}
		if tc.auth != "" {
			h["Authorization"] = tc.auth
		}
		resp, body := httpPost(t, url, initBody, h)
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: %s %s, want %d", tc.auth, resp.Status, body, tc.want)
			continue
		}
		if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: 401 without WWW-Authenticate: Bearer (got %q)", tc.auth, resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func TestWire_HTTPBodyOverLimit(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	wireStart(t, state, root, "--http", addr, "--stdio")
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, nil)
	big := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"` +
		strings.Repeat("a", MaxMessageBytes) + `"}}}`
	resp, body := httpPost(t, url, big, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "64 MiB") || !strings.Contains(body, strconv.Itoa(MaxMessageBytes)) {
		t.Fatalf("a body over the limit: %s %s, want 413 naming the limit", resp.Status, body)
	}
	// The server goes on.
	if resp, body := httpPost(t, url, initBody, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("after a body over the limit: %s %s", resp.Status, body)
	}
}

// expect registers for the response with id (its JSON text, "null" for
// null) before the request is sent.
func (c *wireClient) expect(id string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	return ch
}

// sendLine writes head, then n bytes of 'x', then tail and a newline to
// the server's stdin, streaming the filler in pieces.
func (c *wireClient) sendLine(head string, n int, tail string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := bufio.NewWriterSize(c.stdin, 1<<20)
	_, _ = w.WriteString(head)
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			c.t.Errorf("write to cos serve: %v", err)
			return
		}
		n -= k
	}
	_, _ = w.WriteString(tail + "\n")
	if err := w.Flush(); err != nil {
		c.t.Errorf("write to cos serve: %v", err)
	}
}

func (c *wireClient) await(ch chan json.RawMessage, what string) json.RawMessage {
	c.t.Helper()
	select {
	case line := <-ch:
		return line
	case <-c.done:
		c.t.Fatalf("cos serve closed stdout before answering %s; stderr:\n%s", what, c.stderrText())
	case <-time.After(120 * time.Second):
		c.t.Fatalf("no answer to %s; stderr:\n%s", what, c.stderrText())
	}
	return nil
}

// peakRSS is the process's peak resident set (VmHWM) in bytes, or -1 where
// /proc does not tell.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

func TestWire_StdioLineOverLimit(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	cases := []struct {
		name, head, tail, id string
		filler               int
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"`, `"}}}`, "7", MaxMessageBytes},
		{"id last", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"`, `"}},"id":"last-one"}`, `"last-one"`, MaxMessageBytes},
		{"no id", `{"jsonrpc":"2.0","method":"notifications/x","params":{"q":"`, `"}}`, "null", MaxMessageBytes},
		{"not json", ``, ``, "null", MaxMessageBytes + 1},
		// Four times the limit: memory must not follow the line's size.
		{"huge", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"`, `"}}}`, "8", 4 * MaxMessageBytes},
	}
	peaks := map[string]int64{"before": peakRSS(c.cmd.Process.Pid)}
	for _, tc := range cases {
		ch := c.expect(tc.id)
		c.sendLine(tc.head, tc.filler, tc.tail)
		line := c.await(ch, tc.name)
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &r); err != nil || r.Error == nil || r.Error.Code != -32600 || string(r.ID) != tc.id ||
			!strings.Contains(r.Error.Message, "64 MiB") || !strings.Contains(r.Error.Message, strconv.Itoa(len(tc.head)+tc.filler+len(tc.tail))) {
			t.Errorf("%s: answer %s, want error -32600 with id %s naming the size and the limit", tc.name, line, tc.id)
		}
		// The session goes on.
		wireDecode(t, "cos_health", c.callTool("cos_health", json.RawMessage(`{}`)))
		peaks[tc.name] = peakRSS(c.cmd.Process.Pid)
	}
	// Memory is bounded by the limit, not by the line: a line four times
	// the limit raises the peak no further than one just over it.
	t.Logf("peak RSS: before %d MiB, after a line of 64 MiB + 1 KiB %d MiB, after a line of 256 MiB %d MiB",
		peaks["before"]>>20, peaks["id first"]>>20, peaks["huge"]>>20)
	if peaks["huge"] > 0 && peaks["huge"]-peaks["id first"] > MaxMessageBytes/2 {
		t.Errorf("a line of 256 MiB raised the peak RSS from %d to %d MiB: skipping buffers the line",
			peaks["id first"]>>20, peaks["huge"]>>20)
	}
}

// exitWithin waits up to d for the process to exit and returns its exit
// code; the test fails if it does not. It takes over the wireClient's
// close.
func (c *wireClient) exitWithin(d time.Duration) int {
	c.t.Helper()
	c.closeOnce.Do(func() {})
	exited := make(chan error, 1)
	go func() { <-c.done; exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			c.t.Fatal(err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.junk) > 0 {
			c.t.Errorf("stdout carried %d lines that are not JSON-RPC, first: %q", len(c.junk), c.junk[0])
		}
		return 0
	case <-time.After(d):
		_ = c.cmd.Process.Kill()
		<-exited
		c.t.Fatalf("cos serve did not exit within %v; stderr:\n%s", d, c.stderrText())
	}
	return -1
}

func TestServe_SignalEndsStdio(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root, state := wireRepo(t)
			c := wireStart(t, state, root)
			wireDecode(t, "cos_health", c.callTool("cos_health", json.RawMessage(`{}`)))
			inflight := c.expect("99")
			c.send(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": map[string]any{"name": "cos_graph_index", "arguments": map[string]any{}}})
			start := time.Now()
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// stdin stays open: the signal alone must end the server.
			if code := c.exitWithin(10 * time.Second); code != 0 {
				t.Fatalf("exit code %d after %v; stderr:\n%s", code, sig, c.stderrText())
			}
			t.Logf("exited %v after %v", time.Since(start).Round(time.Millisecond), sig)
			select {
			case line := <-inflight: // finished or cancelled, it is a tool result
				wireDecode(t, "cos_graph_index", line)
			default: // the signal came before the call was read
			}
			// The state folder is released and intact.
			out, err := exec.Command(cosBin, "verify", "--state-dir", state).CombinedOutput()
			if err != nil {
				t.Fatalf("cos verify after the signal: %v\n%s", err, out)
			}
			out, err = exec.Command(cosBin, "call", "--state-dir", state, "--nats", "off", "--root", root, "cos_graph_index", "{}").CombinedOutput()
			if err != nil {
				t.Fatalf("cos call after the signal: %v\n%s", err, out)
			}
		})
	}
}

// serveProc starts `cos serve` with stdin as given (nil: /dev/null).
func serveProc(t testing.TB, stdin io.Reader, args ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(cosBin, append([]string{"serve", "--state-dir", t.TempDir(), "--nats", "off", "--index=false"}, args...)...)
	cmd.Stdin = stdin
	stderr := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = stderr
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, stderr
}

// waitExit waits up to d for cmd and returns its exit code, or -1 when it
// is still running.
func waitExit(t testing.TB, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return -1
	}
}

func TestServe_HTTPOutlivesStdinEOF(t *testing.T) {
	cases := []struct {
		name  string
		stdin func() io.Reader
	}{
		{"dev null", func() io.Reader { return nil }},                      // nohup, systemd, docker without -i
		{"closed pipe", func() io.Reader { return strings.NewReader("") }}, // a pipe at its end at once
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := freeAddr(t)
			cmd, stderr := serveProc(t, tc.stdin(), "--http", addr)
			url := "http://" + addr + "/mcp"
			waitHTTP(t, url, nil)
			time.Sleep(500 * time.Millisecond) // stdin's end has long been read
			if resp, body := httpPost(t, url, initBody, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("after stdin's end: %s %s", resp.Status, body)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatalf("the server is gone: %v\n%s", err, stderr.String())
			}
			if code := waitExit(t, cmd, 10*time.Second); code != 0 {
				t.Fatalf("after SIGTERM: exit %d\n%s", code, stderr.String())
			}
		})
	}
	// --stdio asks for stdio: its end ends the server.
	cmd, stderr := serveProc(t, nil, "--http", freeAddr(t), "--stdio")
	if code := waitExit(t, cmd, 30*time.Second); code != 0 {
		t.Fatalf("--stdio with stdin at its end: exit %d\n%s", code, stderr.String())
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServe_HTTPAddressErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cases := []struct {
		addr     string
		code     int
		contains []string
	}{
		{busy.Addr().String(), 1, []string{busy.Addr().String(), "already in use"}},
		{"127.0.0.1:99999", 2, []string{"127.0.0.1:99999", "0 to 65535"}},
		{"127.0.0.1:http-ish", 2, []string{"127.0.0.1:http-ish", "0 to 65535"}},
		{"127.0.0.1", 2, []string{"127.0.0.1", "missing port"}},
	}
	for _, tc := range cases {
		pr, pw, err := os.Pipe() // stdin stays open: only the address may end the server
		if err != nil {
			t.Fatal(err)
		}
		cmd, stderr := serveProc(t, pr, "--http", tc.addr)
		_ = pr.Close()
		code := waitExit(t, cmd, 30*time.Second)
		_ = pw.Close()
		out := stderr.String()
		if code != tc.code || strings.Contains(out, "E_INTERNAL") {
			t.Errorf("--http %s: exit %d, want %d\n%s", tc.addr, code, tc.code, out)
			continue
		}
		for _, want := range tc.contains {
			if !strings.Contains(out, want) {
				t.Errorf("--http %s: stderr lacks %q:\n%s", tc.addr, want, out)
			}
		}
	}
}
