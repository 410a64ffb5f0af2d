package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestIndex_ExcludeSkipsFolders(t *testing.T) {
	root := t.TempDir()
	for path, src := range map[string]string{
		"a/keep.go":         "package a\n\nfunc Keep() {}\n",
		"generated/skip.go": "package generated\n\nfunc Skip() {}\n",
	} {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), NATS: "off", NoBackgroundSnapshots: true, Exclude: []string{"generated"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Index(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesChanged != 1 {
		t.Fatalf("indexed %d files, want only a/keep.go", rep.FilesChanged)
	}
	if e := call(t, s, "cos_graph_context", `{"uid_or_name":"a/keep.go"}`); !e.OK {
		t.Fatalf("a/keep.go: %+v", e.Error)
	}
	if e := call(t, s, "cos_graph_context", `{"uid_or_name":"generated/skip.go"}`); e.OK {
		t.Fatal("an excluded folder was indexed")
	}
}
