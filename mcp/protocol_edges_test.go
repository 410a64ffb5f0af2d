package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/mcpsdk"
)

// A POST other than initialize without Mcp-Session-Id is a bad request
// (400, as the transport spec asks), not an unknown session (404).
func TestWire_HTTPSessionlessPostIs400(t *testing.T) {
	_, state := wireRepo(t)
	addr := freeAddr(t)
	url := "http://" + addr + Path
	httpServe(t, state, addr)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cos_health","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		code, got := sessionPost(t, url, "", body)
		if code != http.StatusBadRequest || !strings.Contains(got, "Mcp-Session-Id") {
			t.Errorf("%s without a session id: %d %s, want 400 naming Mcp-Session-Id", body, code, got)
		}
	}
	if code, got := sessionPost(t, url, "", initBody); code != http.StatusOK {
		t.Errorf("initialize without a session id: %d %s", code, got)
	}
	if code, got := sessionPost(t, url, "mcp-session-00000000-0000-4000-8000-000000000000", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("an unknown session id: %d %s, want 404", code, got)
	}
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// httpInit opens a session and returns its id.
func httpInit(t testing.TB, url string) string {
	t.Helper()
	resp, body := httpPost(t, url, initBody, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	return id
}

// resources/read of a task or node that does not exist is -32002
// (resource not found) with the envelope's error as data; a uid written
// with raw "/" and ":" reads like its encoded form.
func TestWire_ResourceReadMissingIs32002(t *testing.T) {
	_, state := wireRepo(t)
	addr := freeAddr(t)
	url := "http://" + addr + Path
	httpServe(t, state, addr)
	session := httpInit(t, url)
	read := func(uri string) rpcError {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": map[string]string{"uri": uri}})
		code, body := sessionPost(t, url, session, string(b))
		var r rpcError
		if code != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || string(r.ID) != "9" {
			t.Fatalf("resources/read %s: %d %s", uri, code, body)
		}
		return r
	}
	for _, uri := range []string{"cos://task/TASK-404", "cos://node/code:function:main.go::nope", "cos://node/code%3Afunction%3Autil%2Fgreet.go%3A%3ANope%23x"} {
		r := read(uri)
		if r.Error == nil || r.Error.Code != -32002 || r.Error.Data["uri"] != uri {
			t.Errorf("resources/read %s: %+v %s, want -32002 naming the uri", uri, r.Error, r.Result)
			continue
		}
		if e, _ := r.Error.Data["error"].(map[string]any); e["code"] != "E_NOT_FOUND" {
			t.Errorf("resources/read %s: data %v, want the E_NOT_FOUND error", uri, r.Error.Data)
		}
	}
	raw, enc := read("cos://node/code:function:util/greet.go::Greet"), read("cos://node/code%3Afunction%3Autil%2Fgreet.go%3A%3AGreet")
	if raw.Error != nil || enc.Error != nil || !strings.Contains(string(raw.Result), `\"ok\":true`) {
		t.Fatalf("a node read raw and encoded: %+v %s / %+v", raw.Error, raw.Result, enc.Error)
	}
}

// A number no float64 holds is an argument the tool refuses (a tool
// result, E_ARGUMENT), never a JSON-RPC error naming Go struct fields; a
// message nesting past encoding/json's limit is answered with its id.
// Both transports.
func TestWire_UndecodableMessages(t *testing.T) {
	root, state := wireRepo(t)
	addr := freeAddr(t)
	url := "http://" + addr + Path
	c := wireStart(t, state, root, "--http", addr, "--stdio")
	waitHTTP(t, url, nil)
	session := httpInit(t, url)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	cases := []struct {
		name, id, line, want string
	}{
		{"1e400", `41`, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"cos_graph_resolve","arguments":{"q":"run","limit":1e400}}}`, "E_ARGUMENT"},
		{"deep arguments", `"d-1"`, `{"jsonrpc":"2.0","id":"d-1","method":"tools/call","params":{"name":"cos_health","arguments":{"a":` + deep + `}}}`, "E_ARGUMENT"},
		{"deep ping", `43`, `{"jsonrpc":"2.0","id":43,"method":"ping","params":{"a":` + deep + `}}`, "-32600"},
	}
	check := func(transport, name, id, want string, line []byte) {
		t.Helper()
		var r rpcError
		if err := json.Unmarshal(line, &r); err != nil || string(r.ID) != id {
			t.Errorf("%s %s: %s, want an answer with id %s", transport, name, clipBytes(line), id)
			return
		}
		switch want {
		case "E_ARGUMENT":
			if r.Error != nil || !strings.Contains(string(r.Result), `\"code\":\"E_ARGUMENT\"`) || strings.Contains(string(line), "Go struct") {
				t.Errorf("%s %s: %s, want a tool result with E_ARGUMENT", transport, name, clipBytes(line))
			}
		default:
			if r.Error == nil || r.Error.Code != -32600 {
				t.Errorf("%s %s: %s, want -32600", transport, name, clipBytes(line))
			}
		}
	}
	for _, tc := range cases {
		code, body := sessionPost(t, url, session, tc.line)
		if code != http.StatusOK {
			t.Errorf("http %s: %d %s", tc.name, code, clipBytes([]byte(body)))
			continue
		}
		check("http", tc.name, tc.id, tc.want, []byte(body))
		ch := c.expect(tc.id)
		c.sendLine(tc.line, 0, "")
		check("stdio", tc.name, tc.id, tc.want, c.await(ch, tc.name))
	}
}

func clipBytes(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// The node template is cos://node/{uid}: the SDK expands a uid holding
// "#", "/" and ":" into a URI the server takes (a read answers the node,
// or -32002 for one that does not exist, never -32602).
func TestSDK_NodeTemplateExpands(t *testing.T) {
	mcpsdk.Require(t)
	_, state := wireRepo(t)
	addr := freeAddr(t)
	httpServe(t, state, addr)
	out := mcpsdk.Run(t, 2*time.Minute, sdkTemplateScript, "http://"+addr+Path)
	want := []string{
		"template cos://node/{uid}",
		"code:function:util/greet.go::Greet -> cos://node/code%3Afunction%3Autil%2Fgreet.go%3A%3AGreet ok",
		"code:function:util/greet.go::Nope#x -> cos://node/code%3Afunction%3Autil%2Fgreet.go%3A%3ANope%23x error -32002",
	}
	got := mcpsdk.Lines(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("SDK template expansion:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const sdkTemplateScript = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";

const client = new Client({ name: "sdk-template", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const { resourceTemplates } = await client.listResourceTemplates();
const node = resourceTemplates.find(t => t.name === "node");
console.log("template " + node.uriTemplate);
for (const uid of ["code:function:util/greet.go::Greet", "code:function:util/greet.go::Nope#x"]) {
  const uri = new UriTemplate(node.uriTemplate).expand({ uid });
  try {
    const r = await client.readResource({ uri });
    const env = JSON.parse(r.contents[0].text);
    console.log(uid + " -> " + uri + " " + (env.ok ? "ok" : "not ok"));
  } catch (e) {
    console.log(uid + " -> " + uri + " error " + e.code);
  }
}
await client.close();
`
