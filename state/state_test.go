package state

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// openState opens dir (a fresh folder when empty) without a bus or
// background snapshots and closes it at cleanup, checking Close's error.
func openState(tb testing.TB, dir string, at *projections.Until) *State {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true, At: at})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

// upsert appends one node through the state and returns its seq.
func upsert(tb testing.TB, s *State, uid string) uint64 {
	tb.Helper()
	data, err := json.Marshal(graph.NodesUpserted{Nodes: []graph.Node{{UID: uid, Kind: graph.KindFunction, Label: uid, Path: "a.go"}}})
	if err != nil {
		tb.Fatal(err)
	}
	recs, err := s.Append(context.Background(), eventlog.AppendRequest{Stream: graph.Stream,
		Events: []eventlog.Payload{{Type: graph.TypeNodesUpserted, Data: data}}})
	if err != nil {
		tb.Fatalf("Append: %v", err)
	}
	return recs[0].LastSeq
}

func hasNode(tb testing.TB, s *State, uid string) (bool, uint64) {
	tb.Helper()
	var ok bool
	var seq uint64
	if err := s.Read(context.Background(), func(v View) { ok, seq = v.Graph.HasNode(uid), v.Pos.Seq }); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return ok, seq
}

func TestOptions_Validate(t *testing.T) {
	if err := (Options{}).Validate(); !errors.Is(err, ErrOptions) {
		t.Fatalf("Validate of no Dir = %v, want ErrOptions", err)
	}
	_, err := Open(context.Background(), Options{})
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, ErrOptions) {
		t.Fatalf("Open without Dir = %v, want an *OpenError wrapping ErrOptions", err)
	}
	if err := (Options{Dir: "x"}).Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

// A read reflects every event committed before it, by this state or by
// another handle on the same folder (another process's log).
func TestState_ReadSeesEveryCommit(t *testing.T) {
	dir := t.TempDir()
	a := openState(t, dir, nil)
	seq := upsert(t, a, "code:function:a.go::A")
	if ok, at := hasNode(t, a, "code:function:a.go::A"); !ok || at != seq {
		t.Fatalf("own write: present %v at seq %d, want true at %d", ok, at, seq)
	}
	other, err := OpenLog(context.Background(), dir, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	data := `{"nodes":[{"uid":"code:function:b.go::B","kind":"function","label":"B","path":"b.go"}]}`
	if _, err := AppendOne(context.Background(), other, eventlog.AppendRequest{Stream: graph.Stream,
		Events: []eventlog.Payload{{Type: graph.TypeNodesUpserted, Data: json.RawMessage(data)}}}); err != nil {
		t.Fatal(err)
	}
	if ok, at := hasNode(t, a, "code:function:b.go::B"); !ok || at != seq+1 {
		t.Fatalf("the other handle's write: present %v at seq %d, want true at %d", ok, at, seq+1)
	}
}

// View does not catch up; WaitFor does.
func TestState_WaitForThenView(t *testing.T) {
	dir := t.TempDir()
	a := openState(t, dir, nil)
	other, err := OpenLog(context.Background(), dir, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	rec, err := AppendOne(context.Background(), other, eventlog.AppendRequest{Stream: "metrics",
		Events: []eventlog.Payload{{Type: "metric.recorded", Data: json.RawMessage(`{"name":"m","value":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	var before uint64
	a.View(func(v View) { before = v.Pos.Seq })
	if before >= rec.LastSeq {
		t.Fatalf("View caught up (%d) without being asked", before)
	}
	if err := a.WaitFor(context.Background(), rec.LastSeq); err != nil {
		t.Fatal(err)
	}
	var after uint64
	a.View(func(v View) { after = v.Pos.Seq })
	if after != rec.LastSeq {
		t.Fatalf("after WaitFor the view is at %d, want %d", after, rec.LastSeq)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.WaitFor(ctx, rec.LastSeq+100); err == nil {
		t.Fatal("WaitFor of a seq never committed returned nil on a cancelled context")
	}
}

// A point-in-time state answers from the past and refuses writes.
func TestState_AtIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	live := openState(t, dir, nil)
	upsert(t, live, "code:function:a.go::First")
	upsert(t, live, "code:function:a.go::Second")
	past := openState(t, dir, &projections.Until{Seq: 1})
	if !past.ReadOnly() {
		t.Fatal("ReadOnly() = false for a point-in-time state")
	}
	if ok, seq := hasNode(t, past, "code:function:a.go::Second"); ok || seq != 1 {
		t.Fatalf("the view at seq 1 holds Second=%v at seq %d", ok, seq)
	}
	if ok, _ := hasNode(t, past, "code:function:a.go::First"); !ok {
		t.Fatal("the view at seq 1 lacks First")
	}
	if _, err := past.Append(context.Background(), eventlog.AppendRequest{Stream: graph.Stream,
		Events: []eventlog.Payload{{Type: graph.TypeNodesUpserted, Data: json.RawMessage(`{"nodes":[]}`)}}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Append on a point-in-time state = %v, want ErrReadOnly", err)
	}
	var hits int
	past.View(func(v View) {
		res, err := v.Resolver.Resolve(context.Background(), "First")
		if err == nil && res.Node.UID == "code:function:a.go::First" {
			hits++
		}
	})
	if hits != 1 {
		t.Fatal("the point-in-time search index does not resolve First")
	}
}

// Close is idempotent and returns the same result each time; calls after
// it fail rather than hang.
func TestState_CloseIdempotent(t *testing.T) {
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	upsert(t, s, "code:function:a.go::A")
	first := s.Close(context.Background())
	if first != nil {
		t.Fatalf("Close: %v", first)
	}
	if again := s.Close(context.Background()); again != first {
		t.Fatalf("second Close = %v, want %v", again, first)
	}
	if _, err := s.Append(context.Background(), eventlog.AppendRequest{Stream: graph.Stream,
		Events: []eventlog.Payload{{Type: graph.TypeNodesUpserted, Data: json.RawMessage(`{"nodes":[]}`)}}}); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
}

// Open on a folder that is a file fails with an *OpenError naming it, and
// a file that is not a cos log is ErrFormat; nothing is created.
func TestOpen_BadFolders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), Options{Dir: file, NATS: bus.ModeOff})
	var oe *OpenError
	if !errors.As(err, &oe) || oe.StateDir != file || oe.Unavailable() {
		t.Fatalf("Open of a file = %v, want an *OpenError for %s", err, file)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LogFile), []byte(strings.Repeat("not bbolt ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeOff}); err == nil {
		t.Fatal("Open of a folder whose events.db is not a cos log succeeded")
	}
	// An unreachable NATS URL is "unavailable", not a storage failure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = Open(ctx, Options{Dir: t.TempDir(), NATS: "nats://127.0.0.1:1"})
	if !errors.As(err, &oe) || !oe.Unavailable() {
		t.Fatalf("Open with an unreachable NATS = %v, want Unavailable", err)
	}
}

// Every module is on until switched off; the gate re-reads the file.
func TestState_ModuleGate(t *testing.T) {
	dir := t.TempDir()
	s := openState(t, dir, nil)
	if on, err := s.ModuleEnabled("tasks"); !on || err != nil {
		t.Fatalf("tasks before: %v %v", on, err)
	}
	if err := SetModule(dir, "tasks", false); err != nil {
		t.Fatal(err)
	}
	if on, err := s.ModuleEnabled("tasks"); on || err != nil {
		t.Fatalf("tasks after disable: %v %v", on, err)
	}
	if on, _ := s.ModuleEnabled("graph"); !on {
		t.Fatal("graph went off with tasks")
	}
	if err := SetModule(dir, "nope", false); !errors.Is(err, ErrUnknownModule) {
		t.Fatalf("SetModule(nope) = %v", err)
	}
}

// Health reports the log head, the view's position and the state hash the
// tailer computes.
func TestView_Health(t *testing.T) {
	s := openState(t, "", nil)
	seq := upsert(t, s, "code:function:a.go::A")
	var h Health
	var herr error
	var hash string
	if err := s.Read(context.Background(), func(v View) {
		h, herr = v.Health(context.Background())
		hash = v.StateHash()
	}); err != nil {
		t.Fatal(err)
	}
	if herr != nil {
		t.Fatal(herr)
	}
	if h.Log.HeadSeq != seq || h.Log.Path != filepath.Join(s.Dir(), LogFile) || h.Bus.Mode != bus.ModeOff || h.Search == nil {
		t.Fatalf("health: %+v", h)
	}
	want, _ := s.Tailer().StateHash()
	if hash != hexOf(want) {
		t.Fatalf("View.StateHash %s, tailer %x", hash, want)
	}
}
