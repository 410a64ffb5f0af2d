package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/state"
)

// idxHas reports which of uids are nodes of s's graph.
func idxHas(t testing.TB, s *testServer, uids ...string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	if err := s.st.Read(context.Background(), func(v state.View) {
		for _, u := range uids {
			got[u] = v.Graph.HasNode(u)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// Deleting a file node deletes what indexing extracted from that file (no
// orphan functions), and the next index brings the file back; a deleted
// function comes back with force.
func TestGraphDelete_FileNodeThenReindex(t *testing.T) {
	root := idxWriteRepo(t, idxFixture)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, `{}`)
	const file, fn = "code:file:util/greet.go", "code:function:util/greet.go::Greet"
	if got := idxHas(t, s, file, fn); !got[file] || !got[fn] {
		t.Fatalf("after index: %v", got)
	}

	del := `{"uids": ["` + file + `"], "request_id": "del-greet"}`
	e := idxCall(t, s, "cos_graph_delete", del)
	if !e.OK {
		t.Fatalf("delete: %s %s", e.Error.Code, e.Error.Message)
	}
	if files, _ := e.Data["deleted"].(map[string]any)["files"].([]any); len(files) != 1 || files[0] != "util/greet.go" {
		t.Fatalf("deleted.files = %v", e.Data["deleted"])
	}
	// A resend rebuilds the same request and replays its receipt.
	if again := idxCall(t, s, "cos_graph_delete", del); !again.OK || again.Data["receipt"].(map[string]any)["replayed"] != true {
		t.Fatalf("resend: %+v %+v", again.Error, again.Data["receipt"])
	}
	if got := idxHas(t, s, file, fn); got[file] || got[fn] {
		t.Fatalf("after deleting the file node: %v; want its function gone with it", got)
	}
	rep := idxReport(t, s, `{}`)
	if rep.FilesChanged != 1 {
		t.Fatalf("re-index after the delete: %d changed, want 1", rep.FilesChanged)
	}
	if got := idxHas(t, s, file, fn); !got[file] || !got[fn] {
		t.Fatalf("after re-index: %v; want the file back", got)
	}

	// A function deleted on its own: its file is unchanged, so only force
	// re-extracts it.
	if e := idxCall(t, s, "cos_graph_delete", `{"uids": ["`+fn+`"]}`); !e.OK {
		t.Fatalf("delete: %s %s", e.Error.Code, e.Error.Message)
	}
	if rep := idxReport(t, s, `{}`); rep.FilesChanged != 0 || idxHas(t, s, fn)[fn] {
		t.Fatalf("plain re-index: %d changed", rep.FilesChanged)
	}
	rep = idxReport(t, s, `{"force": true}`)
	if rep.FilesChanged != len(idxFixture) || !idxHas(t, s, fn)[fn] {
		t.Fatalf("forced re-index: %d changed, function back %v", rep.FilesChanged, idxHas(t, s, fn)[fn])
	}
}

// The path of a file node is read from its uid alone, escapes undone;
// other uids and paths that leave the tree name no file.
func TestFilesOfUIDs(t *testing.T) {
	got := filesOfUIDs([]string{
		"code:file:a.go", "doc:file:docs/My%20Notes.md", "code:function:a.go::f", "code:file:a.go",
		graph.SourceFileUID("dir with space/100%.py"), "code:file:%2E%2E/x.go", "doc:file:a.go",
	})
	want := []string{"a.go", "docs/My Notes.md", "dir with space/100%.py"}
	if !slices.Equal(got, want) {
		t.Fatalf("filesOfUIDs = %q, want %q", got, want)
	}
}

// An edge named without its extractor is looked up as one written by hand;
// when the extractor's edge is what exists, the refusal names that
// extractor instead of only saying there is no such edge.
func TestGraphDelete_EdgeOfAnotherExtractorNamed(t *testing.T) {
	root := idxWriteRepo(t, idxFixture)
	s := idxOpen(t, t.TempDir(), root)
	idxReport(t, s, `{}`)
	e := idxCall(t, s, "cos_graph_delete", `{"edges":[{"source":"code:file:util/greet.go","target":"code:function:util/greet.go::Greet","type":"contains"}]}`)
	if e.OK || e.Error.Code != "E_NOT_FOUND" || !strings.Contains(e.Error.Message, "it exists with extractor go") {
		t.Fatalf("delete without extractor: %+v", e.Error)
	}
	if e := idxCall(t, s, "cos_graph_delete", `{"edges":[{"source":"code:file:util/greet.go","target":"code:function:util/greet.go::Greet","type":"contains","extractor":"go"}]}`); !e.OK {
		t.Fatalf("delete with extractor go: %+v", e.Error)
	}
}
