package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// liveClient is a raw JSON-RPC client over a `cos serve` process's stdio
// that keeps the notifications the server sends, with when they arrived.
type liveClient struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser
	errb  *lockedBuffer

	// mu guards the fields below and writes to stdin.
	mu      sync.Mutex
	nextID  int
	waiting map[string]chan json.RawMessage
	notes   []liveNote
	noted   chan struct{} // closed and replaced on each notification
	done    chan struct{}
}

// liveNote is one notification: its method, params.uri and arrival.
type liveNote struct {
	Method string
	URI    string
	At     time.Time
}

// liveStart runs `cos serve` on state (extra flags after) and performs the
// handshake.
func liveStart(t testing.TB, state, root string, extra ...string) *liveClient {
	t.Helper()
	args := append([]string{"serve", "--state-dir", state, "--root", root, "--watch=false", "--index=false"}, extra...)
	return liveStartIn(t, root, args...)
}

// liveStartIn runs cos with args (a serve command) in the folder dir and
// performs the handshake.
func liveStartIn(t testing.TB, dir string, args ...string) *liveClient {
	t.Helper()
	cmd := exec.Command(cosBin, args...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &liveClient{t: t, cmd: cmd, stdin: stdin, errb: &lockedBuffer{b: &bytes.Buffer{}},
		waiting: map[string]chan json.RawMessage{}, noted: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = c.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(stdout)
	t.Cleanup(func() {
		_ = stdin.Close()
		exited := make(chan error, 1)
		go func() { <-c.done; exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("cos serve did not exit after stdin closed")
		}
	})
	init := c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "live-test", "version": "1"}})
	if !bytes.Contains(init, []byte(`"subscribe":true`)) || !bytes.Contains(init, []byte(`"listChanged":true`)) {
		t.Fatalf("initialize does not announce resources.subscribe and tools.listChanged: %s", init)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *liveClient) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil {
			c.t.Errorf("stdout carried a line that is not JSON: %q", line)
			continue
		}
		c.mu.Lock()
		if len(msg.ID) == 0 && msg.Method != "" {
			c.notes = append(c.notes, liveNote{Method: msg.Method, URI: msg.Params.URI, At: time.Now()})
			close(c.noted)
			c.noted = make(chan struct{})
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

func (c *liveClient) send(v any) {
	b, _ := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.stdin.Write(append(b, '\n'))
}

// request sends a request and returns the whole response line.
func (c *liveClient) request(method string, params any) json.RawMessage {
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
		c.t.Fatalf("cos serve closed stdout before answering %s; stderr:\n%s", method, c.stderr())
	case <-time.After(60 * time.Second):
		c.t.Fatalf("no answer to %s in 60 s", method)
	}
	return nil
}

func (c *liveClient) stderr() string {
	c.errb.mu.Lock()
	defer c.errb.mu.Unlock()
	return c.errb.b.String()
}

// notesSince returns the notifications of method (and uri, unless empty)
// that arrived after since.
func (c *liveClient) notesSince(since time.Time, method, uri string) []liveNote {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []liveNote
	for _, n := range c.notes {
		if n.At.After(since) && n.Method == method && (uri == "" || n.URI == uri) {
			out = append(out, n)
		}
	}
	return out
}

// waitNote waits up to d for a notification of method (and uri) after
// since and returns it.
func (c *liveClient) waitNote(since time.Time, method, uri string, d time.Duration) (liveNote, bool) {
	deadline := time.After(d)
	for {
		c.mu.Lock()
		noted := c.noted
		c.mu.Unlock()
		if ns := c.notesSince(since, method, uri); len(ns) > 0 {
			return ns[0], true
		}
		select {
		case <-noted:
		case <-deadline:
			return liveNote{}, false
		}
	}
}

// result decodes a response's result into v, failing on a JSON-RPC error.
func (c *liveClient) result(line json.RawMessage, v any) {
	c.t.Helper()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Error != nil {
		c.t.Fatalf("response %s: %v", line, err)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		c.t.Fatalf("result %s: %v", r.Result, err)
	}
}

// liveCosCall runs `cos call` (a separate process, no bus) and returns the
// envelope it printed.
func liveCosCall(t testing.TB, state, tool, args string) []byte {
	t.Helper()
	out, err := exec.Command(cosBin, "call", "--state-dir", state, tool, args).Output()
	if err != nil {
		t.Fatalf("cos call %s %s: %v\n%s", tool, args, err, out)
	}
	if !bytes.Contains(out, []byte(`"ok":true`)) {
		t.Fatalf("cos call %s %s: %s", tool, args, out)
	}
	return out
}

// toolText calls a tool and returns its text content (the envelope).
func (c *liveClient) toolText(name, args string) string {
	c.t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	c.result(c.request("tools/call", map[string]any{"name": name, "arguments": json.RawMessage(args)}), &r)
	if len(r.Content) != 1 {
		c.t.Fatalf("%s: %d contents", name, len(r.Content))
	}
	return r.Content[0].Text
}

// readText reads a resource and returns its one content's text, checking
// its uri and mimeType.
func (c *liveClient) readText(uri string) string {
	c.t.Helper()
	var r struct {
		Contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	c.result(c.request("resources/read", map[string]any{"uri": uri}), &r)
	if len(r.Contents) != 1 || r.Contents[0].URI != uri || r.Contents[0].MIMEType != "application/json" {
		c.t.Fatalf("resources/read %s: %+v", uri, r.Contents)
	}
	return r.Contents[0].Text
}

// liveFixture indexes the demo repository and writes a task and an evidence
// record through `cos call`.
func liveFixture(t testing.TB) (root, state string) {
	root, state = wireRepo(t)
	liveCosCall(t, state, "cos_task_create", `{"title":"watch me"}`)
	liveCosCall(t, state, "cos_task_create", `{"title":"another"}`)
	liveCosCall(t, state, "cos_supervise_record_output", `{"session_id":"sess-42","role":"planner","output":{"summary":"split","steps":["a"]}}`)
	return root, state
}

func TestResources_ListAndReadAnswerTheToolsEnvelope(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")

	var list struct {
		Resources []struct{ URI, Name, Title, MIMEType string } `json:"resources"`
	}
	c.result(c.request("resources/list", map[string]any{}), &list)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		if r.MIMEType != "application/json" || r.Title == "" {
			t.Errorf("resource %+v: want mimeType application/json and a title", r)
		}
	}
	sort.Strings(uris)
	if want := []string{"cos://board", "cos://health"}; !slices.Equal(uris, want) {
		t.Errorf("resources/list = %v, want %v", uris, want)
	}
	var tl struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
			MIMEType    string `json:"mimeType"`
		} `json:"resourceTemplates"`
	}
	c.result(c.request("resources/templates/list", map[string]any{}), &tl)
	var templates []string
	for _, r := range tl.ResourceTemplates {
		templates = append(templates, r.URITemplate)
	}
	sort.Strings(templates)
	if want := []string{"cos://evidence/{session_id}", "cos://node/{uid}", "cos://task/{task_id}"}; !slices.Equal(templates, want) {
		t.Errorf("resources/templates/list = %v, want %v", templates, want)
	}

	// Each resource answers exactly what its tool answers.
	for _, tc := range []struct{ uri, tool, args string }{
		{"cos://board", "cos_task_board", `{}`},
		{"cos://task/TASK-001", "cos_task_get", `{"task_id":"TASK-001"}`},
		{"cos://node/code:function:main.go::run", "cos_graph_context", `{"uid_or_name":"code:function:main.go::run"}`},
		{"cos://node/code%3Afunction%3Amain.go%3A%3Arun", "cos_graph_context", `{"uid_or_name":"code:function:main.go::run"}`},
		{"cos://evidence/sess-42", "cos_evidence_bundle", `{"session_id":"sess-42"}`},
	} {
		got, want := c.readText(tc.uri), c.toolText(tc.tool, tc.args)
		if got != want {
			t.Errorf("resources/read %s:\n%s\nwant what %s %s answers:\n%s", tc.uri, got, tc.tool, tc.args, want)
		}
	}
	var health struct {
		OK   bool `json:"ok"`
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(c.readText("cos://health")), &health); err != nil || !health.OK {
		t.Errorf("cos://health: %+v %v", health, err)
	}
}

func TestResources_BadURIIsInvalidParams(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	bad := []struct{ uri, why string }{
		{"", "empty"},
		{"http://board", "cos://"},
		{"cos://boards", `"boards"`},
		{"cos://board/1", "nothing after"},
		{"cos://task/", "needs an id"},
		{"cos://task/7", "TASK-"},
		{"cos://task/TASK-001?x=1", "query"},
		{"cos://node/run", "not a node uid"},
		{"cos://node/code:function:main.go::run%zz", "percent-encoding"},
		{"cos://node/code:function:Привет.go::x", "percent-encoded"},
		{"cos://evidence/..", "session"},
	}
	for _, method := range []string{"resources/read", "resources/subscribe", "resources/unsubscribe"} {
		for _, tc := range bad {
			line := c.request(method, map[string]any{"uri": tc.uri})
			var r struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Data    struct {
						URI string `json:"uri"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(line, &r); err != nil || r.Error == nil {
				t.Errorf("%s %q: %s, want a JSON-RPC error", method, tc.uri, line)
				continue
			}
			quoted, _ := json.Marshal(tc.uri)
			if r.Error.Code != mcp.INVALID_PARAMS || r.Error.Data.URI != tc.uri ||
				!strings.Contains(r.Error.Message, string(quoted)) || !strings.Contains(r.Error.Message, tc.why) {
				t.Errorf("%s %q: error %+v, want -32602 naming the uri and %q", method, tc.uri, r.Error, tc.why)
			}
		}
	}
	// The session goes on, and no bad subscription notifies.
	since := time.Now()
	liveCosCall(t, state, "cos_task_update", `{"task_id":"TASK-001","patch":{"status":"in_progress"}}`)
	if got := c.readText("cos://task/TASK-001"); !strings.Contains(got, `"in_progress"`) {
		t.Errorf("after bad URIs the session reads %s", got)
	}
	time.Sleep(300 * time.Millisecond)
	if ns := c.notesSince(since, "notifications/resources/updated", ""); len(ns) > 0 {
		t.Errorf("bad subscriptions were notified: %+v", ns)
	}
}

// TestResources_SubscribeSeesOtherProcesses subscribes over stdio of a
// server without a bus and writes from other processes: `cos call` and a
// second `cos serve`.
func TestResources_SubscribeSeesOtherProcesses(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	const task, board, other, node, ev = "cos://task/TASK-001", "cos://board", "cos://task/TASK-002", "cos://node/code:function:main.go::run", "cos://evidence/sess-42"
	for _, uri := range []string{task, board, node, ev} {
		var empty struct{}
		c.result(c.request("resources/subscribe", map[string]any{"uri": uri}), &empty)
	}

	// A write to TASK-001 from `cos call`: the task and the board, not the
	// node nor the evidence.
	since := time.Now()
	liveCosCall(t, state, "cos_task_update", `{"task_id":"TASK-001","patch":{"status":"in_progress"}}`)
	for _, uri := range []string{task, board} {
		if _, ok := c.waitNote(since, "notifications/resources/updated", uri, 5*time.Second); !ok {
			t.Fatalf("no notifications/resources/updated for %s after a write from another process; stderr:\n%s", uri, c.stderr())
		}
	}
	time.Sleep(200 * time.Millisecond)
	for _, uri := range []string{node, ev, other} {
		if ns := c.notesSince(since, "notifications/resources/updated", uri); len(ns) > 0 {
			t.Errorf("%s was notified for a write to TASK-001", uri)
		}
	}

	// Evidence recorded by a second server process.
	w := liveStart(t, state, root, "--nats", "off")
	since = time.Now()
	w.toolText("cos_supervise_record_output", `{"session_id":"sess-42","kind":"discovery","output":{"summary":"found"}}`)
	if _, ok := c.waitNote(since, "notifications/resources/updated", ev, 5*time.Second); !ok {
		t.Fatalf("no update for %s after a record by another cos serve", ev)
	}

	// A burst of 50 writes: at most one notification per 100 ms, and the
	// last one comes after the last write.
	since = time.Now()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			w.toolText("cos_task_update", fmt.Sprintf(`{"task_id":"TASK-001","patch":{"labels":["l%d"]}}`, i))
		})
	}
	wg.Wait()
	lastWrite := time.Now()
	time.Sleep(400 * time.Millisecond)
	ns := c.notesSince(since, "notifications/resources/updated", task)
	if len(ns) == 0 {
		t.Fatal("no notification for a burst of 50 writes")
	}
	// The gaps are timed where the client reads the notifications: one
	// read late (a loaded machine) shortens the gap after it, so each gap
	// is held to half the interval and their mean to the interval.
	for i := 1; i < len(ns); i++ {
		if gap := ns[i].At.Sub(ns[i-1].At); gap < 50*time.Millisecond {
			t.Errorf("notifications %d and %d of %s are %v apart, want ≥ 100 ms", i-1, i, task, gap)
		}
	}
	if n := len(ns); n > 1 {
		if mean := ns[n-1].At.Sub(ns[0].At) / time.Duration(n-1); mean < 90*time.Millisecond {
			t.Errorf("%d notifications of %s are %v apart on average, want ≥ 100 ms", n, task, mean)
		}
	}
	if max := int(lastWrite.Sub(since)/(100*time.Millisecond)) + 2; len(ns) > max {
		t.Errorf("%d notifications for 50 writes over %v, want at most %d", len(ns), lastWrite.Sub(since), max)
	}
	if last := ns[len(ns)-1].At; last.Before(lastWrite.Add(-100 * time.Millisecond)) {
		t.Errorf("the last notification (%v) came well before the last write (%v): the final state was never announced", last, lastWrite)
	}
	t.Logf("a burst of 50 writes over %v: %d notifications", lastWrite.Sub(since), len(ns))

	// A re-index of main.go touches the node.
	since = time.Now()
	liveCosCall(t, state, "cos_graph_upsert", `{"nodes":[{"uid":"code:function:main.go::run","kind":"function","label":"run","path":"main.go"}]}`)
	if _, ok := c.waitNote(since, "notifications/resources/updated", node, 5*time.Second); !ok {
		t.Errorf("no update for %s after an upsert naming it", node)
	}

	// Unsubscribed: no more notifications.
	var empty struct{}
	c.result(c.request("resources/unsubscribe", map[string]any{"uri": task}), &empty)
	since = time.Now()
	liveCosCall(t, state, "cos_task_update", `{"task_id":"TASK-001","patch":{"status":"todo"}}`)
	if _, ok := c.waitNote(since, "notifications/resources/updated", board, 5*time.Second); !ok {
		t.Fatal("the board was not notified")
	}
	time.Sleep(300 * time.Millisecond)
	if ns := c.notesSince(since, "notifications/resources/updated", task); len(ns) > 0 {
		t.Errorf("%s was notified after resources/unsubscribe: %+v", task, ns)
	}
}

// TestResources_ModuleSwitchChangesTheToolList disables and enables the
// tasks module from another process.
func TestResources_ModuleSwitchChangesTheToolList(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	toolNames := func() []string {
		var l struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		c.result(c.request("tools/list", map[string]any{}), &l)
		var names []string
		for _, tl := range l.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	hasTaskTools := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "cos_task_") })
	}
	if !hasTaskTools(toolNames()) {
		t.Fatal("no cos_task_* tool listed before the switch")
	}
	since := time.Now()
	if out, err := exec.Command(cosBin, "module", "disable", "tasks", "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("cos module disable: %v\n%s", err, out)
	}
	if _, ok := c.waitNote(since, "notifications/tools/list_changed", "", 5*time.Second); !ok {
		t.Fatalf("no notifications/tools/list_changed after cos module disable tasks in another process; stderr:\n%s", c.stderr())
	}
	if names := toolNames(); hasTaskTools(names) || !slices.Contains(names, "cos_graph_context") {
		t.Errorf("tools/list after disabling tasks: %v", names)
	}
	// A call to a tool no longer listed still answers, as a tool result.
	if got := c.toolText("cos_task_get", `{"task_id":"TASK-001"}`); !strings.Contains(got, "E_MODULE_DISABLED") {
		t.Errorf("cos_task_get with tasks disabled: %s", got)
	}
	since = time.Now()
	if out, err := exec.Command(cosBin, "module", "enable", "tasks", "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("cos module enable: %v\n%s", err, out)
	}
	if _, ok := c.waitNote(since, "notifications/tools/list_changed", "", 5*time.Second); !ok {
		t.Fatal("no notifications/tools/list_changed after cos module enable tasks")
	}
	if !hasTaskTools(toolNames()) {
		t.Error("the task tools did not come back")
	}
	if got := c.toolText("cos_task_get", `{"task_id":"TASK-001"}`); !strings.Contains(got, `"ok":true`) {
		t.Errorf("cos_task_get after enabling: %s", got)
	}
}

// mcpGoLive drives one mcp-go client through resources, a subscription
// updated by `cos call` and a module switch.
func mcpGoLive(t *testing.T, cl *mcpclient.Client, state, version string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	notes := make(chan mcp.JSONRPCNotification, 100)
	cl.OnNotification(func(n mcp.JSONRPCNotification) { notes <- n })
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "live-test", Version: "1"}
	res, err := cl.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != version {
		t.Fatalf("negotiated protocol %s, want %s", res.ProtocolVersion, version)
	}
	if res.Capabilities.Resources == nil || !res.Capabilities.Resources.Subscribe || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
		t.Fatalf("capabilities %+v", res.Capabilities)
	}
	rl, err := cl.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || len(rl.Resources) != 2 {
		t.Fatalf("resources/list: %v %+v", err, rl)
	}
	tl, err := cl.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tl.ResourceTemplates) != 3 {
		t.Fatalf("resources/templates/list: %v %+v", err, tl)
	}
	read := mcp.ReadResourceRequest{}
	read.Params.URI = "cos://task/TASK-001"
	rr, err := cl.ReadResource(ctx, read)
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read: %v %+v", err, rr)
	}
	if text, ok := rr.Contents[0].(mcp.TextResourceContents); !ok || !strings.Contains(text.Text, `"task_id":"TASK-001"`) || text.MIMEType != "application/json" {
		t.Fatalf("resources/read contents %+v", rr.Contents[0])
	}
	read.Params.URI = "cos://task/nope"
	if _, err := cl.ReadResource(ctx, read); err == nil || !strings.Contains(err.Error(), "cos://task/nope") {
		t.Errorf("a bad URI: %v, want an error naming it", err)
	}
	sub := mcp.SubscribeRequest{}
	sub.Params.URI = "cos://task/TASK-001"
	if err := cl.Subscribe(ctx, sub); err != nil { //nolint:staticcheck // resources/subscribe of protocols up to 2025-11-25, tested on purpose
		t.Fatalf("resources/subscribe: %v", err)
	}
	wait := func(method, uri string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case n := <-notes:
				if n.Method == method && (uri == "" || n.Params.AdditionalFields["uri"] == uri) {
					return
				}
			case <-deadline:
				t.Fatalf("no %s %s", method, uri)
			}
		}
	}
	if mcp.IsModernProtocol(version) {
		// 2026-07-28: Subscribe only records the URI; the stream opens it.
		stop, err := cl.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true,
			ResourceSubscriptions: []string{sub.Params.URI}}, func(err error) { t.Errorf("listen: %v", err) })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		wait(string(mcp.MethodNotificationSubscriptionsAcknowledged), "")
	}
	liveCosCall(t, state, "cos_task_update", `{"task_id":"TASK-001","patch":{"status":"in_progress"}}`)
	wait("notifications/resources/updated", "cos://task/TASK-001")

	if out, err := exec.Command(cosBin, "module", "disable", "tasks", "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("cos module disable: %v\n%s", err, out)
	}
	wait("notifications/tools/list_changed", "")
	tools, err := cl.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "cos_task_") {
			t.Errorf("%s is still listed with the tasks module off", tool.Name)
		}
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "cos_task_board"
	if out, err := cl.CallTool(ctx, call); err != nil || !out.IsError {
		t.Errorf("cos_task_board with tasks off: %v %+v, want an isError result", err, out)
	}
}

func TestResources_MCPGoClientStdio(t *testing.T) {
	root, state := liveFixture(t)
	cl, err := mcpclient.NewStdioMCPClient(cosBin, nil, "serve", "--state-dir", state, "--nats", "off", "--root", root, "--watch=false", "--index=false")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mcpGoLive(t, cl, state, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// TestResources_MCPGoClientStdioListen is the same over protocol
// 2026-07-28, which subscribes through a subscriptions/listen stream.
func TestResources_MCPGoClientStdioListen(t *testing.T) {
	root, state := liveFixture(t)
	cl, err := mcpclient.NewStdioMCPClient(cosBin, nil, "serve", "--state-dir", state, "--nats", "off", "--root", root, "--watch=false", "--index=false")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mcpGoLive(t, cl, state, mcp.LATEST_PROTOCOL_VERSION)
}

func TestResources_MCPGoClientHTTP(t *testing.T) {
	root, state := liveFixture(t)
	addr := freeAddr(t)
	_ = liveStart(t, state, root, "--nats", "off", "--http", addr, "--stdio") // --stdio: closing stdin ends it
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, nil)
	cl, err := mcpclient.NewStreamableHttpClient(url, transport.WithContinuousListening()) //nolint:staticcheck // the GET stream of a stateful (legacy) HTTP session
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mcpGoLive(t, cl, state, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// BenchmarkResourceUpdate_CrossProcess measures the time from a write sent
// to one `cos serve` (process A) until a client subscribed through another
// `cos serve` (process B) receives notifications/resources/updated. Run it
// with -benchtime=200x; it reports p50 and p99 in ms, with both servers
// on --nats off (B learns of the commit by polling the log head) and on
// the embedded bus (a doorbell).
func BenchmarkResourceUpdate_CrossProcess(b *testing.B) {
	for _, nats := range []string{"off", "auto"} {
		b.Run("nats="+nats, func(b *testing.B) {
			root, state := liveFixture(b)
			sub := liveStart(b, state, root, "--nats", nats)
			writer := liveStart(b, state, root, "--nats", nats)
			var empty struct{}
			sub.result(sub.request("resources/subscribe", map[string]any{"uri": "cos://task/TASK-001"}), &empty)
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				time.Sleep(110 * time.Millisecond) // past the 100 ms coalescing window
				b.StartTimer()
				sent := time.Now()
				writer.toolText("cos_task_update", fmt.Sprintf(`{"task_id":"TASK-001","patch":{"labels":["b%d"]}}`, i))
				n, ok := sub.waitNote(sent, "notifications/resources/updated", "cos://task/TASK-001", 5*time.Second)
				if !ok {
					b.Fatalf("write %d: no notification in 5 s", i)
				}
				lat = append(lat, n.At.Sub(sent))
			}
			b.StopTimer()
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50_ms")
			b.ReportMetric(pct(0.99), "p99_ms")
			b.Logf("nats=%s: %d writes, p50 %.1f ms, p99 %.1f ms, max %.1f ms (write sent to A → notification at B's client)",
				nats, len(lat), pct(0.50), pct(0.99), float64(lat[len(lat)-1].Microseconds())/1000)
		})
	}
}
