package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnotations_IdempotentHintMatchesBehaviour calls every tool twice with
// the same arguments (no request_id) on a seeded state and compares the
// projections' state hash after the first and the second call: a tool
// marked Idempotent (or ReadOnly) must leave it unchanged; a tool marked
// neither must change it, so that the hint is not merely cautious.
func TestAnnotations_IdempotentHintMatchesBehaviour(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc run() { helper() }\n\nfunc helper() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), Roots: []string{root}, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	seed := []struct{ tool, args string }{
		{"cos_graph_index", `{"path": ` + graphJSON(t, root) + `}`},
		{"cos_graph_upsert", `{"nodes": [{"uid": "code:function:c.go::gone", "kind": "function", "label": "gone", "path": "c.go", "line": 1}]}`},
		{"cos_task_create", `{"title": "seed one"}`},
		{"cos_task_create", `{"title": "seed two"}`},
		{"cos_task_create", `{"title": "seed three"}`},
		{"cos_task_claim", `{"task_id": "TASK-003", "assignee": "agent-7"}`},
		{"cos_metric_record", `{"name": "latency", "value": 3}`},
		{"cos_supervise_record_output", `{"session_id": "s1", "role": "planner", "output": {"summary": "x", "steps": ["a"]}}`},
	}
	for _, c := range seed {
		graphOK(t, s, c.tool, c.args)
	}
	calls := map[string]string{
		"cos_analyze_task":            `{"task_title": "Fix auth bug", "dimensions": 2, "complexity": "COMPLICATED", "domain": ["meta"]}`,
		"cos_evidence_bundle":         `{"session_id": "s1"}`,
		"cos_graph_audit":             `{"check": "dead"}`,
		"cos_graph_changes":           `{"base": "index"}`,
		"cos_graph_context":           `{"uid_or_name": "a.go"}`,
		"cos_graph_delete":            `{"uids": ["code:function:c.go::gone"]}`,
		"cos_graph_doctor":            `{"fix": true}`,
		"cos_graph_entrypoints":       `{"kinds": ["main"]}`,
		"cos_graph_export":            `{}`,
		"cos_graph_impact":            `{"uid": "code:function:a.go::helper"}`,
		"cos_graph_index":             `{"path": ` + graphJSON(t, root) + `}`,
		"cos_graph_path":              `{"source": "code:function:a.go::run", "target": "code:function:a.go::helper"}`,
		"cos_graph_references":        `{"uid": "code:function:a.go::run"}`,
		"cos_graph_rename_plan":       `{"uid": "code:function:a.go::run", "new_name": "start"}`,
		"cos_graph_resolve":           `{"q": "run"}`,
		"cos_graph_similar":           `{"uid": "code:function:a.go::run"}`,
		"cos_graph_trace":             `{"uid": "code:function:a.go::run"}`,
		"cos_graph_upsert":            `{"nodes": [{"uid": "code:function:b.go::extra", "kind": "function", "label": "extra", "path": "b.go", "line": 1}]}`,
		"cos_health":                  `{}`,
		"cos_history":                 `{"task_id": "TASK-001"}`,
		"cos_metric_query":            `{"name": "latency"}`,
		"cos_metric_record":           `{"name": "latency", "value": 5}`,
		"cos_supervise_record_output": `{"session_id": "s1", "role": "planner", "output": {"summary": "y", "steps": ["b"]}}`,
		"cos_task_board":              `{}`,
		"cos_task_claim":              `{"task_id": "TASK-001", "assignee": "agent-7"}`,
		"cos_task_create":             `{"title": "another"}`,
		"cos_task_get":                `{"task_id": "TASK-001"}`,
		"cos_task_release":            `{"task_id": "TASK-003", "assignee": "agent-7"}`,
		"cos_task_update":             `{"task_id": "TASK-002", "patch": {"status": "in_progress"}}`,
	}
	hash := func() string {
		h, _ := s.tailer.StateHash()
		return string(h[:])
	}
	for _, tool := range s.Tools() {
		args, ok := calls[tool.Name]
		if !ok {
			t.Errorf("%s: no call in this test; add one", tool.Name)
			continue
		}
		first := call(t, s, tool.Name, args)
		if !first.OK {
			t.Errorf("%s %s: first call %s: %s", tool.Name, args, first.Error.Code, first.Error.Message)
			continue
		}
		before := hash()
		second := call(t, s, tool.Name, args)
		changed := hash() != before
		idem := tool.Idempotent || tool.ReadOnly
		switch {
		case idem && changed:
			t.Errorf("%s is marked idempotent, but a second identical call changed the state (ok=%v %s)", tool.Name, second.OK, second.Error.Code)
		case !idem && !changed:
			t.Errorf("%s is marked not idempotent, but a second identical call changed nothing (ok=%v %s)", tool.Name, second.OK, second.Error.Code)
		}
		// What the descriptions promise: with a request_id a resend of a
		// write changes nothing.
		if _, takesID := tool.param("request_id"); takesID && !idem {
			withID := strings.Replace(args, "{", `{"request_id": "annot-`+tool.Name+`", `, 1)
			if e := call(t, s, tool.Name, withID); !e.OK {
				t.Errorf("%s %s: %s %s", tool.Name, withID, e.Error.Code, e.Error.Message)
				continue
			}
			before := hash()
			if e := call(t, s, tool.Name, withID); !e.OK || e.Data["replayed"] != true || hash() != before {
				t.Errorf("%s: a resend with the same request_id: ok=%v replayed=%v, state changed=%v", tool.Name, e.OK, e.Data["replayed"], hash() != before)
			}
		}
	}
}
