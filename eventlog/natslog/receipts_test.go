package natslog_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/nats-io/nats.go"
)

// forgeNext publishes, with a raw client, the next link of the chain: an
// event of cos stream name under requestID whose Cos-Intent header is
// intent — what anyone allowed to publish on the log's subjects can do,
// since the chain has no key.
func forgeNext(t *testing.T, l *natslog.Log, url, jsStream, name, requestID string, intent [32]byte, data string) eventlog.Event {
	t.Helper()
	ctx := t.Context()
	head, err := l.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ev := eventlog.Event{
		Seq: head.Seq + 1, ID: "01JFORGED00000000000000000", Time: time.Now().UTC(), Stream: name, Revision: 1,
		Type: "task.created", RequestID: requestID, Actor: eventlog.Actor{Client: "forger"},
		Data: json.RawMessage(data), PrevHash: head.Hash,
	}
	ev.Hash = eventlog.EventHash(&ev)
	body, err := json.Marshal(&ev)
	if err != nil {
		t.Fatal(err)
	}
	_, js := connect(t, url)
	m := nats.NewMsg("cos." + strings.ToLower(jsStream) + ".log." + natslog.EncodeToken(name))
	m.Data = body
	m.Header.Set("Cos-Intent", hex.EncodeToString(intent[:]))
	m.Header.Set("Cos-Events", "1")
	m.Header.Set("Nats-Expected-Last-Sequence", strconv.FormatUint(head.Seq, 10))
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatalf("forged publish: %v", err)
	}
	return ev
}

// TestAppend_ForgedIntentDoesNotTakeARequestID: a message published by a
// raw client — a valid next link of the chain — carrying the Cos-Intent
// of a request another client will make, under its request id, must not
// answer that request "replayed": the victim's append is written, on the
// handle that was open when the forgery landed and on one opened after.
// Before, the receipt index took the header's word and the victim's data
// was never written.
func TestAppend_ForgedIntentDoesNotTakeARequestID(t *testing.T) {
	_, url := startJetStream(t)
	for _, reopen := range []bool{false, true} {
		t.Run("reopen="+strconv.FormatBool(reopen), func(t *testing.T) {
			ctx := t.Context()
			name := newStreamName()
			l := openLog(t, url, name, natslog.Options{})
			if _, err := eventlog.AppendOne(ctx, l, eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{"title":"first"}`)}}}); err != nil {
				t.Fatal(err)
			}
			victim := eventlog.AppendRequest{Stream: "task:TASK-002", RequestID: "victim-1", Expect: eventlog.NoStream(),
				Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{"title":"the victim's task"}`)}}}
			p, err := eventlog.Prepare(victim, eventlog.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			forged := forgeNext(t, l, url, name, "task:EVIL", victim.RequestID, p.Intent, `{"title":"not the victim's"}`)
			v := l
			if reopen {
				v = openLog(t, url, name, natslog.Options{})
			}
			rec, err := eventlog.AppendOne(ctx, v, victim)
			if err != nil {
				t.Fatalf("victim's append: %v", err)
			}
			if rec.Replayed || rec.Stream != "task:TASK-002" || rec.FirstSeq != forged.Seq+1 {
				t.Fatalf("victim's append answered %+v; want written at seq %d on task:TASK-002, not replayed (the forged event is seq %d)", rec, forged.Seq+1, forged.Seq)
			}
			var data string
			if err := v.Read(ctx, rec.FirstSeq, func(ev eventlog.Event) error { data = string(ev.Data); return eventlog.ErrStop }); err != nil || data != `{"title":"the victim's task"}` {
				t.Fatalf("the victim's event reads %q, %v", data, err)
			}
			// The retry of the victim's own request replays its own event.
			again, err := eventlog.AppendOne(ctx, v, victim)
			if err != nil || !again.Replayed || again.FirstSeq != rec.FirstSeq {
				t.Fatalf("retry of the victim's request: %+v, %v; want a replay of seq %d", again, err, rec.FirstSeq)
			}
		})
	}
}

// TestReceipts_ReplayOnAnotherHandle: the receipts another handle wrote —
// a named stream with an expected revision and hash, an allocated stream,
// a request of three events — replay on a handle that read them from the
// stream (their intents are checked against their events there).
func TestReceipts_ReplayOnAnotherHandle(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	ctx := t.Context()
	a := openLog(t, url, name, natslog.Options{})
	first, err := eventlog.AppendOne(ctx, a, eventlog.AppendRequest{Stream: "doc:a", Events: []eventlog.Payload{{Type: "doc.created", Data: []byte(`{"v":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []eventlog.AppendRequest{
		{Stream: "doc:a", RequestID: "cas", Expect: eventlog.AtRevision(1), ExpectedHash: first.Hashes[0],
			Events: []eventlog.Payload{{Type: "doc.updated", Data: []byte(`{"b":2,"a":1}`)}}},
		{StreamPrefix: "task:TASK-", RequestID: "alloc", Expect: eventlog.NoStream(),
			Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{"title":"x"}`)}}},
		{StreamPrefix: "run1", RequestID: "alloc-digits",
			Events: []eventlog.Payload{{Type: "run.started", Data: []byte(`{}`)}}},
		{Stream: "doc:b", RequestID: "three", Events: []eventlog.Payload{
			{Type: "doc.created", Data: []byte(`{"n":1}`)}, {Type: "doc.updated", Data: []byte(`{"n":2}`)}, {Type: "doc.updated", Data: []byte(`{"n":3.50}`)}}},
	}
	want := make([]eventlog.Receipt, len(reqs))
	for i, r := range reqs {
		if want[i], err = eventlog.AppendOne(ctx, a, r); err != nil {
			t.Fatalf("append %s: %v", r.RequestID, err)
		}
	}
	b := openLog(t, url, name, natslog.Options{})
	for i, r := range reqs {
		// The retry's JSON orders its keys differently: the intent is
		// canonical.
		if r.RequestID == "cas" {
			r.Events = []eventlog.Payload{{Type: "doc.updated", Data: []byte(`{"a":1,"b":2}`)}}
		}
		got, err := eventlog.AppendOne(ctx, b, r)
		if err != nil || !got.Replayed || got.FirstSeq != want[i].FirstSeq || got.LastSeq != want[i].LastSeq || got.Stream != want[i].Stream {
			t.Errorf("retry of %s on another handle: %+v, %v; want a replay of %+v", r.RequestID, got, err, want[i])
		}
	}
}

// forgedIntent lists a file log's receipts with another intent.
type forgedIntent struct{ *boltlog.Log }

func (f forgedIntent) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	return f.Log.Receipts(ctx, func(r eventlog.StoredReceipt) error { r.Intent[0] ^= 1; return fn(r) })
}

// TestImport_CarriesReceipts: an import from a file log carries its
// receipts — a named stream, an allocated one, a request of two events —
// so their retries replay on the stream; a receipt whose intent does not
// match its events is refused before anything is sent.
func TestImport_CarriesReceipts(t *testing.T) {
	_, url := startJetStream(t)
	ctx := t.Context()
	src, err := boltlog.Open(ctx, filepath.Join(t.TempDir(), "events.db"), boltlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	reqs := []eventlog.AppendRequest{
		{Stream: "doc:a", RequestID: "named", Events: []eventlog.Payload{{Type: "doc.created", Data: []byte(`{"v":1}`)}}},
		{StreamPrefix: "run1", RequestID: "alloc", Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "run.started", Data: []byte(`{}`)}}},
		{Stream: "doc:a", RequestID: "two", Expect: eventlog.AtRevision(1), Events: []eventlog.Payload{
			{Type: "doc.updated", Data: []byte(`{"v":2}`)}, {Type: "doc.updated", Data: []byte(`{"v":3}`)}}},
	}
	want := make([]eventlog.Receipt, len(reqs))
	for i, r := range reqs {
		if want[i], err = eventlog.AppendOne(ctx, src, r); err != nil {
			t.Fatal(err)
		}
	}
	bad := newStreamName()
	if _, err := natslog.Import(ctx, url, natslog.Options{Stream: bad}, forgedIntent{src}, nil); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("import of a receipt with another intent: %v; want an IntegrityError", err)
	}
	if h, err := openLog(t, url, bad, natslog.Options{}).Head(ctx); err != nil || h.Seq != 0 {
		t.Fatalf("stream after the refused import: %+v, %v; want empty", h, err)
	}
	name := newStreamName()
	if _, err := natslog.Import(ctx, url, natslog.Options{Stream: name}, src, nil); err != nil {
		t.Fatal(err)
	}
	l := openLog(t, url, name, natslog.Options{})
	for i, r := range reqs {
		got, err := eventlog.AppendOne(ctx, l, r)
		if err != nil || !got.Replayed || got.FirstSeq != want[i].FirstSeq || got.LastSeq != want[i].LastSeq {
			t.Errorf("retry of %s on the stream: %+v, %v; want a replay of %+v", r.RequestID, got, err, want[i])
		}
	}
	// Allocation continues after the copied stream.
	next, err := eventlog.AppendOne(ctx, l, eventlog.AppendRequest{StreamPrefix: "run1", Events: []eventlog.Payload{{Type: "run.started", Data: []byte(`{}`)}}})
	if err != nil || next.Stream != "run1002" {
		t.Fatalf("next allocation of run1: %+v, %v; want run1002", next, err)
	}
}
