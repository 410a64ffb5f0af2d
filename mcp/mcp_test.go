package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/cosbin"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/tools"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// cosBin is the cos binary TestMain builds once for the wire tests.
var cosBin string

func TestMain(m *testing.M) { cosbin.Main(m, &cosBin, nil) }

// wireClient is a plain JSON-RPC 2.0 client over a `cos serve` process's
// stdin and stdout. Every line the server writes must be a JSON-RPC message:
// anything else fails the test.
type wireClient struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *bytes.Buffer

	// mu guards the fields below and writes to stdin.
	mu      sync.Mutex
	nextID  int
	waiting map[string]chan json.RawMessage
	junk    []string
	done    chan struct{}
	// init is the initialize response.
	init json.RawMessage

	closeOnce sync.Once
}

// wireStart runs `cos serve --nats off` on state with root approved, in
// root, and performs the MCP handshake.
func wireStart(t testing.TB, state, root string, extra ...string) *wireClient {
	t.Helper()
	return wireStartEnv(t, state, root, "", extra...)
}

// wireStartEnv is wireStart with env ("KEY=value", or "") added to the
// server's environment.
func wireStartEnv(t testing.TB, state, root, env string, extra ...string) *wireClient {
	t.Helper()
	args := append([]string{"serve", "--state-dir", state, "--nats", "off", "--index=false", "--root", root}, extra...)
	cmd := exec.Command(cosBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "COS_TOOLS=all") // every tool listed, unless extra says --tools
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &wireClient{t: t, cmd: cmd, stdin: stdin, stderr: &bytes.Buffer{}, waiting: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	cmd.Stderr = &lockedBuffer{b: c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(stdout)
	t.Cleanup(c.close)
	init := c.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "wire-test", "version": "1"},
	})
	if !bytes.Contains(init, []byte(`"serverInfo"`)) {
		t.Fatalf("initialize: %s", init)
	}
	c.init = init
	c.notify("notifications/initialized")
	return c
}

type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (c *wireClient) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		c.mu.Lock()
		if json.Unmarshal(line, &msg) != nil || msg.JSONRPC != "2.0" {
			c.junk = append(c.junk, string(line))
			c.mu.Unlock()
			continue
		}
		ch := c.waiting[string(msg.ID)]
		delete(c.waiting, string(msg.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- line
		}
	}
}

func (c *wireClient) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Errorf("write to cos serve: %v", err)
	}
}

func (c *wireClient) notify(method string) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method})
}

// request sends one request and returns the whole response line. Safe for
// concurrent use.
func (c *wireClient) request(method string, params any) json.RawMessage {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan json.RawMessage, 1)
	c.waiting[fmt.Sprint(id)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case line := <-ch:
		return line
	case <-c.done:
		c.t.Fatalf("cos serve closed stdout before answering %s; stderr:\n%s", method, c.stderrText())
	case <-time.After(60 * time.Second):
		c.t.Fatalf("no answer to %s in 60 s; stderr:\n%s", method, c.stderrText())
	}
	return nil
}

func (c *wireClient) stderrText() string {
	lb := c.cmd.Stderr.(*lockedBuffer)
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.String()
}

// callTool sends tools/call and returns the whole response line.
func (c *wireClient) callTool(name string, args json.RawMessage) json.RawMessage {
	c.t.Helper()
	return c.request("tools/call", map[string]any{"name": name, "arguments": args})
}

// close ends stdin, waits for the process and checks that stdout carried
// nothing but JSON-RPC.
func (c *wireClient) close() { c.closeOnce.Do(c.closeNow) }

func (c *wireClient) closeNow() {
	_ = c.stdin.Close()
	exited := make(chan error, 1)
	go func() { <-c.done; exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			c.t.Errorf("cos serve exited with %v; stderr:\n%s", err, c.stderrText())
		}
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		c.t.Errorf("cos serve did not exit after stdin closed")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.junk) > 0 {
		c.t.Errorf("stdout carried %d lines that are not JSON-RPC, first: %q", len(c.junk), c.junk[0])
	}
}

// wireResult is the result of a tools/call response.
type wireResult struct {
	JSONRPC string `json:"jsonrpc"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	} `json:"result"`
}

// wireDecode checks the wire contract of one tools/call response — a
// result, never a JSON-RPC error; structuredContent is the envelope; the text
// content is the same envelope; isError iff !ok — and returns the envelope.
func wireDecode(t testing.TB, tool string, line json.RawMessage) wireEnv {
	t.Helper()
	var r wireResult
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("%s: response is not JSON: %v", tool, err)
	}
	if r.Error != nil {
		t.Fatalf("%s: JSON-RPC error %d %s: a tool failure must be a result with isError", tool, r.Error.Code, r.Error.Message)
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" {
		t.Fatalf("%s: content %+v, want one text item", tool, r.Result.Content)
	}
	if !jsonEqual(t, []byte(r.Result.Content[0].Text), r.Result.StructuredContent) {
		t.Fatalf("%s: text content and structuredContent differ:\n%s\n%s", tool, r.Result.Content[0].Text, r.Result.StructuredContent)
	}
	var e wireEnv
	if err := json.Unmarshal(r.Result.StructuredContent, &e); err != nil {
		t.Fatalf("%s: structuredContent: %v", tool, err)
	}
	if r.Result.IsError == e.OK {
		t.Fatalf("%s: isError=%v but ok=%v", tool, r.Result.IsError, e.OK)
	}
	return e
}

// wireEnv is a decoded envelope.
type wireEnv = testutil.Envelope

func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// wireRepo writes the fixture repository and indexes it with `cos index`
// (a real process), returning the root and the state folder.
func wireRepo(t testing.TB) (root, state string) {
	t.Helper()
	root = testutil.WriteTree(t, testutil.DemoRepo)
	state = t.TempDir()
	cmd := exec.Command(cosBin, "index", "--state-dir", state, root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cos index: %v\n%s", err, out)
	}
	return root, state
}

func TestWire_ToolsListSchemasAndAnnotations(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	var list struct {
		Result struct {
			Tools []struct {
				Name         string         `json:"name"`
				Description  string         `json:"description"`
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
				Annotations  struct {
					ReadOnly    *bool `json:"readOnlyHint"`
					Destructive *bool `json:"destructiveHint"`
					Idempotent  *bool `json:"idempotentHint"`
					OpenWorld   *bool `json:"openWorldHint"`
				} `json:"annotations"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.request("tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]*tools.Tool{} // the same catalogue, in-process
	for _, tool := range tools.Catalogue() {
		want[tool.Name] = tool
	}
	if len(list.Result.Tools) != len(want) {
		t.Fatalf("tools/list has %d tools, the catalogue %d", len(list.Result.Tools), len(want))
	}
	for _, got := range list.Result.Tools {
		tool := want[got.Name]
		switch {
		case tool == nil:
			t.Errorf("%s is listed but not in the catalogue", got.Name)
			continue
		case got.InputSchema["type"] != "object" || !hasKeys(got.InputSchema, "properties"):
			t.Errorf("%s: input schema %v is not an object with properties", got.Name, got.InputSchema)
		case got.InputSchema["additionalProperties"] != false:
			// Closed; the server refuses unknown arguments too, naming the
			// accepted ones (TestToolList_UnknownArgumentRefused).
			t.Errorf("%s: input schema is not closed (additionalProperties false)", got.Name)
		case got.OutputSchema["type"] != "object" || !hasKeys(got.OutputSchema["properties"], "data"):
			t.Errorf("%s: no envelope output schema: %v", got.Name, got.OutputSchema)
		case got.Description == "":
			t.Errorf("%s: no description", got.Name)
		}
		// A hint is sent only where it differs from MCP's default
		// (readOnly false, destructive true, idempotent false, openWorld
		// true); destructive and idempotent mean nothing on a read tool.
		a := got.Annotations
		hint := func(name string, p *bool, def bool) bool {
			if p != nil && *p == def {
				t.Errorf("%s: %s %v is MCP's default: leave it out", got.Name, name, *p)
			}
			if p == nil {
				return def
			}
			return *p
		}
		if ro := hint("readOnlyHint", a.ReadOnly, false); ro != tool.ReadOnly {
			t.Errorf("%s: readOnlyHint %v, the tool's ReadOnly is %v", got.Name, ro, tool.ReadOnly)
		}
		if ow := hint("openWorldHint", a.OpenWorld, true); ow {
			t.Errorf("%s: openWorldHint true: cos tools touch only their repository and state folder", got.Name)
		}
		if tool.ReadOnly {
			if a.Destructive != nil || a.Idempotent != nil {
				t.Errorf("%s: a read tool sends destructiveHint or idempotentHint, which MCP reads only on a tool that writes", got.Name)
			}
			continue
		}
		if d := hint("destructiveHint", a.Destructive, true); d != tool.Destructive {
			t.Errorf("%s: destructiveHint %v, Destructive %v", got.Name, d, tool.Destructive)
		}
		if i := hint("idempotentHint", a.Idempotent, false); i != tool.Idempotent {
			t.Errorf("%s: idempotentHint %v, Idempotent %v", got.Name, i, tool.Idempotent)
		}
	}
	for _, name := range []string{"cos_graph_resolve", "cos_graph_context", "cos_graph_index", "cos_health"} {
		if want[name] == nil {
			t.Errorf("%s is missing from the catalogue", name)
		}
	}
}

// The unknown-tool answer is checked in TestWire_FailuresAreResults, not
// here: its nearest names change whenever a tool is added.

// wireMask replaces what changes from run to run — times, durations,
// sequence numbers, hashes, pids, ids, temporary paths — so the golden files
// hold the shape and the stable values.
func wireMask(b []byte, root, state string) []byte {
	s := string(b)
	s = strings.ReplaceAll(s, state, "<STATE>")
	s = strings.ReplaceAll(s, root, "<ROOT>")
	volatile := regexp.MustCompile(`"(log_seq|seq|head_seq|snapshot_seq|checkpoint|first_seq|last_seq|uptime_seconds|seconds|ms|duration_ms|pid|position|slot|bytes|tokens_estimated)":[0-9.e+-]+`)
	s = volatile.ReplaceAllString(s, `"$1":0`)
	s = regexp.MustCompile(`"id":"[0-9a-f]{16}"`).ReplaceAllString(s, `"id":"<masked>"`)
	str := regexp.MustCompile(`"(time|started|last_seen|head_hash|hash|state_hash|host|namespace|version|path)":"[^"]*"`)
	s = str.ReplaceAllStringFunc(s, func(m string) string {
		k := m[:strings.Index(m, ":")]
		if k == `"path"` && !strings.Contains(m, "<") { // repo-relative paths are stable
			return m
		}
		return k + `:"<masked>"`
	})
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return []byte(s)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return out.Bytes()
}

func TestWire_GoldenCalls(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	cases := []struct {
		name, tool, args string
	}{
		{"resolve", "cos_graph_resolve", `{"q":"Greet","kinds":["function"],"limit":3}`},
		{"resolve_cyrillic", "cos_graph_resolve", `{"q":"Привет","limit":3}`},
		{"context", "cos_graph_context", `{"uid_or_name":"main.go","depth":1}`},
		{"context_emoji_heading", "cos_graph_context", `{"uid_or_name":"README.md","edge_types":["contains"]}`},
		{"index_nochange", "cos_graph_index", `{}`},
		{"health", "cos_health", `{}`},
		{"bad_type", "cos_graph_resolve", `{"q":["Greet"]}`},
		{"unknown_argument", "cos_graph_context", `{"uid_or_name":"run","deep":2}`},
		{"out_of_range", "cos_graph_context", `{"uid_or_name":"run","depth":9}`},
		{"not_found", "cos_graph_context", `{"uid_or_name":"code:function:nowhere.go::nothing"}`},
		{"outside_root", "cos_graph_index", `{"path":"/"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line := c.callTool(tc.tool, json.RawMessage(tc.args))
			env := wireDecode(t, tc.tool, line)
			var r wireResult
			_ = json.Unmarshal(line, &r)
			got := wireMask(r.Result.StructuredContent, root, state)
			path := filepath.Join("testdata", "wire", tc.name+".golden.json")
			if *testutil.Update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %s differs from %s:\n%s", tc.tool, tc.args, path, got)
			}
			_ = env
		})
	}
}

func TestWire_FailuresAreResults(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	cases := []struct {
		tool, args, code string
		contains         []string
	}{
		{"cos_graph_resolve", `{"q":7}`, "E_ARGUMENT", []string{"q", "a number", "example"}},
		{"cos_graph_resolve", `{"q":"x","limit":"ten"}`, "E_ARGUMENT", []string{"limit", "an integer"}},
		{"cos_graph_context", `{"uid_or_name":"run","depth":0}`, "E_ARGUMENT", []string{"depth", "[1, 3]"}},
		{"cos_graph_context", `{"uid_or_name":"run","nope":1}`, "E_ARGUMENT", []string{"Unknown argument: nope"}},
		{"cos_graph_context", `{}`, "E_ARGUMENT", []string{"uid_or_name", "required"}},
		{"cos_graph_index", `{"path":"../.."}`, "E_PATH", []string{"outside the approved"}},
		{"cos_health", `{"verbose":true}`, "E_ARGUMENT", []string{"Unknown argument: verbose"}},
		{"cos_graph_contxt", `{}`, "E_UNKNOWN_TOOL", []string{"cos_graph_context"}},
		{"delete_everything", `{}`, "E_UNKNOWN_TOOL", []string{"did you mean"}},
	}
	for _, tc := range cases {
		e := wireDecode(t, tc.tool, c.callTool(tc.tool, json.RawMessage(tc.args)))
		if e.OK || e.Error.Code != tc.code {
			t.Errorf("%s %s: ok=%v code %q, want %s", tc.tool, tc.args, e.OK, e.Error.Code, tc.code)
			continue
		}
		for _, want := range tc.contains {
			if !strings.Contains(e.Error.Message, want) {
				t.Errorf("%s %s: message %q lacks %q", tc.tool, tc.args, e.Error.Message, want)
			}
		}
	}
	// Arguments that are not an object at all.
	line := c.request("tools/call", map[string]any{"name": "cos_graph_resolve", "arguments": []int{1}})
	var r wireResult
	_ = json.Unmarshal(line, &r)
	if r.Error == nil {
		if e := wireDecode(t, "cos_graph_resolve", line); e.OK {
			t.Errorf("a list as arguments succeeded")
		}
	}
}

// TestWire_EveryToolAnswersAResult calls every listed tool with {} — some
// succeed, most want arguments — and checks that each answer is a tool
// result honouring the wire contract, never a JSON-RPC error.
func TestWire_EveryToolAnswersAResult(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.request("tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Result.Tools {
		for _, args := range []string{`{}`, `{"zzz_unknown":1}`} {
			e := wireDecode(t, tool.Name, c.callTool(tool.Name, json.RawMessage(args)))
			if args != `{}` && (e.OK || e.Error.Code != "E_ARGUMENT") {
				t.Errorf("%s %s: ok=%v %s, want E_ARGUMENT", tool.Name, args, e.OK, e.Error.Code)
			}
			if !e.OK && e.Error.Code == "E_INTERNAL" {
				t.Errorf("%s %s: E_INTERNAL: %s", tool.Name, args, e.Error.Message)
			}
		}
	}
}

func TestWire_UnicodeRoundTripsByteExact(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	for _, label := range []string{"Привет", "Demo 🚀", "Запуск"} {
		line := c.callTool("cos_graph_resolve", json.RawMessage(fmt.Sprintf(`{"q":%q,"limit":5}`, label)))
		e := wireDecode(t, "cos_graph_resolve", line)
		if !e.OK {
			t.Fatalf("resolve %q: %s %s", label, e.Error.Code, e.Error.Message)
		}
		// The raw bytes on the wire hold the label as UTF-8, not as \u
		// escapes or replacement characters.
		if !bytes.Contains(line, []byte(`"label":"`+label+`"`)) {
			t.Errorf("the wire does not carry %q byte-exact: %s", label, line)
		}
	}
}

func TestWire_ConcurrentCallsFromOneClient(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, args, want := "cos_graph_resolve", `{"q":"Greet","limit":1}`, "code:function:util/greet.go::Greet"
			switch i % 3 {
			case 1:
				tool, args, want = "cos_graph_context", `{"uid_or_name":"code:function:main.go::run"}`, "code:function:hello.go::Привет"
			case 2:
				tool, args, want = "cos_health", `{}`, `"head_seq"`
			}
			line := c.callTool(tool, json.RawMessage(args))
			var r wireResult
			if json.Unmarshal(line, &r) != nil || r.Result.IsError || !bytes.Contains(r.Result.StructuredContent, []byte(want)) {
				errs <- fmt.Sprintf("%s: %s", tool, line)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestWire_LogsStayOffStdout runs the server with --debug, so it logs a
// lot, and checks stdout carried only JSON-RPC (checked at close) while
// stderr got the logs.
func TestWire_LogsStayOffStdout(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root, "--debug")
	wireDecode(t, "cos_graph_index", c.callTool("cos_graph_index", json.RawMessage(`{}`)))
	wireDecode(t, "cos_health", c.callTool("cos_health", json.RawMessage(`{}`)))
	c.close()
	if !strings.Contains(c.stderrText(), "level=") {
		t.Errorf("no logs on stderr with --debug:\n%s", c.stderrText())
	}
}

// TestWire_MCPGoClient drives the server with mcp-go's own client over
// stdio: the handshake, tools/list and a call decode with a real MCP
// client library.
func TestWire_MCPGoClient(t *testing.T) {
	root, state := wireRepo(t)
	cl, err := mcpclient.NewStdioMCPClient(cosBin, nil, "serve", "--state-dir", state, "--nats", "off", "--index=false", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "wire-test", Version: "1"}
	res, err := cl.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != ServerName {
		t.Fatalf("server name %q", res.ServerInfo.Name)
	}
	tools, err := cl.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v (%d tools)", err, len(tools.Tools))
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "cos_graph_resolve"
	req.Params.Arguments = map[string]any{"q": "Привет"}
	out, err := cl.CallTool(ctx, req)
	if err != nil || out.IsError {
		t.Fatalf("call: %v %+v", err, out)
	}
	text, ok := out.Content[0].(mcp.TextContent)
	if !ok || !strings.Contains(text.Text, `"label":"Привет"`) {
		t.Fatalf("content %+v", out.Content)
	}
	req.Params.Name = "cos_nothing"
	if out, err := cl.CallTool(ctx, req); err != nil || !out.IsError {
		t.Fatalf("unknown tool: err %v, result %+v (want an isError result)", err, out)
	}
}

// TestWire_HTTP serves streamable HTTP on a free loopback port and calls a
// tool over it; a non-loopback address without a token is refused.
func TestWire_HTTP(t *testing.T) {
	root, state := wireRepo(t)
	out, err := exec.Command(cosBin, "serve", "--state-dir", t.TempDir(), "--nats", "off", "--http", "0.0.0.0:0").CombinedOutput()
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--token") {
		t.Fatalf("non-loopback without a token: %v\n%s", err, out)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := wireStart(t, state, root, "--http", addr, "--token", "s3cret", "--stdio") // --stdio: closing stdin ends it
	_ = c
	url := "http://" + addr + "/mcp"
	post := func(token, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// Wait until the listener is up (the process started it in the
	// background); every attempt is a real request.
	var resp *http.Response
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		r, err := http.DefaultClient.Do(req)
		if err == nil {
			resp = r
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("HTTP listener never came up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize over HTTP: %s", resp.Status)
	}
	if r, _ := post("wrong", initBody); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: %s", r.Status)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"Привет"}}}`))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || !strings.Contains(string(body), `Привет`) || !strings.Contains(string(body), `\"ok\":true`) {
		t.Fatalf("tools/call over HTTP: %s\n%s", r.Status, body)
	}
}
