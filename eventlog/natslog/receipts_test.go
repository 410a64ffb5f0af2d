package natslog_test

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
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
