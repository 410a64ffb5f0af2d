package boltlog

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

var updateFixture = flag.Bool("update-fixture", false, "rewrite testdata/v1 (only when the format version changes)")

// fixtureRequests is what testdata/v1/events.db was written from.
func fixtureRequests() []eventlog.AppendRequest {
	return []eventlog.AppendRequest{
		{Stream: "graph", Events: []eventlog.Payload{{Type: "graph.nodes_upserted", Data: json.RawMessage(`{"nodes":[{"uid":"code:file:main.go","kind":"file","label":"main.go"}]}`)}}},
		{StreamPrefix: "task:TASK-", Expect: eventlog.NoStream(), RequestID: "create-1", Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{"title":"Fix the parser","labels":["é","日本"]}`)}}},
		{Stream: "task:TASK-001", Expect: eventlog.AtRevision(1), Events: []eventlog.Payload{{Type: "task.updated", Data: json.RawMessage(`{"status":"done"}`)}}},
		{Stream: "evidence:s1", Client: "fixture-client", Events: []eventlog.Payload{
			{Type: "evidence.output_recorded", Data: json.RawMessage(`{"role":"planner","output":{"plan":"x"}}`)},
			{Type: "evidence.discovery_recorded", Data: json.RawMessage(`{"text":"emoji 🧪"}`)},
		}},
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFixture_Version1 guards the on-disk format: a log written by format 1
// must keep decoding, verifying and accepting appends.
func TestFixture_Version1(t *testing.T) {
	dir := filepath.Join("testdata", "v1")
	if *updateFixture {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		l, err := Open(context.Background(), filepath.Join(dir, "events.db"), Options{Actor: eventlog.Actor{PID: 1, Host: "fixture"}, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range fixtureRequests() {
			mustAppend(t, l, r)
		}
		h, _ := l.Head(context.Background())
		l.Close(context.Background())
		os.Remove(filepath.Join(dir, "events.db.lock"))
		os.Remove(filepath.Join(dir, "events.db.head"))
		os.WriteFile(filepath.Join(dir, "head.txt"), []byte(h.Hash+"\n"), 0o644)
	}
	work := filepath.Join(t.TempDir(), "events.db")
	copyFile(t, filepath.Join(dir, "events.db"), work)
	wantHead, err := os.ReadFile(filepath.Join(dir, "head.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := Open(ctx, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	n, err := l.Verify(ctx)
	if err != nil || n != 5 {
		t.Fatalf("Verify = %d, %v; want 5 events", n, err)
	}
	h, _ := l.Head(ctx)
	if h.Hash != strings.TrimSpace(string(wantHead)) {
		t.Fatalf("head hash %s, want %s", h.Hash, wantHead)
	}
	evs := readAll(t, l)
	want := []struct{ stream, typ, data string }{
		{"graph", "graph.nodes_upserted", `{"nodes":[{"uid":"code:file:main.go","kind":"file","label":"main.go"}]}`},
		{"task:TASK-001", "task.created", `{"title":"Fix the parser","labels":["é","日本"]}`},
		{"task:TASK-001", "task.updated", `{"status":"done"}`},
		{"evidence:s1", "evidence.output_recorded", `{"role":"planner","output":{"plan":"x"}}`},
		{"evidence:s1", "evidence.discovery_recorded", `{"text":"emoji 🧪"}`},
	}
	for i, w := range want {
		ev := evs[i]
		if ev.Stream != w.stream || ev.Type != w.typ || string(ev.Data) != w.data {
			t.Errorf("event %d = %s %s %s", i+1, ev.Stream, ev.Type, ev.Data)
		}
	}
	if evs[3].Actor.Client != "fixture-client" || evs[1].RequestID != "create-1" || evs[0].Actor.Host != "fixture" {
		t.Errorf("actor or request id lost: %+v %+v", evs[3].Actor, evs[1])
	}
	// The receipt written by format 1 still replays, and the log still grows.
	rec := mustAppend(t, l, fixtureRequests()[1])
	if !rec.Replayed || rec.Stream != "task:TASK-001" {
		t.Fatalf("fixture receipt did not replay: %+v", rec)
	}
	next := mustAppend(t, l, eventlog.AppendRequest{StreamPrefix: "task:TASK-", Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
	if next.Stream != "task:TASK-002" || next.FirstSeq != 6 {
		t.Fatalf("append on the fixture = %+v", next)
	}
}
