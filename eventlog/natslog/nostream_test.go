package natslog_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/nats-io/nats.go/jetstream"
)

// TestOpen_MissingStreamRefusedUnlessCreate: an open without
// Options.Create refuses a missing stream with ErrNoStream, saying how to
// create it, and creates nothing; with Create it makes the stream.
func TestOpen_MissingStreamRefusedUnlessCreate(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	name := newStreamName()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := natslog.Open(ctx, url, natslog.Options{Stream: name})
	if !errors.Is(err, natslog.ErrNoStream) || !contains(err, "cos log init") {
		t.Fatalf("Open of a missing stream = %v; want ErrNoStream naming `cos log init`", err)
	}
	if _, err := js.Stream(ctx, name); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a refused open created the stream (%v)", err)
	}
	l := openLog(t, url, name, natslog.Options{}) // Create set by the helper
	if h, err := l.Head(ctx); err != nil || h.Seq != 0 {
		t.Fatalf("Head of the created stream = %+v, %v", h, err)
	}
}

// TestLog_DeletedStreamIsNeverAFreshStart: a handle that read 5 events
// refuses its stream once it is deleted (ErrNoStream, nothing created
// again), and once another process creates it anew with one event, it
// refuses the shorter log in Head, Read and Append (an
// *eventlog.IntegrityError) instead of answering from it or writing
// TASK-001 again.
func TestLog_DeletedStreamIsNeverAFreshStart(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	name := newStreamName()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := openLog(t, url, name, natslog.Options{})
	for range 5 {
		if _, err := a.Append(ctx, one("task:TASK-001", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.DeleteStream(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Head(ctx); !errors.Is(err, natslog.ErrNoStream) {
		t.Fatalf("Head of a deleted stream = %v; want ErrNoStream", err)
	}
	// One event (a pipelined publish on R1) and two (an atomic batch):
	// the stream is gone, not the servers unavailable.
	two := eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(`{}`)}, {Type: "test.appended", Data: []byte(`{}`)}}}
	for _, req := range []eventlog.AppendRequest{one("task:TASK-001", `{}`), two} {
		_, err := eventlog.AppendOne(ctx, a, req)
		if !errors.Is(err, natslog.ErrNoStream) || errors.Is(err, natslog.ErrUnavailable) || !contains(err, "was deleted") {
			t.Fatalf("Append of %d events into a deleted stream = %v; want ErrNoStream saying it was deleted, not unavailable", len(req.Events), err)
		}
	}
	if _, err := js.Stream(ctx, name); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a handle created the deleted stream again (%v)", err)
	}
	b := openLog(t, url, name, natslog.Options{}) // an explicit create
	if _, err := b.Append(ctx, one("task:TASK-001", `{}`)); err != nil {
		t.Fatal(err)
	}
	if h, err := a.Head(ctx); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Head of the shorter stream = %+v, %v; want an integrity error", h, err)
	}
	if err := a.Read(ctx, 1, func(eventlog.Event) error { return nil }); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Read of the shorter stream = %v; want an integrity error", err)
	}
	if _, err := eventlog.AppendOne(ctx, a, one("task:TASK-002", `{}`)); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Append onto the shorter stream = %v; want an integrity error", err)
	}
	if h, err := b.Head(ctx); err != nil || h.Seq != 1 {
		t.Fatalf("the new stream's head = %+v, %v; want seq 1 (nothing of a's written)", h, err)
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestVerify_MissingStreamIsNotOK: Verify on a read-only handle whose
// stream was deleted fails with ErrNoStream instead of "0 events, ok"
// (`cos verify` on a deleted stream).
func TestVerify_MissingStreamIsNotOK(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	name := newStreamName()
	openLog(t, url, name, natslog.Options{})
	l := openLog(t, url, name, natslog.Options{ReadOnly: true})
	if err := js.DeleteStream(ctx, name); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Verify(ctx); !errors.Is(err, natslog.ErrNoStream) {
		t.Fatalf("Verify of a missing stream = %d, %v; want ErrNoStream", n, err)
	}
}

// TestLog_StreamCreatedAgainWithAsManyEvents: a handle that read 5 events
// of a stream that is then deleted and created again with 5 other events
// (its expected sequence would pass) refuses to write onto them — one
// event and a batch alike — once it has been idle a moment, and Head and
// Read refuse it too; the new stream holds only its own 5 events.
func TestLog_StreamCreatedAgainWithAsManyEvents(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	name := newStreamName()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := openLog(t, url, name, natslog.Options{})
	for range 5 {
		if _, err := a.Append(ctx, one("task:TASK-001", `{"by":"a"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.DeleteStream(ctx, name); err != nil {
		t.Fatal(err)
	}
	b := openLog(t, url, name, natslog.Options{}) // an explicit create
	for range 5 {
		if _, err := b.Append(ctx, one("task:TASK-009", `{"by":"b"}`)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1200 * time.Millisecond) // past the committer's idle check
	two := eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(`{}`)}, {Type: "test.appended", Data: []byte(`{}`)}}}
	for _, req := range []eventlog.AppendRequest{one("task:TASK-001", `{"by":"a"}`), two} {
		if _, err := eventlog.AppendOne(ctx, a, req); !errors.Is(err, eventlog.ErrIntegrity) || !contains(err, "created again") {
			t.Fatalf("Append of %d events onto the stream created again = %v; want an integrity error saying so", len(req.Events), err)
		}
	}
	if _, err := a.Head(ctx); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Errorf("Head of the stream created again = %v; want an integrity error", err)
	}
	if h, err := b.Head(ctx); err != nil || h.Seq != 5 {
		t.Fatalf("the new stream's head = %+v, %v; want seq 5 (nothing of a's written)", h, err)
	}
	if n, err := b.Verify(ctx); err != nil || n != 5 {
		t.Errorf("Verify of the new stream = %d, %v; want 5 events that verify", n, err)
	}
}

// TestLog_FollowStopsAtAStreamCreatedAgain: a follower that read a
// stream's events does not carry on into the events of a stream deleted
// and created again under its name (its ordered consumer would): the first
// event that does not link to the last one read is an integrity error.
func TestLog_FollowStopsAtAStreamCreatedAgain(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	name := newStreamName()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := openLog(t, url, name, natslog.Options{})
	for range 3 {
		if _, err := a.Append(ctx, one("task:TASK-001", `{"by":"a"}`)); err != nil {
			t.Fatal(err)
		}
	}
	follower := openLog(t, url, name, natslog.Options{ReadOnly: true})
	got := make(chan eventlog.Event, 16)
	done := make(chan error, 1)
	go func() {
		done <- follower.Follow(ctx, 1, func(ev eventlog.Event) error { got <- ev; return nil })
	}()
	for range 3 {
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatal("the follower did not read the first 3 events")
		}
	}
	if err := js.DeleteStream(ctx, name); err != nil {
		t.Fatal(err)
	}
	b := openLog(t, url, name, natslog.Options{})
	for range 5 {
		if _, err := b.Append(ctx, one("task:TASK-009", `{"by":"b"}`)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if !errors.Is(err, eventlog.ErrIntegrity) {
			t.Fatalf("Follow across the stream created again = %v; want an integrity error", err)
		}
	case ev := <-got:
		t.Fatalf("Follow went on into the new stream: seq %d of %s", ev.Seq, ev.Stream)
	case <-ctx.Done():
		t.Fatal("Follow neither ended nor delivered")
	}
}
