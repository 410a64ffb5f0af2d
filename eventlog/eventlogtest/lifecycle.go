package eventlogtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func testConcurrentNoLossNoDup(t *testing.T, open Opener) {
	l := open(t, "log")
	const goroutines, appends = 32, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	seqs := map[uint64]bool{}
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < appends; i++ {
				rec, err := appendOne(context.Background(), l, req("s", "a.b", dataN(i)))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seqs[rec.FirstSeq] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seqs) != goroutines*appends {
		t.Fatalf("%d distinct seqs, want %d", len(seqs), goroutines*appends)
	}
	evs := readAll(t, l)
	if len(evs) != goroutines*appends {
		t.Fatalf("log holds %d events, want %d", len(evs), goroutines*appends)
	}
	for i, ev := range evs {
		if ev.Revision != uint64(i+1) || !seqs[ev.Seq] {
			t.Fatalf("event %d: rev %d, acknowledged %v", i, ev.Revision, seqs[ev.Seq])
		}
	}
}

// testConcurrentTwoHandlesCAS increments one stream from two handles on the
// same log, each increment a compare-and-swap on the revision it last saw,
// retried on a stale revision: every event lands right after the revision
// its writer expected (no lost update), and every revision is acknowledged
// exactly once.
func testConcurrentTwoHandlesCAS(t *testing.T, open Opener) {
	a, b := open(t, "log"), open(t, "log")
	const goroutines, increments = 4, 10
	ctx := context.Background()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		revs = map[uint64]string{}
	)
	for h, l := range []eventlog.Log{a, b} {
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var rev uint64
				for i := 0; i < increments; i++ {
					key := fmt.Sprintf("h%d-g%d-i%d", h, g, i)
					for {
						res, err := l.Append(ctx, eventlog.AppendRequest{Stream: "counter", Expect: eventlog.AtRevision(rev),
							Events: []eventlog.Payload{{Type: "test.incremented", Data: json.RawMessage(fmt.Sprintf(`{"key":%q,"after":%d}`, key, rev))}}})
						if err == nil {
							err = res[0].Err
						}
						var se *eventlog.StaleRevisionError
						if errors.As(err, &se) {
							rev = se.Current
							continue
						}
						if err != nil {
							t.Error(err)
							return
						}
						rec := res[0].Receipt
						mu.Lock()
						if other, dup := revs[rec.Revision]; dup {
							t.Errorf("revision %d acknowledged to %s and %s", rec.Revision, other, key)
						}
						revs[rec.Revision] = key
						mu.Unlock()
						rev = rec.Revision
						break
					}
				}
			}()
		}
	}
	wg.Wait()
	const total = 2 * goroutines * increments
	if len(revs) != total {
		t.Fatalf("%d revisions acknowledged, want %d", len(revs), total)
	}
	evs := readAll(t, a)
	if len(evs) != total {
		t.Fatalf("log holds %d events, want %d", len(evs), total)
	}
	for i, ev := range evs {
		var d struct {
			Key   string
			After uint64
		}
		_ = json.Unmarshal(ev.Data, &d)
		if ev.Stream != "counter" || ev.Revision != uint64(i+1) || revs[ev.Revision] != d.Key {
			t.Fatalf("event %d: %s rev %d key %q, acknowledged %q", i, ev.Stream, ev.Revision, d.Key, revs[ev.Revision])
		}
		if ev.Revision != d.After+1 {
			t.Fatalf("event %d (%s) is revision %d but was written expecting revision %d: a lost update", i, d.Key, ev.Revision, d.After)
		}
	}
	ha, hb := mustHead(t, a), mustHead(t, b)
	if ha != hb || ha.Seq != total || ha.Hash != evs[total-1].Hash {
		t.Fatalf("Heads of the two handles = %+v and %+v, want seq %d hash %s", ha, hb, total, evs[total-1].Hash)
	}
	if n, err := b.Verify(ctx); err != nil || n != total {
		t.Fatalf("Verify = %d, %v; want %d", n, err, total)
	}
}

func testReopenDurable(t *testing.T, open Opener) {
	ctx := context.Background()
	l := open(t, "log")
	mustAppend(t, l, req("s", "a.b", `{"n":1}`))
	created := eventlog.AppendRequest{StreamPrefix: "task:TASK-", Expect: eventlog.NoStream(), RequestID: "create-1",
		Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{"title":"é"}`)}}}
	first := mustAppend(t, l, created)
	mustAppend(t, l, req("s", "a.b", `{"n":2}`))
	before, head := readAll(t, l), mustHead(t, l)
	if err := l.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}

	l = open(t, "log")
	if h := mustHead(t, l); h != head {
		t.Fatalf("Head after reopening = %+v, want %+v", h, head)
	}
	if after := readAll(t, l); !reflect.DeepEqual(after, before) {
		t.Fatalf("events after reopening differ:\n got %+v\nwant %+v", after, before)
	}
	if got, found, err := l.LookupReceipt(ctx, "create-1"); err != nil || !found || got.FirstSeq != first.FirstSeq {
		t.Fatalf("LookupReceipt after reopening = %+v %v %v, want first seq %d", got, found, err, first.FirstSeq)
	}
	if again := mustAppend(t, l, created); !again.Replayed || again.Stream != first.Stream || again.FirstSeq != first.FirstSeq {
		t.Fatalf("resend after reopening = %+v, want the replayed %+v", again, first)
	}
	next := mustAppend(t, l, eventlog.AppendRequest{StreamPrefix: "task:TASK-", Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
	if next.Stream != "task:TASK-002" || next.FirstSeq != head.Seq+1 {
		t.Fatalf("append after reopening = %+v, want task:TASK-002 at seq %d", next, head.Seq+1)
	}
	if evs := readAll(t, l); evs[len(evs)-1].PrevHash != head.Hash {
		t.Fatalf("the first event after reopening does not chain to the head %s", head.Hash)
	}
	if n, err := l.Verify(ctx); err != nil || n != head.Seq+1 {
		t.Fatalf("Verify = %d, %v; want %d", n, err, head.Seq+1)
	}
}

func testCloseIdempotentAndRefuses(t *testing.T, open Opener) {
	l := open(t, "log")
	ctx := context.Background()
	mustAppend(t, l, req("s", "a.b", `{}`))
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, req("s", "a.b", `{}`)); !errors.Is(err, eventlog.ErrClosed) {
		t.Fatalf("append after close: %v, want ErrClosed", err)
	}
}

// testCloseCommitsAcceptedAppends closes a log while appends are under way:
// each append either fails with ErrClosed or is acknowledged, and what the
// log holds the moment Close returns is exactly the acknowledged events —
// Close waited for every append it had accepted.
func testCloseCommitsAcceptedAppends(t *testing.T, open Opener) {
	ctx := context.Background()
	l, watcher := open(t, "log"), open(t, "log")
	const goroutines = 8
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		acked  = map[uint64]string{} // seq → hash
		count  atomic.Int64
		enough = make(chan struct{})
	)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				rec, err := appendOne(ctx, l, req(fmt.Sprintf("s%d", g), "a.b", dataN(i)))
				if errors.Is(err, eventlog.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("append during Close: %v, want a receipt or ErrClosed", err)
					return
				}
				mu.Lock()
				acked[rec.FirstSeq] = rec.Hashes[0]
				mu.Unlock()
				if count.Add(1) == 3*goroutines {
					close(enough)
				}
			}
		}()
	}
	<-enough
	if err := l.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	atClose := mustHead(t, watcher)
	wg.Wait()
	if h := mustHead(t, watcher); h != atClose {
		t.Fatalf("the log moved from %+v to %+v after Close returned", atClose, h)
	}
	evs := readAll(t, watcher)
	if len(evs) != len(acked) {
		t.Fatalf("log holds %d events, %d acknowledged", len(evs), len(acked))
	}
	for _, ev := range evs {
		if acked[ev.Seq] != ev.Hash {
			t.Fatalf("event %d (%s) was not acknowledged as such", ev.Seq, ev.Hash)
		}
	}
}

func testContextEndedBeforeCall(t *testing.T, open Opener) {
	l := open(t, "log")
	r := req("s", "a.b", `{}`)
	r.RequestID = "r-1"
	mustAppend(t, l, r)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Append(ctx, req("s", "a.b", `{"n":2}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Append: err = %v, want context.Canceled", err)
	}
	calls := 0
	if err := l.Read(ctx, 0, func(eventlog.Event) error { calls++; return nil }); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("Read: %d calls, err = %v; want none and context.Canceled", calls, err)
	}
	if _, err := l.Head(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Head: err = %v, want context.Canceled", err)
	}
	if _, _, err := l.LookupReceipt(ctx, "r-1"); !errors.Is(err, context.Canceled) {
		t.Errorf("LookupReceipt: err = %v, want context.Canceled", err)
	}
	if _, err := l.Verify(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify: err = %v, want context.Canceled", err)
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}
