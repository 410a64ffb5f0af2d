package bus

import (
	"errors"
	"reflect"
	"testing"
)

func TestCheckEventType(t *testing.T) {
	cases := []struct {
		typ string
		ok  bool
	}{
		{"task.updated", true},
		{"graph.file_extracted", true},
		{"system", true},
		{"", false},
		{"task.", false},
		{".task", false},
		{"task..x", false},
		{"task.*", false},
		{"task.>", false},
		{"ta*sk", false},
		{"task updated", false},
		{"task\tupdated", false},
	}
	for _, tc := range cases {
		err := checkEventType(tc.typ)
		if (err == nil) != tc.ok {
			t.Errorf("checkEventType(%q) = %v, want ok=%v", tc.typ, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidSubject) {
			t.Errorf("checkEventType(%q) = %v, not ErrInvalidSubject", tc.typ, err)
		}
	}
}

func TestCheckSubject(t *testing.T) {
	cases := []struct {
		subj string
		ok   bool
	}{
		{"cos.ns.events.>", true},
		{"cos.ns.events.task.>", true},
		{"cos.*.events.*", true},
		{"cos.ns.presence", true},
		{"", false},
		{"cos..x", false},
		{"cos.>.x", false},
		{"cos.a>.x", false},
		{"cos.a b", false},
	}
	for _, tc := range cases {
		if err := checkSubject(tc.subj); (err == nil) != tc.ok {
			t.Errorf("checkSubject(%q) = %v, want ok=%v", tc.subj, err, tc.ok)
		}
	}
}

func TestEncodeEvent_RoundTrip(t *testing.T) {
	ev := testEvent(42, "task.updated", "task:TASK-042")
	ev.RequestID = "req-1"
	ev.Actor.Client = "claude"
	msg, err := encodeEvent("ns1", ev)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cos.ns1.events.task.updated"; msg.Subject != want {
		t.Errorf("subject %q, want %q", msg.Subject, want)
	}
	for h, want := range map[string]string{HeaderSeq: "42", HeaderStream: "task:TASK-042", HeaderMsgID: ev.ID} {
		if got := msg.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	got, err := decodeEvent(msg.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ev) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, ev)
	}
	if _, err := decodeEvent([]byte(`{"seq":"x"}`)); err == nil {
		t.Error("decodeEvent accepted a string seq")
	}
}

func FuzzDecodeEvent(f *testing.F) {
	msg, err := encodeEvent("ns", testEvent(1, "task.created", "task:TASK-001"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(msg.Data)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"seq":1,"data":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := decodeEvent(body)
		if err != nil {
			return
		}
		// Whatever decodes must encode and decode to itself.
		if checkEventType(ev.Type) != nil {
			return
		}
		m, err := encodeEvent("ns", ev)
		if err != nil {
			return // e.g. Data that is not valid JSON
		}
		again, err := decodeEvent(m.Data)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if again.Seq != ev.Seq || again.ID != ev.ID || again.Type != ev.Type || again.Stream != ev.Stream {
			t.Fatalf("round trip changed the event: %+v -> %+v", ev, again)
		}
	})
}
