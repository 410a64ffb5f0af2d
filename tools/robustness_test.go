package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/state"
)

// A damaged last record refuses writes but reads still work, on the state
// before the damage (docs/errors.md, E_INTEGRITY).
func TestServer_DamagedLogStillServesReads(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	upsert(t, s, `[{"uid":"code:function:a.go::Kept","kind":"function","label":"Kept","path":"a.go"}]`)
	upsert(t, s, `[{"uid":"code:function:b.go::DAMAGED","kind":"function","label":"DAMAGED","path":"b.go"}]`)
	s.Close()
	path := filepath.Join(dir, state.LogFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("DAMAGED")) {
		t.Fatal("marker not in the file")
	}
	for i := bytes.Index(raw, []byte("DAMAGED")); i >= 0; i = bytes.Index(raw, []byte("DAMAGED")) {
		raw[i] ^= 0x20 // every copy: bbolt is copy-on-write
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// A fresh process, without a snapshot: catch-up stops at the damage.
	os.RemoveAll(filepath.Join(dir, "snapshots"))
	s2, err := openTestServer(context.Background(), testOptions{StateDir: dir, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatalf("Open on a damaged log: %v", err)
	}
	defer s2.Close()
	e := call(t, s2, "cos_graph_context", `{"uid_or_name":"code:function:a.go::Kept"}`)
	if !e.OK || e.Data["meta"].(map[string]any)["log_seq"].(float64) != 1 {
		t.Fatalf("read on a damaged log: %+v", e)
	}
	w := call(t, s2, "cos_graph_upsert", `{"nodes":[{"uid":"code:function:c.go::New","kind":"function","label":"New","path":"c.go"}]}`)
	if w.OK || w.Error.Code != "E_INTEGRITY" {
		t.Fatalf("write on a damaged log: %+v", w)
	}
}

func TestOpen_RejectsPathLikeExcludes(t *testing.T) {
	for _, x := range []string{"", "a/b", "..", "*", "/abs"} {
		_, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), NATS: "off", Exclude: []string{x}})
		if err == nil || !strings.Contains(err.Error(), "folder name") {
			t.Errorf("exclude %q: err = %v", x, err)
		}
		if e := ToEnvelopeError(err); err != nil && e.Code != "E_ARGUMENT" {
			t.Errorf("exclude %q: code %s", x, e.Code)
		}
	}
}

// The graph's paths are relative to the folder last indexed: the doctor
// checks stale paths there, not under the working directory.
func TestDoctor_StalePathsUnderTheIndexedRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "keep.go"), []byte("package x\n\nfunc Keep() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The state folder inside the tree must not be indexed.
	state := filepath.Join(root, "mystate")
	s, err := openTestServer(context.Background(), testOptions{StateDir: state, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Index(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesChanged != 1 {
		t.Fatalf("indexed %d files, want 1 (the state folder must be skipped)", rep.FilesChanged)
	}
	e := call(t, s, "cos_graph_doctor", `{"fix":true}`)
	if !e.OK {
		t.Fatalf("doctor: %+v", e.Error)
	}
	if c := call(t, s, "cos_graph_context", `{"uid_or_name":"keep.go"}`); !c.OK {
		t.Fatalf("doctor fix removed a file that exists under the indexed root: %+v", c.Error)
	}
	if err := os.Remove(filepath.Join(root, "keep.go")); err != nil {
		t.Fatal(err)
	}
	call(t, s, "cos_graph_doctor", `{"fix":true}`)
	if c := call(t, s, "cos_graph_context", `{"uid_or_name":"keep.go"}`); c.OK {
		t.Fatal("a vanished file survived doctor fix")
	}
}

// A file whose name is not valid UTF-8 is stored under its Latin-1 reading;
// the doctor finds it on disk under its bytes and its fix keeps it.
func TestDoctor_Latin1PathIsNotStale(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "bad\xff.go"), []byte("package x\n\nfunc Bad() {}\n"), 0o644); err != nil {
		t.Skip("this file system refuses the name:", err)
	}
	s, err := openTestServer(context.Background(), testOptions{StateDir: t.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Index(context.Background(), root, nil); err != nil {
		t.Fatal(err)
	}
	e := call(t, s, "cos_graph_doctor", `{"fix":true}`)
	if !e.OK {
		t.Fatalf("doctor: %+v", e.Error)
	}
	if c := call(t, s, "cos_graph_context", `{"uid_or_name":"code:function:badÿ.go::Bad"}`); !c.OK {
		t.Fatalf("doctor fix removed a file whose name is not UTF-8: %+v", c.Error)
	}
}
