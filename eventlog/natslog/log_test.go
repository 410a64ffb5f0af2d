package natslog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

func one(stream string, data string) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: "test.appended", Data: json.RawMessage(data)}}}
}

func appendOne(tb testing.TB, l *natslog.Log, r eventlog.AppendRequest) (eventlog.Receipt, error) {
	tb.Helper()
	res, err := l.Append(context.Background(), r)
	if err != nil {
		return eventlog.Receipt{}, err
	}
	return res[0].Receipt, res[0].Err
}

func mustAppend(tb testing.TB, l *natslog.Log, r eventlog.AppendRequest) eventlog.Receipt {
	tb.Helper()
	rec, err := appendOne(tb, l, r)
	if err != nil {
		tb.Fatalf("append: %v", err)
	}
	return rec
}

func readLog(tb testing.TB, l *natslog.Log) []eventlog.Event {
	tb.Helper()
	var evs []eventlog.Event
	if err := l.Read(context.Background(), 0, func(ev eventlog.Event) error { evs = append(evs, ev); return nil }); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return evs
}

// Two handles (two connections, as two machines) race to create the same
// cos stream, round after round: exactly one create wins each round, and
// the loser gets a *StaleRevisionError carrying the winner's revision and
// hash.
func TestLog_TwoHandlesRaceOneWins(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	a, b := openLog(t, url, name, natslog.Options{}), openLog(t, url, name, natslog.Options{})
	for round := range 20 {
		stream := fmt.Sprintf("task:R%d", round)
		var wg sync.WaitGroup
		recs := make([]eventlog.Receipt, 2)
		errs := make([]error, 2)
		for i, l := range []*natslog.Log{a, b} {
			wg.Go(func() {
				r := one(stream, fmt.Sprintf(`{"by":%d}`, i))
				r.Expect = eventlog.NoStream()
				recs[i], errs[i] = appendOne(t, l, r)
			})
		}
		wg.Wait()
		winner := 0
		if errs[0] != nil {
			winner = 1
		}
		loser := 1 - winner
		var se *eventlog.StaleRevisionError
		if errs[winner] != nil || !errors.As(errs[loser], &se) {
			t.Fatalf("round %d: errors %v and %v, want one success and one *StaleRevisionError", round, errs[0], errs[1])
		}
		if se.Current != 1 || se.CurrentHash != recs[winner].Hashes[0] {
			t.Fatalf("round %d: stale error says revision %d hash %s, the winner wrote revision 1 hash %s", round, se.Current, se.CurrentHash, recs[winner].Hashes[0])
		}
	}
	if n, err := a.Verify(context.Background()); err != nil || n != 20 {
		t.Fatalf("Verify = %d, %v; want 20", n, err)
	}
}

// A handle whose picture of the log is behind (another handle wrote)
// publishes under the old expected last sequence, the server refuses it
// (wrong last sequence), and the handle catches up and decides again: the
// request commits after the other handle's event, the chain intact.
func TestLog_StaleHandleCatchesUpAndRetries(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	a, b := openLog(t, url, name, natslog.Options{}), openLog(t, url, name, natslog.Options{})
	mustAppend(t, a, one("s", `{"n":1}`))
	mustAppend(t, b, one("s", `{"n":2}`)) // b was behind: one retry
	rec := mustAppend(t, a, one("s", `{"n":3}`))
	if rec.FirstSeq != 3 || rec.Revision != 3 {
		t.Fatalf("receipt %+v, want seq 3 revision 3", rec)
	}
	if got := a.Stats().Retries + b.Stats().Retries; got != 2 {
		t.Fatalf("%d retries, want 2 (each handle once behind)", got)
	}
	if n, err := a.Verify(context.Background()); err != nil || n != 3 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
}

// A request id's receipt outlives the server's Nats-Msg-Id window: with a
// one-second Duplicates window, a retry three seconds later — on the same
// handle, and on a new handle that built its index from the log — replays
// the original receipt and writes nothing.
func TestLog_ReceiptOutlivesDuplicateWindow(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	_, js := connect(t, url)
	cfg := natslog.StreamConfig(name, 1)
	cfg.Duplicates = time.Second
	if _, err := js.CreateStream(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	a := openLog(t, url, name, natslog.Options{})
	r := eventlog.AppendRequest{Stream: "task:TASK-001", RequestID: "req-1", Events: []eventlog.Payload{
		{Type: "task.created", Data: json.RawMessage(`{"t":1}`)}, {Type: "task.claimed", Data: json.RawMessage(`{"t":2}`)}}}
	first := mustAppend(t, a, r)
	time.Sleep(3 * time.Second)
	for _, l := range []*natslog.Log{a, openLog(t, url, name, natslog.Options{})} {
		again := mustAppend(t, l, r)
		if !again.Replayed || again.FirstSeq != first.FirstSeq || again.LastSeq != first.LastSeq || strings.Join(again.Hashes, ",") != strings.Join(first.Hashes, ",") {
			t.Fatalf("retry after the window = %+v, want the replay of %+v", again, first)
		}
		got, ok, err := l.LookupReceipt(context.Background(), "req-1")
		if err != nil || !ok || got.FirstSeq != first.FirstSeq {
			t.Fatalf("LookupReceipt = %+v, %t, %v", got, ok, err)
		}
	}
	if evs := readLog(t, a); len(evs) != 2 {
		t.Fatalf("log holds %d events, want 2", len(evs))
	}
}

// An append whose acknowledgement does not arrive (the server is down) is
// ErrCommitUnknown; after the server comes back and the client reconnects,
// the retry with the same request id either replays the original (when the
// buffered publish reached the server) or writes once: the log holds the
// request exactly once either way, and the receipt names it.
func TestLog_CommitUnknownThenReplayAfterReconnect(t *testing.T) {
	dir := t.TempDir()
	start := func(port int) *server.Server {
		srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoSigs: true, NoLog: true, JetStream: true, StoreDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatal("nats-server did not start")
		}
		return srv
	}
	srv := start(server.RANDOM_PORT)
	url := srv.ClientURL()
	port := srv.Addr().(interface{ String() string })
	_ = port
	l := openLog(t, url, newStreamName(), natslog.Options{PublishTimeout: 500 * time.Millisecond})
	mustAppend(t, l, one("s", `{"n":0}`))
	r := one("s", `{"n":1}`)
	r.RequestID = "retry-me"

	srv.Shutdown()
	srv.WaitForShutdown()
	_, err := appendOne(t, l, r)
	if !errors.Is(err, eventlog.ErrCommitUnknown) {
		t.Fatalf("append while the server is down = %v, want ErrCommitUnknown", err)
	}
	srv = start(srvPort(t, url))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })

	var rec eventlog.Receipt
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec, err = appendOne(t, l, r)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("retry after reconnect: %v", err)
	}
	evs := readLog(t, l)
	n := 0
	for _, ev := range evs {
		if ev.RequestID == "retry-me" {
			n++
			if ev.Seq != rec.FirstSeq {
				t.Fatalf("the receipt names seq %d, the event is at %d", rec.FirstSeq, ev.Seq)
			}
		}
	}
	if n != 1 {
		t.Fatalf("the request is in the log %d times, want once (receipt %+v)", n, rec)
	}
	t.Logf("retry replayed: %t", rec.Replayed)
}

func srvPort(t *testing.T, url string) int {
	t.Helper()
	var port int
	if _, err := fmt.Sscanf(url[strings.LastIndex(url, ":")+1:], "%d", &port); err != nil {
		t.Fatal(err)
	}
	return port
}

// A message published on a cos subject by something other than cos — here
// a copy of event 2 with its data changed — is what Verify reports: an
// *IntegrityError at its seq with the events before it good. The stream
// refuses to delete it (DenyDelete), so the log stays broken and writes
// are refused, while Read still returns it.
func TestLog_VerifyDetectsForeignMessage(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	l := openLog(t, url, name, natslog.Options{})
	for i := range 3 {
		mustAppend(t, l, one("task:TASK-001", fmt.Sprintf(`{"n":%d}`, i)))
	}
	evs := readLog(t, l)
	forged := evs[1]
	forged.Seq, forged.PrevHash, forged.Data = 4, evs[2].Hash, json.RawMessage(`{"n":"forged"}`)
	body, _ := json.Marshal(forged)
	nc, js := connect(t, url)
	if _, err := js.Publish(context.Background(), "cos."+strings.ToLower(name)+".log.task:TASK-001", body); err != nil {
		t.Fatal(err)
	}
	n, err := l.Verify(context.Background())
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 4 || n != 3 {
		t.Fatalf("Verify = %d, %v; want 3 good events and an *IntegrityError at seq 4", n, err)
	}
	t.Logf("Verify reports: %v", err)
	if _, err := appendOne(t, l, one("s", `{}`)); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("append on a broken chain = %v, want ErrIntegrity", err)
	}
	if got := readLog(t, l); len(got) != 4 {
		t.Fatalf("Read returned %d events, want 4", len(got))
	}
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(context.Background(), 4); err == nil {
		t.Fatal("the stream deleted a message; DenyDelete should refuse")
	}
	_ = nc
}

// Open refuses a stream that is not a cos log: one cos did not create, one
// that could drop or delete events, one of a newer format.
func TestOpen_RefusesForeignStream(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	for _, c := range []struct {
		name string
		edit func(*jetstream.StreamConfig)
		want string
	}{
		{"not cos's", func(c *jetstream.StreamConfig) { c.Metadata = nil }, "lacks the cos_log_format metadata"},
		{"deletes allowed", func(c *jetstream.StreamConfig) { c.DenyDelete = false }, "allows deleting"},
		{"age limit", func(c *jetstream.StreamConfig) { c.MaxAge = time.Hour }, "limit"},
		{"memory", func(c *jetstream.StreamConfig) { c.Storage = jetstream.MemoryStorage }, "not stored in files"},
		{"newer format", func(c *jetstream.StreamConfig) { c.Metadata = map[string]string{natslog.MetadataFormat: "2"} }, "format \"2\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := newStreamName()
			cfg := natslog.StreamConfig(name, 1)
			c.edit(&cfg)
			if _, err := js.CreateStream(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			_, err := natslog.Open(context.Background(), url, natslog.Options{Stream: name})
			if !errors.Is(err, eventlog.ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open = %v, want ErrFormat saying %q", err, c.want)
			}
		})
	}
}

// Open creates the stream with cos's configuration; a read-only handle on
// a missing stream reads an empty log and creates nothing.
func TestOpen_CreatesStream(t *testing.T) {
	_, url := startJetStream(t)
	_, js := connect(t, url)
	name := newStreamName()
	ro := openLog(t, url, name, natslog.Options{ReadOnly: true})
	if h, err := ro.Head(context.Background()); err != nil || h.Seq != 0 || h.Hash != eventlog.ZeroHash {
		t.Fatalf("Head of a missing stream = %+v, %v", h, err)
	}
	if _, err := js.Stream(context.Background(), name); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a read-only open created the stream (%v)", err)
	}
	if _, err := ro.Append(context.Background(), one("s", `{}`)); !errors.Is(err, eventlog.ErrReadOnly) {
		t.Fatalf("read-only Append = %v", err)
	}
	l := openLog(t, url, name, natslog.Options{})
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	if !cfg.DenyDelete || !cfg.DenyPurge || !cfg.AllowAtomicPublish || cfg.Storage != jetstream.FileStorage || cfg.Subjects[0] != "cos."+strings.ToLower(name)+".log.>" {
		t.Fatalf("created stream config %+v", cfg)
	}
	rec := mustAppend(t, l, one("s", `{}`))
	if h, err := ro.Head(context.Background()); err != nil || h.Seq != 1 || h.Hash != rec.Hashes[0] {
		t.Fatalf("read-only Head after the stream appeared = %+v, %v", h, err)
	}
}

// Requests of concurrent callers go out together: 64 appenders on one
// handle commit in fewer batches than requests, every event once.
func TestLog_GroupCommit(t *testing.T) {
	_, url := startJetStream(t)
	l := openLog(t, url, newStreamName(), natslog.Options{})
	const appenders, each = 64, 20
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() {
			for i := range each {
				if _, err := appendOne(t, l, one(fmt.Sprintf("s%d", g%8), fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := l.Stats()
	if st.Requests != appenders*each || st.Batches >= st.Requests {
		t.Fatalf("stats %+v: want %d requests in fewer batches", st, appenders*each)
	}
	t.Logf("%d requests in %d batches (%.1f per batch)", st.Requests, st.Batches, float64(st.Requests)/float64(st.Batches))
	if n, err := l.Verify(context.Background()); err != nil || n != appenders*each {
		t.Fatalf("Verify = %d, %v", n, err)
	}
}

// One call of more requests than one atomic batch holds goes out as
// several batches, each request whole; a request larger than a batch is
// refused alone.
func TestLog_LargeCallSplitsAtRequests(t *testing.T) {
	_, url := startJetStream(t)
	l := openLog(t, url, newStreamName(), natslog.Options{MaxBatchEvents: 10})
	var reqs []eventlog.AppendRequest
	for i := range 25 {
		r := one("s", fmt.Sprintf(`{"i":%d}`, i))
		r.Events = append(r.Events, r.Events[0], r.Events[0])
		reqs = append(reqs, r)
	}
	big := one("big", `{}`)
	for range 10 {
		big.Events = append(big.Events, big.Events[0])
	}
	reqs = append(reqs, big)
	res, err := l.Append(context.Background(), reqs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res[:25] {
		if r.Err != nil || r.Receipt.LastSeq-r.Receipt.FirstSeq != 2 {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	if !errors.Is(res[25].Err, eventlog.ErrInvalidEvent) {
		t.Fatalf("an 11-event request with MaxBatchEvents 10 = %v, want ErrInvalidEvent", res[25].Err)
	}
	if st := l.Stats(); st.Batches != 9 {
		t.Fatalf("%d batches, want 9 (3 requests of 3 events each)", st.Batches)
	}
}

// Follow delivers every event from its start seq, in order, then the
// events other handles commit as they commit, and ends with ctx's error
// (or nil when fn returns eventlog.ErrStop).
func TestLog_Follow(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	writer := openLog(t, url, name, natslog.Options{})
	follower := openLog(t, url, name, natslog.Options{ReadOnly: true})
	for i := range 3 {
		mustAppend(t, writer, one("s", fmt.Sprintf(`{"i":%d}`, i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan eventlog.Event, 100)
	done := make(chan error, 1)
	go func() {
		done <- follower.Follow(ctx, 2, func(ev eventlog.Event) error { got <- ev; return nil })
	}()
	for i := range 5 {
		mustAppend(t, writer, one("t", fmt.Sprintf(`{"i":%d}`, i)))
	}
	for want := uint64(2); want <= 8; want++ {
		select {
		case ev := <-got:
			if ev.Seq != want {
				t.Fatalf("Follow delivered seq %d, want %d", ev.Seq, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Follow did not deliver seq %d", want)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow after cancel = %v, want context.Canceled", err)
	}
	n := 0
	err := follower.Follow(context.Background(), 0, func(eventlog.Event) error {
		if n++; n == 4 {
			return eventlog.ErrStop
		}
		return nil
	})
	if err != nil || n != 4 {
		t.Fatalf("Follow stopped by ErrStop = %v after %d events", err, n)
	}
}

// A handle that catches up on a long gap reads it through a consumer and
// deletes the consumer after: a busy log must not pile up consumers until
// the server refuses new ones.
func TestLog_CatchUpLeavesNoConsumer(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	a, b := openLog(t, url, name, natslog.Options{}), openLog(t, url, name, natslog.Options{})
	for round := range 5 {
		var reqs []eventlog.AppendRequest
		for i := range 40 {
			reqs = append(reqs, one("b", fmt.Sprintf(`{"r":%d,"i":%d}`, round, i)))
		}
		if _, err := b.Append(context.Background(), reqs...); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, a, one("a", fmt.Sprintf(`{"r":%d}`, round))) // catches up on 40 events
	}
	_, js := connect(t, url)
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Consumers != 0 || info.State.LastSeq != 205 {
		t.Fatalf("stream has %d consumers and last seq %d, want 0 and 205", info.State.Consumers, info.State.LastSeq)
	}
}
