package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/tasks"
)

// openBusState opens dir with the embedded NATS server (auto mode) and
// closes it at cleanup.
func openBusState(tb testing.TB, dir string) *State {
	tb.Helper()
	s, err := Open(context.Background(), Options{Dir: dir, NATS: bus.ModeAuto, NoBackgroundSnapshots: true})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	if s.Bus() == nil || !s.Bus().State().Connected {
		tb.Fatal("no bus: the embedded NATS server did not start")
	}
	return s
}

// hostileConn connects a plain NATS client to the state folder's embedded
// server, the way anyone on the machine could: with the folder's
// credentials when it has them (the worst case: a same-user process, or
// an external server without authentication).
func hostileConn(tb testing.TB, dir string) *nats.Conn {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "nats.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var rec struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		tb.Fatal(err)
	}
	opts := []nats.Option{nats.Name("hostile")}
	if raw, err := os.ReadFile(filepath.Join(dir, "nats-auth.json")); err == nil {
		var cr struct {
			User     string `json:"user"`
			Password string `json:"password"`
		}
		if err := json.Unmarshal(raw, &cr); err != nil {
			tb.Fatal(err)
		}
		opts = append(opts, nats.UserInfo(cr.User, cr.Password))
	}
	nc, err := nats.Connect(rec.URL, opts...)
	if err != nil {
		tb.Fatalf("hostile connect: %v", err)
	}
	tb.Cleanup(nc.Close)
	return nc
}

func taskTitle(tb testing.TB, s *State, id string) (string, bool) {
	tb.Helper()
	var title string
	var ok bool
	s.View(func(v View) {
		var t tasks.Task
		if t, ok = v.Board.Get(id); ok {
			title = t.Title
		}
	})
	return title, ok
}

func createTask(tb testing.TB, s *State, title string) eventlog.Receipt {
	tb.Helper()
	data, err := json.Marshal(tasks.Created{Title: title, Priority: "medium", Status: "todo"})
	if err != nil {
		tb.Fatal(err)
	}
	recs, err := s.Append(context.Background(), eventlog.AppendRequest{StreamPrefix: tasks.StreamPrefix,
		Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: tasks.TypeCreated, Data: data}}})
	if err != nil {
		tb.Fatalf("Append: %v", err)
	}
	return recs[0]
}

// A task.created forged on the bus with the next seq never reaches the
// board: the real event at that seq is applied, later writes build on the
// log's state, and health finds the projections verified.
func TestBus_ForgedEventNeverApplied(t *testing.T) {
	dir := t.TempDir()
	a := openBusState(t, dir)
	b := openBusState(t, dir)
	createTask(t, a, "first")
	if err := b.WaitFor(context.Background(), 1); err != nil {
		t.Fatal(err)
	}

	next := b.Position().Seq + 1
	forged := eventlog.Event{Seq: next, ID: "01FORGED000000000000000000", Time: time.Now().UTC(),
		Stream: tasks.StreamOf("TASK-002"), Revision: 1, Type: tasks.TypeCreated,
		Data:     json.RawMessage(`{"title":"FORGED","priority":"high","status":"todo"}`),
		PrevHash: b.Position().Hash, Hash: "f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"}
	body, err := json.Marshal(forged)
	if err != nil {
		t.Fatal(err)
	}
	nc := hostileConn(t, dir)
	msg := nats.NewMsg(bus.EventsSubject(b.Bus().Namespace(), tasks.TypeCreated))
	msg.Header.Set(bus.HeaderSeq, strconv.FormatUint(next, 10))
	msg.Header.Set(bus.HeaderStream, forged.Stream)
	msg.Header.Set(bus.HeaderMsgID, forged.ID)
	msg.Data = body
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The doorbell rings B; give it time to (wrongly) apply the body.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if title, ok := taskTitle(t, b, "TASK-002"); ok {
			t.Fatalf("the forged event reached the board: TASK-002 %q", title)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := b.Position().Seq; got >= next {
		t.Fatalf("B's position moved to %d on a forged message; the log's head is %d", got, next-1)
	}

	// The real event at that seq is applied, and the next write builds on it.
	rc := createTask(t, a, "real")
	if rc.LastSeq != next || rc.Stream != tasks.StreamOf("TASK-002") {
		t.Fatalf("real create at seq %d stream %s, want seq %d TASK-002", rc.LastSeq, rc.Stream, next)
	}
	rc2 := createTask(t, a, "third")
	if err := b.WaitFor(context.Background(), rc2.LastSeq); err != nil {
		t.Fatal(err)
	}
	if title, _ := taskTitle(t, b, "TASK-002"); title != "real" {
		t.Fatalf("B's TASK-002 is %q, want the log's %q", title, "real")
	}
	if title, _ := taskTitle(t, b, "TASK-003"); title != "third" {
		t.Fatalf("B's TASK-003 is %q, want %q", title, "third")
	}

	// B's state is the log's: the same hash as a process that replays it.
	fresh := openState(t, dir, nil)
	if err := fresh.WaitFor(context.Background(), rc2.LastSeq); err != nil {
		t.Fatal(err)
	}
	var hb, hf string
	b.View(func(v View) { hb = v.StateHash() })
	fresh.View(func(v View) { hf = v.StateHash() })
	if hb != hf {
		t.Fatalf("B's state hash %s differs from a fresh replay's %s", hb, hf)
	}
	var pc projections.PositionCheck
	if err := b.Read(context.Background(), func(v View) {
		h, err := v.Health(context.Background())
		if err != nil {
			t.Error(err)
		}
		pc = h.Position
	}); err != nil {
		t.Fatal(err)
	}
	if !pc.Verified || pc.Seq != rc2.LastSeq {
		t.Fatalf("B's health: %+v, want verified at seq %d", pc, rc2.LastSeq)
	}
}

// Health checks the projections' position against the log's record at
// that seq: verified on a healthy folder, not verified (with the reason)
// once the log under a running process is another one.
func TestHealth_PositionVerifiedAgainstLog(t *testing.T) {
	other := t.TempDir()
	o := openState(t, other, nil)
	for i := range 3 {
		upsert(t, o, "other-"+strconv.Itoa(i))
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	s := openState(t, dir, nil)
	for i := range 3 {
		upsert(t, s, "mine-"+strconv.Itoa(i))
	}
	health := func() Health {
		t.Helper()
		var h Health
		var err error
		if rerr := s.Read(context.Background(), func(v View) { h, err = v.Health(context.Background()) }); rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := health(); !h.Position.Verified || h.Position.Seq != 3 || h.Position.Problem != "" {
		t.Fatalf("healthy folder: %+v, want verified at seq 3", h.Position)
	}

	// Another folder's log is copied over this one while the process runs.
	raw, err := os.ReadFile(filepath.Join(other, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, LogFile+".new")
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, LogFile)); err != nil {
		t.Fatal(err)
	}
	h := health()
	if h.Position.Verified || h.Position.LogHash == h.Position.Hash || h.Position.Problem == "" {
		t.Fatalf("log replaced: %+v, want not verified with a problem", h.Position)
	}
}
