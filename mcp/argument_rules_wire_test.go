package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWire_ArgumentRules checks the argument rules over a real MCP
// session, the path agents take: a blank node argument and arguments that
// nest too deep are E_ARGUMENT results naming the problem. (Text that is
// not JSON cannot reach a tool over MCP: the JSON-RPC message itself would
// not parse. The runner's answer to it is tested in package tools.)
func TestWire_ArgumentRules(t *testing.T) {
	root, state := wireRepo(t)
	c := wireStart(t, state, root)
	deep := strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300)
	cases := []struct {
		tool, args string
		contains   []string
	}{
		{"cos_graph_references", `{"uid":""}`, []string{"uid: got an empty string", "non-empty", "example:"}},
		{"cos_graph_context", `{"uid_or_name":"  "}`, []string{"uid_or_name: got a string of only whitespace", "example:"}},
		{"cos_graph_export", `{"root":""}`, []string{"root: got an empty string", "leave it out"}},
		{"cos_graph_upsert", `{"nodes":[{"uid":"code:file:x.go","metadata":` + deep + `}]}`, []string{"nests deeper than 128 levels", "example:"}},
	}
	for _, tc := range cases {
		e := wireDecode(t, tc.tool, c.callTool(tc.tool, json.RawMessage(tc.args)))
		if e.OK || e.Error.Code != "E_ARGUMENT" {
			t.Errorf("%s %.80s: ok=%v code %q (%s), want E_ARGUMENT", tc.tool, tc.args, e.OK, e.Error.Code, e.Error.Message)
			continue
		}
		for _, want := range tc.contains {
			if !strings.Contains(e.Error.Message, want) {
				t.Errorf("%s %.80s: message %q lacks %q", tc.tool, tc.args, e.Error.Message, want)
			}
		}
	}
}
