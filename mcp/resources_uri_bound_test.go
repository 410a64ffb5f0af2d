package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestResources_Trial_LongBadURIEchoIsBounded sends resources/read,
// subscribe and unsubscribe with URIs far over the length limit: the
// JSON-RPC error names the URI by its first bytes and its size, and does
// not send the whole URI back (a 1 MiB request must not cost a 1 MiB
// answer). A URI within the limit is still echoed whole.
func TestResources_Trial_LongBadURIEchoIsBounded(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	long := "cos://node/code:file:" + strings.Repeat("a", 1<<20)
	for _, method := range []string{"resources/read", "resources/subscribe", "resources/unsubscribe"} {
		line := c.request(method, map[string]any{"uri": long})
		var r struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    struct {
					URI      string `json:"uri"`
					URIBytes int    `json:"uri_bytes"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &r); err != nil || r.Error == nil {
			t.Fatalf("%s of a %d-byte uri: %.300s, want a JSON-RPC error", method, len(long), line)
		}
		if r.Error.Code != mcp.INVALID_PARAMS || !strings.Contains(r.Error.Message, "longer than") {
			t.Errorf("%s: error %d %.200q, want -32602 saying the uri is too long", method, r.Error.Code, r.Error.Message)
		}
		if len(line) > 4<<10 {
			t.Errorf("%s: the error answering a %d-byte uri is %d bytes, want at most 4 KiB", method, len(long), len(line))
		}
		if r.Error.Data.URIBytes != len(long) || !strings.HasPrefix(long, strings.TrimSuffix(r.Error.Data.URI, "…")) {
			t.Errorf("%s: data {uri: %.80q…, uri_bytes: %d}, want the uri's first bytes and uri_bytes %d",
				method, r.Error.Data.URI, r.Error.Data.URIBytes, len(long))
		}
	}
	// Within the limit the uri comes back whole, as before.
	short := "cos://task/7"
	line := c.request("resources/read", map[string]any{"uri": short})
	var r struct {
		Error *struct {
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Error == nil || r.Error.Data["uri"] != short || r.Error.Data["uri_bytes"] != nil {
		t.Errorf("resources/read %q: %s, want data {uri: %q} and no uri_bytes", short, line, short)
	}
}
