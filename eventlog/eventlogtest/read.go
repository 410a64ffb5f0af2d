package eventlogtest

import (
	"context"
	"errors"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func testReadEmpty(t *testing.T, open Opener) {
	l := open(t, "log")
	calls := 0
	if err := l.Read(context.Background(), 0, func(eventlog.Event) error { calls++; return nil }); err != nil || calls != 0 {
		t.Fatalf("Read of an empty log: %d calls, %v", calls, err)
	}
}

// tenEvents appends 10 events to stream s, data {"n":0}…{"n":9}.
func tenEvents(t *testing.T, l eventlog.Log) {
	t.Helper()
	for i := 0; i < 10; i++ {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
	}
}

// readSeqs returns the seqs Read from from calls back with.
func readSeqs(t *testing.T, l eventlog.Log, from uint64) []uint64 {
	t.Helper()
	var got []uint64
	if err := l.Read(context.Background(), from, func(ev eventlog.Event) error {
		got = append(got, ev.Seq)
		return nil
	}); err != nil {
		t.Fatalf("Read from %d: %v", from, err)
	}
	return got
}

func testReadFromSeq(t *testing.T, open Opener) {
	l := open(t, "log")
	tenEvents(t, l)
	for _, c := range []struct {
		from        uint64
		first, last uint64
		n           int
	}{{0, 1, 10, 10}, {1, 1, 10, 10}, {4, 4, 10, 7}, {10, 10, 10, 1}, {11, 0, 0, 0}, {1000, 0, 0, 0}} {
		got := readSeqs(t, l, c.from)
		if len(got) != c.n || (c.n > 0 && (got[0] != c.first || got[len(got)-1] != c.last)) {
			t.Errorf("Read from %d = %v, want %d events %d…%d", c.from, got, c.n, c.first, c.last)
			continue
		}
		for i := 1; i < len(got); i++ {
			if got[i] != got[i-1]+1 {
				t.Errorf("Read from %d = %v: not consecutive", c.from, got)
				break
			}
		}
	}
}

func testReadStop(t *testing.T, open Opener) {
	l := open(t, "log")
	tenEvents(t, l)
	var got []uint64
	err := l.Read(context.Background(), 4, func(ev eventlog.Event) error {
		got = append(got, ev.Seq)
		if ev.Seq == 8 {
			return eventlog.ErrStop
		}
		return nil
	})
	if err != nil || len(got) != 5 || got[0] != 4 || got[4] != 8 {
		t.Fatalf("Read from 4 stopping at 8 = %v, %v", got, err)
	}
}

func testReadCallbackError(t *testing.T, open Opener) {
	l := open(t, "log")
	tenEvents(t, l)
	boom := errors.New("boom")
	calls := 0
	if err := l.Read(context.Background(), 0, func(eventlog.Event) error { calls++; return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("Read callback error = %v after %d calls, want boom after 1", err, calls)
	}
}

func testHeadEmpty(t *testing.T, open Opener) {
	l := open(t, "log")
	if h := mustHead(t, l); h.Seq != 0 || h.Hash != zeroHash {
		t.Fatalf("Head of an empty log = %+v, want seq 0 and 64 zeros", h)
	}
}

func testHeadAfterAppend(t *testing.T, open Opener) {
	l := open(t, "log")
	r := req("s", "a.b", `{}`)
	r.RequestID = "once"
	rec := mustAppend(t, l, r)
	if h := mustHead(t, l); h.Seq != rec.LastSeq || h.Hash != rec.Hashes[0] {
		t.Fatalf("Head after the first append = %+v, want seq %d hash %s", h, rec.LastSeq, rec.Hashes[0])
	}
	rec = mustAppend(t, l, eventlog.AppendRequest{Stream: "t", Events: []eventlog.Payload{
		{Type: "a.b", Data: []byte(`1`)}, {Type: "a.b", Data: []byte(`2`)}, {Type: "a.b", Data: []byte(`3`)},
	}})
	want := eventlog.Head{Seq: 4, Hash: rec.Hashes[2]}
	if h := mustHead(t, l); h != want || rec.LastSeq != 4 {
		t.Fatalf("Head after a 3-event append = %+v, want %+v", h, want)
	}
	// Neither a failed request nor a replay moves the head.
	if _, err := appendOne(context.Background(), l, eventlog.AppendRequest{Stream: "t", Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "a.b", Data: []byte(`{}`)}}}); !errors.Is(err, eventlog.ErrStaleRevision) {
		t.Fatalf("create of an existing stream = %v, want ErrStaleRevision", err)
	}
	if again := mustAppend(t, l, r); !again.Replayed {
		t.Fatalf("resend = %+v, want a replay", again)
	}
	if h := mustHead(t, l); h != want {
		t.Fatalf("Head after a failed request and a replay = %+v, want %+v", h, want)
	}
	evs := readAll(t, l)
	if last := evs[len(evs)-1]; last.Seq != want.Seq || last.Hash != want.Hash {
		t.Fatalf("last event read = seq %d hash %s, Head %+v", last.Seq, last.Hash, want)
	}
}

func testVerifyChain(t *testing.T, open Opener) {
	l := open(t, "log")
	ctx := context.Background()
	if n, err := l.Verify(ctx); err != nil || n != 0 {
		t.Fatalf("Verify of an empty log = %d, %v; want 0, nil", n, err)
	}
	for i := 0; i < 5; i++ {
		mustAppend(t, l, req("s", "a.b", `{"marker":"MARK`+string(rune('A'+i))+`"}`))
	}
	if n, err := l.Verify(ctx); err != nil || n != 5 {
		t.Fatalf("Verify = %d, %v; want 5, nil", n, err)
	}
}
