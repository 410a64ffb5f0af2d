package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// openInternal starts an in-process JetStream server and opens a log on
// it, both stopped at cleanup.
func openInternal(t *testing.T) *Log {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	l, err := Open(context.Background(), srv.ClientURL(), Options{Stream: "INTERNAL", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// draftOf decides reqs against l's model, as a round of the committer
// would, without publishing.
func draftOf(t *testing.T, l *Log, reqs ...eventlog.AppendRequest) *draft {
	t.Helper()
	l.smu.Lock()
	defer l.smu.Unlock()
	d := &draft{m: l.m, head: l.m.head, streams: map[string]streamState{}, counters: map[string]uint64{}, receipts: map[string]*receiptEntry{}}
	for _, r := range reqs {
		p, err := eventlog.Prepare(r, eventlog.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if o := l.decide(d, p, time.Now().UTC()); o.err != nil {
			t.Fatal(o.err)
		}
	}
	return d
}

func req(stream string, n int) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: "test.appended", Data: json.RawMessage(`{"n":` + strconv.Itoa(n) + `}`)}}}
}

func headSeq(t *testing.T, l *Log) uint64 {
	t.Helper()
	h, err := l.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h.Seq
}

// The server's wrong-last-sequence answers — 10071 (with the current
// sequence) for a global or per-subject sequence that moved, 10164 (no
// sequence) for a per-subject check on a subject the batch already wrote —
// are both errStale, and nothing of the batch is stored.
func TestPublish_WrongLastSequenceIsStale(t *testing.T) {
	l := openInternal(t)
	if _, err := l.Append(context.Background(), req("a", 1), req("a", 2)); err != nil {
		t.Fatal(err)
	}

	// 10071: the global expected last sequence is behind.
	wantStale := func(err error, code int) {
		t.Helper()
		var se *staleError
		if !errors.Is(err, errStale) || !errors.As(err, &se) || se.code != code {
			t.Fatalf("publish = %v, want errStale from JetStream error %d", err, code)
		}
	}
	d := draftOf(t, l, req("a", 3))
	wantStale(l.publish(d.msgs, 1), jsWrongLastSeq)
	// 10071: the per-subject sequence is behind.
	d = draftOf(t, l, req("a", 3))
	d.msgs[0].Header.Set(hdrExpLastSubj, "1")
	wantStale(l.publish(d.msgs, 2), jsWrongLastSeq)
	// 10164: a per-subject check on the second message of one subject.
	d = draftOf(t, l, req("a", 3), req("a", 4))
	d.msgs[1].Header.Set(hdrExpLastSubj, "3")
	wantStale(l.publish(d.msgs, 2), jsWrongLastSeqConst)
	if got := headSeq(t, l); got != 2 {
		t.Fatalf("head seq %d after refused publishes, want 2", got)
	}
	// The same draft, unmodified, commits.
	d = draftOf(t, l, req("a", 3), req("a", 4))
	if err := l.publish(d.msgs, 2); err != nil {
		t.Fatal(err)
	}
	if got := headSeq(t, l); got != 4 {
		t.Fatalf("head seq %d, want 4", got)
	}
}

// A batch of N events commits whole or not at all: a batch whose last
// message the server refuses leaves none of the N visible, to Head, Read
// and a fresh handle alike; the same batch without the fault commits all
// N at the seqs expected.
func TestPublish_AtomicBatchWholeOrNothing(t *testing.T) {
	l := openInternal(t)
	const n = 50
	var reqs []eventlog.AppendRequest
	for i := range n {
		reqs = append(reqs, req("s"+strconv.Itoa(i%5), i))
	}
	d := draftOf(t, l, reqs...)
	last := d.msgs[n-1]
	last.Header.Set(hdrExpLastSubj, "999") // refused at the commit
	if err := l.publish(d.msgs, 0); !errors.Is(err, errStale) {
		t.Fatalf("publish = %v, want errStale", err)
	}
	if got := headSeq(t, l); got != 0 {
		t.Fatalf("head seq %d after a refused batch, want 0", got)
	}
	var seen int
	if err := l.Read(context.Background(), 0, func(eventlog.Event) error { seen++; return nil }); err != nil || seen != 0 {
		t.Fatalf("Read after a refused batch: %d events, %v", seen, err)
	}

	d = draftOf(t, l, reqs...)
	if err := l.publish(d.msgs, 0); err != nil {
		t.Fatal(err)
	}
	if got := headSeq(t, l); got != n {
		t.Fatalf("head seq %d, want %d", got, n)
	}
	// The model of this handle did not see the publish (it went around
	// the committer): catching up reads and verifies it.
	l.smu.Lock()
	err := l.catchUp()
	l.smu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.Verify(context.Background()); err != nil || got != n {
		t.Fatalf("Verify = %d, %v", got, err)
	}
}

// The pipeline's last-message-id condition is what keeps the chain whole
// when another writer's message takes the place of a refused one: here
// another handle commits at the seq of this handle's first message, and
// this handle's second message — whose sequence condition that message
// now satisfies — is refused (JetStream error 10070, stale) instead of
// chaining onto an event that never committed.
func TestPipeline_LastMsgIDGuardsTheChain(t *testing.T) {
	a := openInternal(t)
	if _, err := a.Append(context.Background(), req("s", 0)); err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), a.nc.ConnectedUrl(), Options{Stream: "INTERNAL", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	d := draftOf(t, a, req("s", 1), req("s", 2)) // seqs 2 and 3 in a's view
	if res, err := b.Append(context.Background(), req("other", 9)); err != nil || res[0].Err != nil || res[0].Receipt.FirstSeq != 2 {
		t.Fatalf("b's append = %+v, %v; want seq 2", res, err)
	}
	// a's first message was refused (b took seq 2); its second is sent
	// as the pipeline would send it.
	second := d.msgs[1]
	second.Header.Set(hdrExpLastSeq, "2")
	second.Header.Set(hdrExpLastMsgID, d.msgs[0].Header.Get(hdrMsgID))
	second.Header.Del(hdrExpLastSubj)
	_, err = a.js.PublishMsg(context.Background(), second)
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode != jsWrongLastMsgID {
		t.Fatalf("second message = %v, want JetStream error %d", err, jsWrongLastMsgID)
	}
	if se := a.classifyAsync(err); !errors.Is(se, errStale) {
		t.Fatalf("classifyAsync = %v, want errStale", se)
	}
	// Without the condition the same message commits on the sequence
	// check alone, and the chain is broken at its seq.
	second.Header.Del(hdrExpLastMsgID)
	if _, err := a.js.PublishMsg(context.Background(), second); err != nil {
		t.Fatalf("the message without its last-msg-id condition: %v", err)
	}
	n, err := a.Verify(context.Background())
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 3 || n != 2 {
		t.Fatalf("Verify = %d, %v; want the chain broken at seq 3", n, err)
	}
}
