package state

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/bus"
)

// TestParseStore: the empty address is the state folder's file, a path a
// bbolt file, a nats:// list a stream (three servers: three replicas), and
// anything else an ErrStore naming the accepted forms.
func TestParseStore(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		in       string
		path     string
		urls     string
		stream   string
		replicas int
	}{
		{in: "", path: filepath.Join(dir, LogFile)},
		{in: filepath.Join(dir, "x.db"), path: filepath.Join(dir, "x.db")},
		{in: "nats://127.0.0.1:4222", urls: "nats://127.0.0.1:4222", replicas: 1},
		{in: "nats://a:1,nats://b:2,nats://c:3/TEAM", urls: "nats://a:1,nats://b:2,nats://c:3", stream: "TEAM", replicas: 3},
	} {
		st, err := ParseStore(dir, c.in)
		if err != nil {
			t.Errorf("ParseStore(%q) = %v", c.in, err)
			continue
		}
		if st.Path != c.path || st.URLs != c.urls || st.Stream != c.stream || (st.IsNATS() && st.Replicas() != c.replicas) {
			t.Errorf("ParseStore(%q) = %+v (replicas %d); want path %q urls %q stream %q replicas %d", c.in, st, st.Replicas(), c.path, c.urls, c.stream, c.replicas)
		}
	}
	for _, bad := range []string{"http://h:1", "nats://h", "nats://h:1/bad.name", "nats://user:pw@h:1", "some/folder/"} {
		_, err := ParseStore(dir, bad)
		if !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "nats://HOST:PORT") {
			t.Errorf("ParseStore(%q) = %v; want ErrStore naming the accepted forms", bad, err)
		}
	}
	if _, err := Open(context.Background(), Options{Dir: dir, Store: "ftp://x:1", NATS: bus.ModeOff}); !errors.Is(err, ErrOptions) || !errors.Is(err, ErrStore) {
		t.Errorf("Open with a bad store = %v; want ErrOptions and ErrStore", err)
	}
}

// TestState_SnapshotOfAnotherStoreIsNotRestored: a state folder whose log
// moves to another store (here another bbolt file, with more events than
// the snapshot's seq) does not restore the snapshot written from the first
// log — it is checked against the new log's event at its seq — and ends
// with the state a fresh folder builds from the new log.
func TestState_SnapshotOfAnotherStoreIsNotRestored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"go:a", "go:b", "go:c"} {
		upsert(t, s, uid)
	}
	if _, err := s.Tailer().CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if pos, err := s.Tailer().Snapshot(ctx); err != nil || pos.Seq != 3 {
		t.Fatalf("Snapshot = %+v, %v", pos, err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// Another log, in another file, with other events at seqs 1 to 5.
	other := filepath.Join(t.TempDir(), "other.db")
	o, err := Open(ctx, Options{Dir: t.TempDir(), Store: other, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"go:x", "go:y", "go:z", "go:w", "go:v"} {
		upsert(t, o, uid)
	}
	if _, err := o.Tailer().CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	want, _ := o.Tailer().StateHash()
	if err := o.Close(ctx); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, Options{Dir: dir, Store: other, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	got, pos := s.Tailer().StateHash()
	if got != want || pos.Seq != 5 {
		t.Fatalf("state after switching store = %x at %d; want the other log's %x at 5", got, pos.Seq, want)
	}
	for _, uid := range []string{"go:a", "go:b"} {
		if ok, _ := hasNode(t, s, uid); ok {
			t.Errorf("%s, from the first log's snapshot, is in the state of the other log", uid)
		}
	}
	var h Health
	if err := s.Read(ctx, func(v View) { h, _ = v.Health(ctx) }); err != nil {
		t.Fatal(err)
	}
	if h.Log.Path != other {
		t.Errorf("health names the log %q, want %q", h.Log.Path, other)
	}
}
