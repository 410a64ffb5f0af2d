package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/cos-dev/cos/projections"
)

// A name written into a file since the last index is found: a not-found
// answer names no file to check, so the graph's changed and new files are
// brought in and the question asked once more. A name that is nowhere is
// still not found, and a read-only view does not re-index.
func TestReadYourEdits_NewSymbolIsFound(t *testing.T) {
	repo := freshRepo(t)
	dir := t.TempDir()
	s := idxOpen(t, dir, repo.Root)
	idxReport(t, s, `{}`)
	head := idxHead(t, s)
	repo.Write("a.go", freshSource+"\nfunc BrandNew() int { return Hello() }\n")
	repo.Write("b.go", "package m\n\nfunc AlsoNew() {}\n") // untracked, new

	for _, name := range []string{"BrandNew", "AlsoNew"} {
		e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "`+name+`"}`)
		if !e.OK {
			t.Fatalf("%s after it was written: %s %s", name, e.Error.Code, e.Error.Message)
		}
		node, _ := e.Data["node"].(map[string]any)
		if !strings.Contains(node["uid"].(string), name) {
			t.Fatalf("%s resolved to %v", name, node["uid"])
		}
	}
	if e := idxCall(t, s, "cos_graph_context", `{"uid_or_name": "NowhereAtAll"}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("a name that is nowhere: %+v", e)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A read-only view at the first index: not found, and nothing appended.
	repo.Write("c.go", "package m\n\nfunc Third() {}\n")
	at, err := openTestServer(context.Background(), testOptions{StateDir: dir, Roots: []string{repo.Root}, NATS: "off",
		NoBackgroundSnapshots: true, At: &projections.Until{Seq: head}})
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if e := idxCall(t, at, "cos_graph_context", `{"uid_or_name": "Third"}`); e.OK || e.Error.Code != "E_NOT_FOUND" {
		t.Fatalf("a read-only view found a name written after it: %+v", e)
	}
}
