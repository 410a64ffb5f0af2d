package mcp

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/mcpsdk"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/tools"
)

// sdkSchemaScript connects the SDK's client to `cos serve --tools all`
// over stdio, lists the tools (the client compiles each outputSchema),
// calls each step (callTool validates structuredContent against the
// tool's outputSchema, failures' too) and prints a line per call; then it
// swaps in a wrong schema for cos_health and calls it again, to show a
// wrong schema is caught.
const sdkSchemaScript = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [bin, state, root, steps] = process.argv.slice(2);
const t = new StdioClientTransport({ command: bin, cwd: root, stderr: "ignore",
  args: ["serve", "--state-dir", state, "--nats", "off", "--index=false", "--root", root, "--tools", "all"] });
const c = new Client({ name: "sdk-schema", version: "1" });
await c.connect(t);
const { tools } = await c.listTools();
const out = (o) => console.log(JSON.stringify(o));
for (const s of JSON.parse(steps)) {
  try {
    const r = await c.callTool({ name: s.tool, arguments: s.args });
    out({ tool: s.tool, ok: !r.isError, text: r.isError ? r.content[0].text : "" });
  } catch (e) { out({ tool: s.tool, err: String(e.message) }); }
}
c.cacheToolMetadata(tools.map((x) => x.name !== "cos_health" ? x : { ...x, outputSchema: { ...x.outputSchema,
  properties: { ...x.outputSchema.properties, data: { type: "object", properties: { version: { type: "integer" } } } } } }));
try { await c.callTool({ name: "cos_health", arguments: {} }); out({ tool: "wrong_schema" }); }
catch (e) { out({ tool: "wrong_schema", err: String(e.message) }); }
await c.close();
`

// The official SDK's client validates every tool's answer to its Example
// (and a refused call's {ok: false, error}) against the tool's
// outputSchema without an error, and the same client does catch an
// answer that does not match a schema.
func TestSDK_OutputSchemasValidate(t *testing.T) {
	mcpsdk.Require(t)
	root := testutil.WriteTree(t, exampleRepo)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	examples := map[string]string{}
	for _, tool := range tools.Catalogue() {
		examples[tool.Name] = tool.Example
	}
	type step struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	var steps []step
	for _, s := range exampleOrder {
		args := s.args
		if args == "" {
			args = examples[s.tool]
		}
		steps = append(steps, step{s.tool, json.RawMessage(args)})
	}
	refused := step{"cos_graph_resolve", json.RawMessage(`{"q": "x", "colour": "blue"}`)}
	steps = append(steps, refused)
	raw, _ := json.Marshal(steps)
	out := mcpsdk.Run(t, 3*time.Minute, sdkSchemaScript, cosBin, t.TempDir(), root, string(raw))
	lines := mcpsdk.Lines(out)
	if len(lines) != len(steps)+1 {
		t.Fatalf("%d lines for %d calls:\n%s", len(lines), len(steps)+1, out)
	}
	for i, l := range lines {
		var r struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
			Err  string `json:"err"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		switch {
		case r.Tool == "wrong_schema":
			if !strings.Contains(r.Err, "does not match the tool's output schema") {
				t.Errorf("a wrong outputSchema was not caught by the SDK: %q", r.Err)
			}
		case r.Err != "":
			t.Errorf("%s %s: %s", r.Tool, steps[i].Args, r.Err)
		case i == len(steps)-1:
			if r.OK || !strings.Contains(r.Text, "E_ARGUMENT") {
				t.Errorf("refused call: ok=%v %s", r.OK, r.Text)
			}
		case !r.OK:
			t.Errorf("%s %s: %s", r.Tool, steps[i].Args, r.Text)
		}
	}
}
