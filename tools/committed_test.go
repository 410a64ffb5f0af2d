package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
)

// A write tool whose handler fails after its append committed answers ok,
// with the receipt and a warning — never a failure that invites a second
// write.
func TestCall_FailureAfterCommitIsAWarning(t *testing.T) {
	s := openServer(t, "")
	s.tools["cos_test_commit_then_fail"] = &Tool{Name: "cos_test_commit_then_fail", Layer: envelope.LayerGraph,
		Handler: func(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
			if _, err := c.Append(ctx, graphReq("graph.nodes_upserted", `{"nodes":[]}`)); err != nil {
				return nil, envelope.ToolMeta{}, err
			}
			return nil, envelope.ToolMeta{}, errors.New("the read back broke")
		}}
	s.tools["cos_test_fail_before_commit"] = &Tool{Name: "cos_test_fail_before_commit", Layer: envelope.LayerGraph,
		Handler: func(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
			_, err := c.Append(ctx, eventlog.AppendRequest{Stream: "graph", Expect: eventlog.NoStream(),
				Events: []eventlog.Payload{{Type: "graph.nodes_upserted", Data: []byte(`{"nodes":[]}`)}}})
			return nil, envelope.ToolMeta{}, err
		}}
	e := call(t, s, "cos_test_commit_then_fail", `{}`)
	meta, _ := e.Data["meta"].(map[string]any)
	warns, _ := meta["warnings"].([]any)
	if !e.OK || len(warns) != 1 || !strings.Contains(warns[0].(string), "committed (up to seq 1)") || e.Data["receipts"] == nil {
		t.Fatalf("failure after the commit: %+v", e)
	}
	// A failure with nothing committed stays a failure: the stream exists,
	// so a create is STALE_REVISION.
	if f := call(t, s, "cos_test_fail_before_commit", `{}`); f.OK || f.Error.Code != "STALE_REVISION" {
		t.Fatalf("failure before any commit: %+v", f)
	}
}
