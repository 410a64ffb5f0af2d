package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/nats-io/nats.go/jetstream"
)

// TestState_LostStreamIsRefusedNotRestarted: a state folder that has seen
// 5 events of a stream refuses it, loudly, once the stream is deleted and
// created again holding 1 event — in Integrity (health and every answer's
// meta read it), in writes — instead of answering from the new, empty log
// and handing out its names again. No open re-creates the deleted stream.
// A running state (a Hub) refuses the shorter stream the same way.
func TestState_LostStreamIsRefusedNotRestarted(t *testing.T) {
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{Nodes: 3})
	addr := js.URL() + "/LOST"
	ctx := context.Background()
	dir, hubDir := t.TempDir(), t.TempDir()
	open := func(dir string, create bool) (*State, error) {
		s, err := Open(ctx, Options{Dir: dir, Store: addr, CreateStream: create, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
		if err == nil {
			t.Cleanup(func() { _ = s.Close(ctx) })
		}
		return s, err
	}
	s, err := open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"code:function:a", "code:function:b", "code:function:c", "code:function:d", "code:function:e"} {
		upsert(t, s, uid)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	hub, err := open(hubDir, false) // a long-running process on the same stream
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := hasNode(t, hub, "code:function:e"); !ok {
		t.Fatal("the hub does not see the events")
	}

	jsc, err := jetstream.New(js.ConnectAll())
	if err != nil {
		t.Fatal(err)
	}
	if err := jsc.DeleteStream(ctx, "LOST"); err != nil {
		t.Fatal(err)
	}
	// The running hub answers from what it has, saying the log is gone,
	// and refuses writes.
	var gone Integrity
	if err := hub.Read(ctx, func(v View) { gone = v.Integrity }); err != nil || gone.OK || gone.SeenSeq != 5 {
		t.Errorf("hub Read of a deleted stream = %v, Integrity %+v; want an answer with integrity not OK, seen_seq 5", err, gone)
	}
	if _, err := hub.Append(ctx, eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{}`)}}}); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Errorf("hub Append into a deleted stream = %v; want E_INTEGRITY", err)
	}
	if _, err := open(dir, false); !errors.Is(err, store.ErrNoStream) {
		t.Fatalf("Open of a deleted stream = %v; want ErrNoStream", err)
	}
	if _, err := jsc.Stream(ctx, "LOST"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("an open created the deleted stream again (%v)", err)
	}
	// Someone creates the stream anew (explicitly) and writes one event.
	other, err := open(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	upsert(t, other, "code:function:new")

	for name, st := range map[string]func() *State{
		"reopened folder": func() *State {
			s, err := open(dir, false)
			if err != nil {
				t.Fatalf("Open of the folder that saw 5 events: %v", err)
			}
			return s
		},
		"running hub": func() *State { return hub },
	} {
		s := st()
		var integ Integrity
		if err := s.Read(ctx, func(v View) { integ = v.Integrity }); err != nil {
			t.Fatalf("%s: Read: %v", name, err)
		}
		if integ.OK || integ.Problem == "" {
			t.Errorf("%s: Integrity = %+v; want not OK, saying why", name, integ)
		}
		_, err := s.Append(ctx, eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{}`)}}})
		var envErr *envelope.Error
		if !errors.Is(err, eventlog.ErrIntegrity) && !(errors.As(err, &envErr) && envErr.Code == envelope.CodeIntegrity) {
			t.Errorf("%s: Append onto the shorter stream = %v; want E_INTEGRITY", name, err)
		}
	}
	s2, _ := open(dir, false)
	if got := s2.Integrity(); got.SeenSeq != 5 || got.FirstBadSeq != 2 {
		t.Errorf("reopened folder: Integrity = %+v; want seen_seq 5, first_bad_seq 2", got)
	}
	if h, err := other.log.Head(ctx); err != nil || h.Seq != 1 {
		t.Fatalf("the new stream's head = %+v, %v; want 1: a refused write wrote", h, err)
	}

	// Accepting the log as it is: delete the mark.
	if err := os.Remove(filepath.Join(dir, LogSeenFile)); err != nil {
		t.Fatal(err)
	}
	s3, err := open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := s3.Integrity(); !got.OK {
		t.Fatalf("with the mark deleted: Integrity = %+v; want OK", got)
	}
}

// TestState_ReplacedLogFileIsRefused: a log file put in place of the one
// a folder saw — as long, but other events — is refused the same way
// (the hash at the seen seq differs), and cos restore's RestoreLog, the
// sanctioned way to put an older log in place, clears the mark.
func TestState_ReplacedLogFileIsRefused(t *testing.T) {
	ctx := context.Background()
	dir, other := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, other} {
		s, err := Open(ctx, Options{Dir: d, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, uid := range []string{"code:function:a", "code:function:" + filepath.Base(d)} {
			upsert(t, s, uid)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(other, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LogFile, LogFile + ".head"} {
		_ = os.Remove(filepath.Join(dir, name))
	}
	if err := os.WriteFile(filepath.Join(dir, LogFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Integrity(); got.OK || got.SeenSeq != 2 || got.FirstBadSeq != 2 {
		t.Errorf("Integrity of a replaced log = %+v; want not OK, seen_seq 2, first_bad_seq 2", got)
	}
	if _, err := s.Append(ctx, eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "a.b", Data: []byte(`{}`)}}}); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Errorf("Append onto a replaced log = %v; want E_INTEGRITY", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := RestoreLog(ctx, dir, filepath.Join(other, LogFile)); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if got := s.Integrity(); !got.OK {
		t.Errorf("Integrity after RestoreLog = %+v; want OK", got)
	}
}

// TestState_SeenMarkFollowsWrites: the mark moves with every write, not
// only at open and close, so a process killed without closing (a Hub after
// SIGKILL) leaves the mark at its last write: a log put back from an older
// copy is refused afterwards. Fails when the mark is written only by Open
// and Close.
func TestState_SeenMarkFollowsWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	upsert(t, s, "code:function:a")
	upsert(t, s, "code:function:b")
	head, err := s.log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// No Close: read the file as a killed process would have left it.
	mark := readSeen(seenFile(dir), s.logger)
	if mark.Seq != head.Seq || mark.Hash != head.Hash {
		t.Fatalf("mark after two writes, before Close = %+v; want the log head %+v", mark, head)
	}
}

// TestState_SeenMarkWhateverTheAddress: the mark is checked whatever
// address the log is opened by: the same folder opened with --store naming
// another, shorter log file is refused, not taken as a new log. Fails when
// the mark is compared only against the address it was written with.
func TestState_SeenMarkWhateverTheAddress(t *testing.T) {
	ctx := context.Background()
	dir, other := t.TempDir(), t.TempDir()
	s, err := Open(ctx, Options{Dir: dir, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"code:function:a", "code:function:b", "code:function:c"} {
		upsert(t, s, uid)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(other, "short.db")
	s, err = Open(ctx, Options{Dir: dir, Store: short, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if got := s.Integrity(); got.OK || got.SeenSeq != 3 {
		t.Errorf("Integrity with another, empty log file = %+v; want not OK, seen_seq 3", got)
	}
	if _, err := s.Append(ctx, eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "a.b", Data: []byte(`{}`)}}}); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Errorf("Append into another, empty log file = %v; want E_INTEGRITY", err)
	}
	var h Health
	if err := s.Read(ctx, func(v View) { h, _ = v.Health(ctx) }); err != nil {
		t.Fatal(err)
	}
	if h.Writable || h.Integrity.OK {
		t.Errorf("Health with writes refused = writable %v, integrity %+v; want writable false beside the problem", h.Writable, h.Integrity)
	}
}
