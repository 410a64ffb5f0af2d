package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLog_Append_AssignsGaplessSeqRevisionsAndChain(t *testing.T) {
	l, path := openTestLog(t, Options{})
	verifyAtCleanup(t, path)
	streams := []string{"a", "b", "a", "c", "a"}
	for i, s := range streams {
		mustAppend(t, l, req(s, "test.appended", dataN(i)))
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
		if ev.PrevHash != prev || ev.Hash != EventHash(&ev) {
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
	head, err := l.Head()
	if err != nil || head.Seq != 5 || head.Hash != prev {
		t.Fatalf("Head = %+v, %v; want seq 5 hash %s", head, err, prev)
	}
	if rev, hash, err := l.StreamRevision(context.Background(), "a"); err != nil || rev != 3 || hash != evs[4].Hash {
		t.Fatalf("StreamRevision(a) = %d %s %v", rev, hash, err)
	}
}

func TestLog_Append_MultiEventRequestIsOneReceipt(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	rec := mustAppend(t, l, AppendRequest{Stream: "s", Events: []Payload{
		{Type: "x.one", Data: json.RawMessage(`1`)}, {Type: "x.two", Data: json.RawMessage(`2`)},
	}})
	if rec.FirstSeq != 1 || rec.LastSeq != 2 || rec.Revision != 2 || len(rec.Hashes) != 2 || len(rec.IDs) != 2 {
		t.Fatalf("receipt = %+v", rec)
	}
}

func TestLog_Append_RequestIDReplaysReceipt(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	r := req("task:TASK-001", "task.updated", `{"status":"done","n":1.50}`)
	r.RequestID = "req-1"
	first := mustAppend(t, l, r)
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

func TestLog_Append_RequestReuse(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	r := req("s", "a.b", `{"v":1}`)
	r.RequestID = "req-1"
	mustAppend(t, l, r)
	for name, other := range map[string]AppendRequest{
		"other data":     {Stream: "s", RequestID: "req-1", Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{"v":2}`)}}},
		"other number":   {Stream: "s", RequestID: "req-1", Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1.0}`)}}},
		"other stream":   {Stream: "t", RequestID: "req-1", Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1}`)}}},
		"other type":     {Stream: "s", RequestID: "req-1", Events: []Payload{{Type: "a.c", Data: json.RawMessage(`{"v":1}`)}}},
		"other expected": {Stream: "s", RequestID: "req-1", Expect: AtRevision(1), Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{"v":1}`)}}},
	} {
		_, err := l.AppendOne(context.Background(), other)
		var re *RequestReuseError
		if !errors.Is(err, ErrRequestReuse) || !errors.As(err, &re) || re.Original.FirstSeq != 1 {
			t.Errorf("%s: err = %v, want ErrRequestReuse naming seq 1", name, err)
		}
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

func TestLog_Append_RequestIDLimits(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	for name, id := range map[string]string{
		"too long":   strings.Repeat("x", MaxRequestIDLen+1),
		"whitespace": "   ",
		"control":    "a\x00b",
		"bad utf8":   "a\xffb",
	} {
		r := req("s", "a.b", `{}`)
		r.RequestID = id
		if _, err := l.AppendOne(context.Background(), r); !errors.Is(err, ErrRequestID) {
			t.Errorf("%s: err = %v, want ErrRequestID", name, err)
		}
	}
	if err := ValidateRequestID(""); !errors.Is(err, ErrRequestID) {
		t.Errorf("ValidateRequestID(\"\") = %v, want ErrRequestID", err)
	}
	r := req("s", "a.b", `{}`)
	r.RequestID = strings.Repeat("é", MaxRequestIDLen) // 128 characters, 256 bytes
	mustAppend(t, l, r)
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

func TestLog_Append_StaleRevision(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	ctx := context.Background()
	created := mustAppend(t, l, AppendRequest{Stream: "task:TASK-001", Expect: NoStream(), Events: []Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})

	_, err := l.AppendOne(ctx, AppendRequest{Stream: "task:TASK-001", Expect: NoStream(), Events: []Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
	var se *StaleRevisionError
	if !errors.As(err, &se) || se.Current != 1 || se.CurrentHash != created.Hashes[0] || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create twice: err = %v", err)
	}
	_, err = l.AppendOne(ctx, AppendRequest{Stream: "task:TASK-001", Expect: AtRevision(5), Events: []Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if !errors.As(err, &se) || se.Current != 1 || !errors.Is(err, ErrStaleRevision) {
		t.Fatalf("wrong revision: err = %v", err)
	}
	_, err = l.AppendOne(ctx, AppendRequest{Stream: "task:TASK-001", ExpectedHash: strings.Repeat("ab", 32), Events: []Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if !errors.As(err, &se) || se.CurrentHash != created.Hashes[0] {
		t.Fatalf("wrong hash: err = %v", err)
	}
	ok := mustAppend(t, l, AppendRequest{Stream: "task:TASK-001", Expect: AtRevision(1), ExpectedHash: created.Hashes[0], Events: []Payload{{Type: "task.updated", Data: json.RawMessage(`{}`)}}})
	if ok.Revision != 2 {
		t.Fatalf("revision after update = %d, want 2", ok.Revision)
	}
	if n := len(readAll(t, l)); n != 2 {
		t.Fatalf("log holds %d events, want 2", n)
	}
}

func TestLog_Append_OneFailedCASDoesNotFailNeighbours(t *testing.T) {
	l, path := openTestLog(t, Options{})
	verifyAtCleanup(t, path)
	mustAppend(t, l, req("shared", "a.b", `{}`))
	res, err := l.Append(context.Background(),
		req("x", "a.b", `{}`),
		AppendRequest{Stream: "shared", Expect: AtRevision(7), Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		AppendRequest{Stream: "shared", Expect: AtRevision(1), Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		AppendRequest{Stream: "shared", Expect: AtRevision(1), Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}},
		req("", "a.b", `{}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []error{nil, ErrStaleRevision, nil, ErrStaleRevision, ErrInvalidEvent}
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

func TestLog_Append_ConcurrentGroupCommit(t *testing.T) {
	l, path := openTestLog(t, Options{})
	verifyAtCleanup(t, path)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seqs := map[uint64]bool{}
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				rec, err := l.AppendOne(context.Background(), req("s", "a.b", dataN(i)))
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
	if len(seqs) != 640 {
		t.Fatalf("%d distinct seqs, want 640", len(seqs))
	}
	evs := readAll(t, l)
	for i, ev := range evs {
		if ev.Revision != uint64(i+1) || !seqs[ev.Seq] {
			t.Fatalf("event %d: rev %d, acknowledged %v", i, ev.Revision, seqs[ev.Seq])
		}
	}
}

func TestLog_Append_StreamPrefixAllocates(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	mustAppend(t, l, req("task:TASK-002", "task.created", `{}`)) // taken by hand
	var got []string
	for i := 0; i < 3; i++ {
		rec := mustAppend(t, l, AppendRequest{StreamPrefix: "task:TASK-", Expect: NoStream(), Events: []Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}})
		got = append(got, rec.Stream)
	}
	if strings.Join(got, ",") != "task:TASK-001,task:TASK-003,task:TASK-004" {
		t.Fatalf("allocated %v", got)
	}
	// A replayed allocation returns the same stream.
	r := AppendRequest{StreamPrefix: "task:TASK-", RequestID: "create-1", Events: []Payload{{Type: "task.created", Data: json.RawMessage(`{}`)}}}
	a, b := mustAppend(t, l, r), mustAppend(t, l, r)
	if a.Stream != "task:TASK-005" || b.Stream != a.Stream || !b.Replayed {
		t.Fatalf("replayed allocation: %+v then %+v", a, b)
	}
}

func TestLog_Append_InvalidEvent(t *testing.T) {
	l, _ := openTestLog(t, Options{MaxEventBytes: 64})
	big := `{"s":"` + strings.Repeat("x", 100) + `"}`
	cases := map[string]struct {
		r     AppendRequest
		field string
	}{
		"empty stream":    {req("", "a.b", `{}`), "stream"},
		"space in stream": {req("a b", "a.b", `{}`), "stream"},
		"both":            {AppendRequest{Stream: "s", StreamPrefix: "p", Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "stream"},
		"no events":       {AppendRequest{Stream: "s"}, "events"},
		"type no dot":     {req("s", "created", `{}`), "type"},
		"type upper":      {req("s", "Task.Created", `{}`), "type"},
		"type dash":       {req("s", "task.was-created", `{}`), "type"},
		"not json":        {req("s", "a.b", `{nope`), "data"},
		"empty data":      {req("s", "a.b", ``), "data"},
		"two values":      {req("s", "a.b", `{} {}`), "data"},
		"too big":         {req("s", "a.b", big), "data"},
		"bad hash":        {AppendRequest{Stream: "s", ExpectedHash: "xyz", Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "expected_hash"},
		"prefix at rev":   {AppendRequest{StreamPrefix: "p-", Expect: AtRevision(2), Events: []Payload{{Type: "a.b", Data: json.RawMessage(`{}`)}}}, "expect"},
	}
	for name, c := range cases {
		_, err := l.AppendOne(context.Background(), c.r)
		var ie *InvalidEventError
		if !errors.Is(err, ErrInvalidEvent) || !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%s: err = %v, want ErrInvalidEvent on %s", name, err, c.field)
		}
	}
	if n := len(readAll(t, l)); n != 0 {
		t.Fatalf("log holds %d events after rejected requests, want 0", n)
	}
}

func TestLog_Append_ReceiptWindowPrunes(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l, _ := openTestLog(t, Options{ReceiptMaxCount: 3, ReceiptMaxAge: time.Hour, Now: clock})
	send := func(id string) Receipt {
		r := req("s", "a.b", `{"id":"`+id+`"}`)
		r.RequestID = id
		return mustAppend(t, l, r)
	}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		send(id)
	}
	// r1 fell out of the count window: resending it writes again.
	if rec := send("r1"); rec.Replayed {
		t.Fatalf("r1 replayed after leaving the count window")
	}
	if rec := send("r4"); !rec.Replayed {
		t.Fatalf("r4 not replayed inside the window")
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	send("r5") // prunes the expired ones
	if rec := send("r4"); rec.Replayed {
		t.Fatalf("r4 replayed after its age window")
	}
}

func TestLog_Append_ContextEndedAfterHandOffIsCommitUnknown(t *testing.T) {
	gate := make(chan struct{})
	entered := make(chan struct{}, 1)
	var blocking sync.Mutex
	block := false
	now := func() time.Time {
		blocking.Lock()
		b := block
		blocking.Unlock()
		if b {
			entered <- struct{}{}
			<-gate
		}
		return time.Now()
	}
	l, _ := openTestLog(t, Options{Now: now})
	blocking.Lock()
	block = true
	blocking.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	r := req("s", "a.b", `{"v":1}`)
	r.RequestID = "retry-me"
	type answer struct {
		res []Result
		err error
	}
	ansc := make(chan answer, 1)
	// A bad neighbour in the same call keeps its own validation error.
	go func() { res, err := l.Append(ctx, r, req("", "a.b", `{}`)); ansc <- answer{res, err} }()
	<-entered // the committer holds the request inside its transaction
	cancel()
	ans := <-ansc
	if ans.err != nil || !errors.Is(ans.res[0].Err, ErrCommitUnknown) || !errors.Is(ans.res[1].Err, ErrInvalidEvent) {
		t.Fatalf("answer = %+v, %v; want ErrCommitUnknown and ErrInvalidEvent", ans.res, ans.err)
	}
	blocking.Lock()
	block = false
	blocking.Unlock()
	close(gate)
	rec := mustAppend(t, l, r) // the retry the seed prescribes
	if !rec.Replayed || rec.FirstSeq != 1 {
		t.Fatalf("retry = %+v, want the replayed original", rec)
	}
	if n := len(readAll(t, l)); n != 1 {
		t.Fatalf("log holds %d events, want 1", n)
	}
}

func TestLog_Append_ContextEndedWhileQueuedWritesNothing(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Append(ctx, req("s", "a.b", `{}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(readAll(t, l)); n != 0 {
		t.Fatalf("log holds %d events, want 0", n)
	}
}

func TestLog_Close_IdempotentAndRefuses(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	mustAppend(t, l, req("s", "a.b", `{}`))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), req("s", "a.b", `{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v, want ErrClosed", err)
	}
}

func TestLog_ReadOnly(t *testing.T) {
	l, path := openTestLog(t, Options{})
	mustAppend(t, l, req("s", "a.b", `{}`))
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Append(context.Background(), req("s", "a.b", `{}`)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("append read-only: %v, want ErrReadOnly", err)
	}
	mustAppend(t, l, req("s", "a.b", `{}`))
	if h, err := ro.Head(); err != nil || h.Seq != 2 {
		t.Fatalf("read-only Head = %+v %v, want seq 2", h, err)
	}
	if n := len(readAll(t, ro)); n != 2 {
		t.Fatalf("read-only read %d events, want 2", n)
	}
	missing, err := Open(path+".missing", Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer missing.Close()
	if h, err := missing.Head(); err != nil || h.Seq != 0 {
		t.Fatalf("Head of a missing log = %+v %v", h, err)
	}
}

func TestLog_Read_StopAndFrom(t *testing.T) {
	l, _ := openTestLog(t, Options{ReadChunk: 3})
	for i := 0; i < 10; i++ {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
	}
	var got []uint64
	err := l.Read(context.Background(), 4, func(ev Event) error {
		got = append(got, ev.Seq)
		if ev.Seq == 8 {
			return ErrStop
		}
		return nil
	})
	if err != nil || len(got) != 5 || got[0] != 4 || got[4] != 8 {
		t.Fatalf("Read from 4 stopping at 8 = %v, %v", got, err)
	}
	boom := errors.New("boom")
	if err := l.Read(context.Background(), 0, func(Event) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Read callback error = %v, want boom", err)
	}
}

func TestLog_SeqAt(t *testing.T) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := base
	l, _ := openTestLog(t, Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	for i := 0; i < 5; i++ {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
		mu.Lock()
		now = now.Add(time.Minute)
		mu.Unlock()
	}
	for _, c := range []struct {
		at   time.Time
		want uint64
	}{{base.Add(-time.Second), 0}, {base, 1}, {base.Add(150 * time.Second), 3}, {base.Add(time.Hour), 5}} {
		if got, err := l.SeqAt(context.Background(), c.at); err != nil || got != c.want {
			t.Errorf("SeqAt(%s) = %d %v, want %d", c.at, got, err, c.want)
		}
	}
}

func TestLog_LookupReceipt(t *testing.T) {
	l, _ := openTestLog(t, Options{})
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
}
