package tools

import (
	"context"
	"testing"
)

// A delete resent with its request_id after it succeeded replays the
// original receipt (docs/errors.md, request ids), even though the nodes are gone now; the same
// id with other arguments is E_REQUEST_REUSE.
func TestGraphDelete_ResendReplays(t *testing.T) {
	s := openServer(t, "")
	upsert(t, s, `[{"uid":"code:function:a.go::Gone","kind":"function","label":"Gone","path":"a.go"},{"uid":"code:function:a.go::Other","kind":"function","label":"Other","path":"a.go"}]`)
	del := `{"uids":["code:function:a.go::Gone"],"request_id":"del-1"}`
	first := call(t, s, "cos_graph_delete", del)
	if !first.OK {
		t.Fatalf("delete: %+v", first.Error)
	}
	head, _ := s.Log().Head(context.Background())
	again := call(t, s, "cos_graph_delete", del)
	if !again.OK {
		t.Fatalf("resent delete: %+v", again.Error)
	}
	rec := again.Data["receipt"].(map[string]any)
	if rec["replayed"] != true {
		t.Fatalf("resent delete did not replay: %v", rec)
	}
	if h, _ := s.Log().Head(context.Background()); h.Seq != head.Seq {
		t.Fatalf("resend appended: head %d → %d", head.Seq, h.Seq)
	}
	reuse := call(t, s, "cos_graph_delete", `{"uids":["code:function:a.go::Other"],"request_id":"del-1"}`)
	if reuse.OK || reuse.Error.Code != "E_REQUEST_REUSE" {
		t.Fatalf("same id, other uids: %+v", reuse)
	}
	if e := call(t, s, "cos_graph_context", `{"uid_or_name":"code:function:a.go::Other"}`); !e.OK {
		t.Fatalf("Other was deleted by a refused request: %+v", e.Error)
	}
	// Without a request id, deleting what is gone is still not_found.
	if e := call(t, s, "cos_graph_delete", `{"uids":["code:function:a.go::Gone"]}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("delete of a missing node: %+v", e)
	}
}

// A delete of edges only answers deleted.uids as [] (and every list of
// the answer as a list), never null.
func TestGraphDelete_EdgesOnlyAnswersEmptyLists(t *testing.T) {
	s := openServer(t, "")
	graphOK(t, s, "cos_graph_upsert", `{"nodes":[{"uid":"code:function:a.go::A","kind":"function","label":"A","path":"a.go"},{"uid":"code:function:a.go::B","kind":"function","label":"B","path":"a.go"}],"edges":[{"source":"code:function:a.go::A","target":"code:function:a.go::B","type":"calls"}]}`)
	e := graphOK(t, s, "cos_graph_delete", `{"edges":[{"source":"code:function:a.go::A","target":"code:function:a.go::B","type":"calls"}]}`)
	deleted := e.Data["deleted"].(map[string]any)
	for _, k := range []string{"uids", "edges", "files"} {
		if _, ok := deleted[k].([]any); !ok {
			t.Errorf("deleted.%s = %#v, want a list", k, deleted[k])
		}
	}
	if _, ok := e.Data["remaining"].([]any); !ok {
		t.Errorf("remaining = %#v, want a list", e.Data["remaining"])
	}
}
