package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHistory_ActorsOverMCP updates one task from three MCP sessions of
// two real `cos serve` processes — a raw JSON-RPC client over stdio and
// mcp-go's streamable HTTP client on the first, mcp-go's stdio client on
// the second — and reads cos_history: every write names the client (from
// its initialize) and the session it was made in.
func TestHistory_ActorsOverMCP(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	raw := wireStart(t, state, root, "--http", addr, "--stdio")
	url := "http://" + addr + "/mcp"
	waitHTTP(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	httpCl, err := mcpclient.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer httpCl.Close()
	if err := httpCl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stdioCl, err := mcpclient.NewStdioMCPClient(cosBin, nil, "serve", "--state-dir", state, "--nats", "off", "--root", root, "--watch=false", "--index=false")
	if err != nil {
		t.Fatal(err)
	}
	defer stdioCl.Close()
	for name, cl := range map[string]*mcpclient.Client{"http-agent": httpCl, "stdio-agent": stdioCl} {
		init := mcp.InitializeRequest{}
		// Over HTTP a session exists from 2025-06-18 (Mcp-Session-Id); the
		// stateless versions after it have none.
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		if cl == httpCl {
			init.Params.ProtocolVersion = "2025-06-18"
		}
		init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "2.1"}
		if _, err := cl.Initialize(ctx, init); err != nil {
			t.Fatalf("%s: initialize: %v", name, err)
		}
	}
	callGo := func(cl *mcpclient.Client, tool string, args map[string]any) wireEnv {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		out, err := cl.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var e wireEnv
		if err := json.Unmarshal([]byte(out.Content[0].(mcp.TextContent).Text), &e); err != nil {
			t.Fatal(err)
		}
		if !e.OK {
			t.Fatalf("%s: %s %s", tool, e.Error.Code, e.Error.Message)
		}
		return e
	}
	callRaw := func(tool, args string) wireEnv {
		t.Helper()
		e := wireDecode(t, tool, raw.callTool(tool, json.RawMessage(args)))
		if !e.OK {
			t.Fatalf("%s: %s %s", tool, e.Error.Code, e.Error.Message)
		}
		return e
	}

	callRaw("cos_task_create", `{"title": "shared task"}`)
	for i := range 3 {
		callGo(httpCl, "cos_task_update", map[string]any{"task_id": "TASK-001", "patch": map[string]any{"labels": []string{fmt.Sprintf("h%d", i)}}})
		callGo(stdioCl, "cos_task_update", map[string]any{"task_id": "TASK-001", "patch": map[string]any{"priority": []string{"low", "high", "critical"}[i]}})
		callRaw("cos_task_update", fmt.Sprintf(`{"task_id": "TASK-001", "patch": {"title": "shared task %d"}}`, i))
	}

	// Read it from each of the three sessions: the same history.
	type row struct {
		Seq     uint64 `json:"seq"`
		Summary string `json:"summary"`
		Actor   struct {
			PID           int    `json:"pid"`
			Client        string `json:"client"`
			ClientVersion string `json:"client_version"`
			Session       string `json:"session"`
		} `json:"actor"`
	}
	decode := func(e wireEnv) []row {
		t.Helper()
		b, _ := json.Marshal(e.Data["events"])
		var rows []row
		if err := json.Unmarshal(b, &rows); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	fromRaw := decode(callRaw("cos_history", `{"task_id": "TASK-001"}`))
	fromHTTP := decode(callGo(httpCl, "cos_history", map[string]any{"task_id": "TASK-001"}))
	fromStdio := decode(callGo(stdioCl, "cos_history", map[string]any{"task_id": "TASK-001"}))
	if len(fromRaw) != 10 || len(fromHTTP) != 10 || len(fromStdio) != 10 {
		t.Fatalf("events: raw %d, http %d, stdio %d; want 10 each", len(fromRaw), len(fromHTTP), len(fromStdio))
	}
	for i := range fromRaw {
		if fromRaw[i] != fromHTTP[i] || fromRaw[i] != fromStdio[i] {
			t.Fatalf("event %d differs between sessions: %+v %+v %+v", i, fromRaw[i], fromHTTP[i], fromStdio[i])
		}
	}
	// Newest first: title (raw), priority (stdio), labels (http), … create (raw).
	httpSession := ""
	for i, r := range fromRaw {
		var client, session, says string
		switch {
		case i == len(fromRaw)-1:
			client, session, says = "wire-test", "stdio", `created "shared task"`
		case i%3 == 0:
			client, session, says = "wire-test", "stdio", "title: "
		case i%3 == 1:
			client, session, says = "stdio-agent", "stdio", "priority: "
		default:
			client, says = "http-agent", "labels: "
			session = r.Actor.Session
			if !strings.HasPrefix(session, "mcp-session-") || (httpSession != "" && session != httpSession) {
				t.Errorf("event %d: HTTP session %q (earlier %q)", i, session, httpSession)
			}
			httpSession = session
		}
		if r.Actor.Client != client || r.Actor.Session != session || !strings.Contains(r.Summary, says) {
			t.Errorf("event %d: %s/%s %q, want %s/%s %q", i, r.Actor.Client, r.Actor.Session, r.Summary, client, session, says)
		}
		if client == "stdio-agent" && (r.Actor.PID == fromRaw[0].Actor.PID || r.Actor.ClientVersion != "2.1") {
			t.Errorf("event %d: the second process's write has pid %d (first process %d), version %q", i, r.Actor.PID, fromRaw[0].Actor.PID, r.Actor.ClientVersion)
		}
	}
	if got := decode(callRaw("cos_history", `{"task_id": "TASK-001", "actor": "http-agent"}`)); len(got) != 3 {
		t.Errorf("actor http-agent: %d events, want 3", len(got))
	}
	if got := decode(callRaw("cos_history", fmt.Sprintf(`{"task_id": "TASK-001", "actor": %q}`, httpSession))); len(got) != 3 {
		t.Errorf("actor %s: %d events, want 3", httpSession, len(got))
	}
}
