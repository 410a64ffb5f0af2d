package eventlogtest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func testRequestIDReplay(t *testing.T, open Opener) {
	l := open(t, "log")
	r := req("task:TASK-001", "task.updated", `{"status":"done","n":1.50}`)
	r.RequestID = "req-1"
	first := mustAppend(t, l, r)
	if first.Replayed {
		t.Fatalf("first write reported as a replay: %+v", first)
	}
	// Same intent, keys in another order and other whitespace: a replay.
	r2 := req("task:TASK-001", "task.updated", `{ "n":1.50, "status":"done" }`)
	r2.RequestID = "req-1"
	again := mustAppend(t, l, r2)
	if !again.Replayed || again.FirstSeq != first.FirstSeq || again.Hashes[0] != first.Hashes[0] {
		t.Fatalf("replay = %+v, first = %+v", again, first)
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events after a replay, want 1", n)
	}
}

func testRequestIDReuse(t *testing.T, open Opener) {
	l := open(t, "log")
	r := req("s", "a.b", `{"v":1}`)
	r.RequestID = "req-1"
	mustAppend(t, l, r)
	for name, other := range map[string]eventlog.AppendRequest{
		"other data":     {Stream: "s", RequestID: "req-1", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{"v":2}`)}}},
		"other number":   {Stream: "s", RequestID: "req-1", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1.0}`)}}},
		"other stream":   {Stream: "t", RequestID: "req-1", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1}`)}}},
		"other type":     {Stream: "s", RequestID: "req-1", Events: []eventlog.Payload{{Type: "a.c", Data: json.RawMessage(`{"v":1}`)}}},
		"other expected": {Stream: "s", RequestID: "req-1", Expect: eventlog.AtRevision(1), Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1}`)}}},
	} {
		_, err := appendOne(context.Background(), l, other)
		var re *eventlog.RequestReuseError
		if !errors.Is(err, eventlog.ErrRequestReuse) || !errors.As(err, &re) || re.Original.FirstSeq != 1 {
			t.Errorf("%s: err = %v, want ErrRequestReuse naming seq 1", name, err)
		}
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

func testRequestIDLimits(t *testing.T, open Opener) {
	l := open(t, "log")
	for name, id := range map[string]string{
		"too long":   strings.Repeat("x", eventlog.MaxRequestIDLen+1),
		"whitespace": "   ",
		"control":    "a\x00b",
		"bad utf8":   "a\xffb",
	} {
		r := req("s", "a.b", `{}`)
		r.RequestID = id
		if _, err := appendOne(context.Background(), l, r); !errors.Is(err, eventlog.ErrRequestID) {
			t.Errorf("%s: err = %v, want ErrRequestID", name, err)
		}
	}
	r := req("s", "a.b", `{}`)
	r.RequestID = strings.Repeat("é", eventlog.MaxRequestIDLen) // 128 characters, 256 bytes
	mustAppend(t, l, r)
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

func testRequestIDLookupReceipt(t *testing.T, open Opener) {
	l := open(t, "log")
	ctx := context.Background()
	if _, found, err := l.LookupReceipt(ctx, "r-1"); found || err != nil {
		t.Fatalf("lookup before any write: %v %v", found, err)
	}
	r := req("s", "a.b", `{}`)
	r.RequestID = "r-1"
	want := mustAppend(t, l, r)
	got, found, err := l.LookupReceipt(ctx, "r-1")
	if err != nil || !found || got.FirstSeq != want.FirstSeq || got.Hashes[0] != want.Hashes[0] {
		t.Fatalf("lookup = %+v %v %v, want %+v", got, found, err, want)
	}
	if !reflect.DeepEqual(got.IDs, want.IDs) || got.Stream != want.Stream || got.Revision != want.Revision || got.Replayed {
		t.Fatalf("lookup = %+v, want the receipt %+v", got, want)
	}
	mustAppend(t, l, req("s", "a.b", `{"no":"id"}`))
	if _, found, err := l.LookupReceipt(ctx, "r-2"); found || err != nil {
		t.Fatalf("lookup of an id never sent: %v %v", found, err)
	}
}

func testStreamAllocationTaskPrefix(t *testing.T, open Opener) {
	l := open(t, "log")
	mustAppend(t, l, req("task:TASK-002", "task.created", `{}`)) // taken by hand
	var got []string
	for i := 0; i < 3; i++ {
		rec := mustAppend(t, l, eventlog.AppendRequest{StreamPrefix: "task:TASK-", Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
		got = append(got, rec.Stream)
	}
	if strings.Join(got, ",") != "task:TASK-001,task:TASK-003,task:TASK-004" {
		t.Fatalf("allocated %v", got)
	}
	// A replayed allocation returns the same stream.
	r := eventlog.AppendRequest{StreamPrefix: "task:TASK-", RequestID: "create-1", Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}}
	a, b := mustAppend(t, l, r), mustAppend(t, l, r)
	if a.Stream != "task:TASK-005" || b.Stream != a.Stream || !b.Replayed {
		t.Fatalf("replayed allocation: %+v then %+v", a, b)
	}
	evs := readAll(t, l)
	if len(evs) != 5 {
		t.Fatalf("the log holds %d events, want 5", len(evs))
	}
	if evs[4].Stream != "task:TASK-005" || evs[4].Revision != 1 {
		t.Fatalf("last event %+v, want task:TASK-005 at revision 1", evs[4])
	}
}
