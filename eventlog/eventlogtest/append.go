package eventlogtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

func testAppendGaplessSeqRevisionsAndChain(t *testing.T, open Opener) {
	l := open(t, "log")
	streams := []string{"a", "b", "a", "c", "a"}
	var last eventlog.Receipt
	for i, s := range streams {
		last = mustAppend(t, l, req(s, "test.appended", dataN(i)))
	}
	evs := readAll(t, l)
	if len(evs) != len(streams) {
		t.Fatalf("read %d events, want %d", len(evs), len(streams))
	}
	wantRev := map[string]uint64{}
	prev := zeroHash
	var prevID string
	for i, ev := range evs {
		wantRev[ev.Stream]++
		if ev.Seq != uint64(i+1) {
			t.Errorf("event %d seq = %d", i, ev.Seq)
		}
		if ev.Stream != streams[i] || ev.Revision != wantRev[ev.Stream] {
			t.Errorf("event %d = %s rev %d, want %s rev %d", i, ev.Stream, ev.Revision, streams[i], wantRev[ev.Stream])
		}
		if ev.PrevHash != prev || ev.Hash != eventlog.EventHash(&ev) {
			t.Errorf("event %d chain broken", i)
		}
		if ev.ID <= prevID {
			t.Errorf("event %d id %s not after %s", i, ev.ID, prevID)
		}
		if ev.Time.Location() != time.UTC {
			t.Errorf("event %d time not UTC", i)
		}
		prev, prevID = ev.Hash, ev.ID
	}
	head, err := l.Head(context.Background())
	if err != nil || head.Seq != 5 || head.Hash != prev {
		t.Fatalf("Head = %+v, %v; want seq 5 hash %s", head, err, prev)
	}
	if last.Stream != "a" || last.Revision != 3 || last.Hashes[0] != evs[4].Hash {
		t.Fatalf("receipt of the last append = %+v, want stream a at revision 3 with hash %s", last, evs[4].Hash)
	}
}

func testAppendMultiEventRequestIsOneReceipt(t *testing.T, open Opener) {
	l := open(t, "log")
	rec := mustAppend(t, l, eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{
		{Type: "x.one", Data: json.RawMessage(`1`)}, {Type: "x.two", Data: json.RawMessage(`2`)},
	}})
	if rec.FirstSeq != 1 || rec.LastSeq != 2 || rec.Revision != 2 || len(rec.Hashes) != 2 || len(rec.IDs) != 2 {
		t.Fatalf("receipt = %+v", rec)
	}
	evs := readAll(t, l)
	if len(evs) != 2 || evs[0].Type != "x.one" || evs[1].Type != "x.two" || rec.Hashes[1] != evs[1].Hash || rec.IDs[0] != evs[0].ID {
		t.Fatalf("the log holds %+v for receipt %+v", evs, rec)
	}
}

func testAppendStaleRevision(t *testing.T, open Opener) {
	l := open(t, "log")
	ctx := context.Background()
	const stream = "task:TASK-001"
	created := mustAppend(t, l, eventlog.AppendRequest{Stream: stream, Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})

	_, err := appendOne(ctx, l, eventlog.AppendRequest{Stream: stream, Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
	var se *eventlog.StaleRevisionError
	if !errors.Is(err, eventlog.ErrStaleRevision) || !errors.As(err, &se) || se.Stream != stream ||
		!se.Expected.IsSet() || se.Expected.Revision() != 0 || se.Current != 1 || se.CurrentHash != created.Hashes[0] {
		t.Fatalf("create twice: err = %v (%+v), want a create-target-exists StaleRevisionError at revision 1", err, se)
	}
	_, err = appendOne(ctx, l, eventlog.AppendRequest{Stream: stream, Expect: eventlog.AtRevision(5), Events: []eventlog.Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if !errors.As(err, &se) || se.Current != 1 || se.Expected.Revision() != 5 || !errors.Is(err, eventlog.ErrStaleRevision) {
		t.Fatalf("wrong revision: err = %v", err)
	}
	wrongHash := strings.Repeat("ab", 32)
	_, err = appendOne(ctx, l, eventlog.AppendRequest{Stream: stream, ExpectedHash: wrongHash, Events: []eventlog.Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if !errors.As(err, &se) || se.CurrentHash != created.Hashes[0] || se.ExpectedHash != wrongHash || !errors.Is(err, eventlog.ErrStaleRevision) {
		t.Fatalf("wrong hash: err = %v", err)
	}
	ok := mustAppend(t, l, eventlog.AppendRequest{Stream: stream, Expect: eventlog.AtRevision(1), ExpectedHash: created.Hashes[0], Events: []eventlog.Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if ok.Revision != 2 {
		t.Fatalf("revision after update = %d, want 2", ok.Revision)
	}
	if n := len(readAll(t, l)); n != 2 {
		t.Fatalf("log holds %d events, want 2", n)
	}
}

func testAppendFailedRequestDoesNotFailNeighbours(t *testing.T, open Opener) {
	l := open(t, "log")
	mustAppend(t, l, req("shared", "a.b", `{}`))
	res, err := l.Append(context.Background(),
		req("x", "a.b", `{}`),
		eventlog.AppendRequest{Stream: "shared", Expect: eventlog.AtRevision(7), Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		eventlog.AppendRequest{Stream: "shared", Expect: eventlog.AtRevision(1), Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		eventlog.AppendRequest{Stream: "shared", Expect: eventlog.AtRevision(1), Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		req("", "a.b", `{}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []error{nil, eventlog.ErrStaleRevision, nil, eventlog.ErrStaleRevision, eventlog.ErrInvalidEvent}
	if len(res) != len(want) {
		t.Fatalf("%d results for %d requests", len(res), len(want))
	}
	for i, w := range want {
		if (w == nil) != (res[i].Err == nil) || (w != nil && !errors.Is(res[i].Err, w)) {
			t.Errorf("result %d err = %v, want %v", i, res[i].Err, w)
		}
	}
	if res[2].Receipt.Revision != 2 {
		t.Errorf("result 2 revision = %d, want 2", res[2].Receipt.Revision)
	}
	if n := len(readAll(t, l)); n != 3 {
		t.Fatalf("log holds %d events, want 3", n)
	}
}

// testAppendInvalidEvent covers every malformed request that does not
// depend on a configured limit (eventlog's own tests cover MaxEventBytes).
func testAppendInvalidEvent(t *testing.T, open Opener) {
	l := open(t, "log")
	cases := map[string]struct {
		r     eventlog.AppendRequest
		field string
	}{
		"empty stream":    {req("", "a.b", `{}`), "stream"},
		"space in stream": {req("a b", "a.b", `{}`), "stream"},
		"both":            {eventlog.AppendRequest{Stream: "s", StreamPrefix: "p", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "stream"},
		"no events":       {eventlog.AppendRequest{Stream: "s"}, "events"},
		"type no dot":     {req("s", "created", `{}`), "type"},
		"type upper":      {req("s", "Task.Created", `{}`), "type"},
		"type dash":       {req("s", "task.was-created", `{}`), "type"},
		"not json":        {req("s", "a.b", `{nope`), "data"},
		"empty data":      {req("s", "a.b", ``), "data"},
		"two values":      {req("s", "a.b", `{} {}`), "data"},
		"bad hash":        {eventlog.AppendRequest{Stream: "s", ExpectedHash: "xyz", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "expected_hash"},
		"prefix at rev":   {eventlog.AppendRequest{StreamPrefix: "p-", Expect: eventlog.AtRevision(2), Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "expect"},
	}
	for name, c := range cases {
		_, err := appendOne(context.Background(), l, c.r)
		var ie *eventlog.InvalidEventError
		if !errors.Is(err, eventlog.ErrInvalidEvent) || !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%s: err = %v, want ErrInvalidEvent on %s", name, err, c.field)
		}
	}
	if n := len(readAll(t, l)); n != 0 {
		t.Fatalf("log holds %d events after rejected requests, want 0", n)
	}
}
