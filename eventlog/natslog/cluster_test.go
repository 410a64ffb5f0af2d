package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/projections/tasks"
)

// These tests run the log on a real three-node JetStream cluster in this
// process (testutil.StartJetStream), with an R3 stream, several handles on
// different nodes standing for several machines, and nodes stopped and
// restarted under them.

// clusterStream is the JetStream stream of the cluster tests.
const clusterStream = "COS"

// clusterTimeout bounds one cluster test.
const clusterTimeout = 2 * time.Minute

// startCluster starts three nodes and creates the R3 stream by opening a
// first handle on node 0, which it returns.
func startCluster(t *testing.T) (*testutil.JetStreamCluster, *natslog.Log) {
	t.Helper()
	c := testutil.StartJetStream(t, testutil.JetStreamOptions{Nodes: 3})
	first := openHandle(t, c.ClientURL(0), natslog.Options{Replicas: 3})
	return c, first
}

// openHandle opens a handle on url and closes it at cleanup.
func openHandle(t testing.TB, url string, o natslog.Options) *natslog.Log {
	t.Helper()
	if o.Stream == "" {
		o.Stream = clusterStream
	}
	o.Create = !o.ReadOnly
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := natslog.Open(ctx, url, o)
	if err != nil {
		t.Fatalf("open natslog on %s: %v", url, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Errorf("close natslog on %s: %v", url, err)
		}
	})
	return l
}

// readAll returns every event of l, in seq order.
func readAll(ctx context.Context, t testing.TB, l *natslog.Log) []eventlog.Event {
	t.Helper()
	var evs []eventlog.Event
	if err := l.Read(ctx, 0, func(e eventlog.Event) error {
		evs = append(evs, e)
		return nil
	}); err != nil {
		t.Fatalf("read: %v", err)
	}
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: the log has a gap or a repeat", i+1, e.Seq)
		}
	}
	return evs
}

// mustVerify verifies l's whole hash chain and returns its length.
func mustVerify(ctx context.Context, t testing.TB, l *natslog.Log) uint64 {
	t.Helper()
	n, err := l.Verify(ctx)
	if err != nil {
		t.Fatalf("verify: %v after %d good events", err, n)
	}
	return n
}

// TestCluster_ClaimsOneWinnerPerRound: eight machines, each a handle on
// one of three nodes, claim the same task in 50 rounds, each at the task
// revision its own read of the log shows; every round has exactly one
// winner and seven stale losers, and every machine's next read sees the
// winner's event (read-after-write across nodes).
func TestCluster_ClaimsOneWinnerPerRound(t *testing.T) {
	const machines, rounds = 8, 50
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()

	taskStream := tasks.StreamOf("TASK-001")
	handles := make([]*natslog.Log, machines)
	for m := range handles {
		handles[m] = openHandle(t, c.ClientURL(m%c.Len()), natslog.Options{})
	}
	// Each machine's view: the seq it has read up to and the task's revision.
	type view struct {
		seq, rev uint64
	}
	views := make([]view, machines)
	catchUp := func(m int) error {
		return handles[m].Read(ctx, views[m].seq+1, func(e eventlog.Event) error {
			views[m].seq = e.Seq
			if e.Stream == taskStream {
				views[m].rev = e.Revision
			}
			return nil
		})
	}

	check := func(r int, errs []error) {
		t.Helper()
		for m, err := range errs {
			if err != nil {
				t.Fatalf("round %d, machine %d: %v", r, m, err)
			}
		}
	}
	for r := range rounds {
		var (
			wg      sync.WaitGroup
			winners atomic.Int32
			errs    = make([]error, machines)
		)
		// Every machine reads the log (concurrently), then every machine
		// claims at the revision it read.
		for m := range machines {
			wg.Go(func() {
				if err := catchUp(m); err != nil {
					errs[m] = fmt.Errorf("read: %w", err)
					return
				}
				if got, want := views[m].rev, uint64(r); got != want {
					errs[m] = fmt.Errorf("sees the task at revision %d before round %d, want %d", got, r, want)
				}
			})
		}
		wg.Wait()
		check(r, errs)
		for m := range machines {
			wg.Go(func() {
				p, err := tasks.ClaimedPayload(fmt.Sprintf("machine-%d", m))
				if err != nil {
					errs[m] = err
					return
				}
				res, err := handles[m].Append(ctx, eventlog.AppendRequest{
					Stream: taskStream, Events: []eventlog.Payload{p},
					Expect: eventlog.AtRevision(views[m].rev),
				})
				switch {
				case err != nil:
					errs[m] = err
				case res[0].Err == nil:
					winners.Add(1)
				case errors.Is(res[0].Err, eventlog.ErrStaleRevision):
				default:
					errs[m] = fmt.Errorf("claim: %w", res[0].Err)
				}
			})
		}
		wg.Wait()
		check(r, errs)
		if got := winners.Load(); got != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", r, got)
		}
	}
	for m := range machines {
		if err := catchUp(m); err != nil {
			t.Fatal(err)
		}
		if views[m].rev != rounds || views[m].seq != rounds {
			t.Errorf("machine %d ends at seq %d, task revision %d; want %d and %d", m, views[m].seq, views[m].rev, rounds, rounds)
		}
	}
	if n := mustVerify(ctx, t, handles[machines-1]); n != rounds {
		t.Errorf("verified %d events, want %d", n, rounds)
	}
}

// appendRetrying appends req, retrying with the same request id while the
// outcome is unknown or the cluster is between leaders, until ctx ends. It
// returns the receipt and how many attempts it took.
func appendRetrying(ctx context.Context, l *natslog.Log, req eventlog.AppendRequest) (eventlog.Receipt, int, error) {
	for attempt := 1; ; attempt++ {
		res, err := l.Append(ctx, req)
		if err == nil {
			err = res[0].Err
		}
		if err == nil {
			return res[0].Receipt, attempt, nil
		}
		var se *eventlog.StorageError
		if !errors.Is(err, eventlog.ErrCommitUnknown) && !errors.As(err, &se) {
			return eventlog.Receipt{}, attempt, err
		}
		select {
		case <-ctx.Done():
			return eventlog.Receipt{}, attempt, fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestCluster_LeaderKillLosesNothing runs 4 handles × 16 appenders, each
// appending its own stream at the revision it expects under request ids,
// and kills the stream leader in the middle. Appends whose outcome is
// unknown are retried with the same request id. At the end every receipt's
// seq holds its event, every request id is in the log exactly once, every
// stream's revisions run 1..n, and the chain verifies — on the restarted
// old leader too.
func TestCluster_LeaderKillLosesNothing(t *testing.T) {
	const handlesN, perHandle, perAppender = 4, 16, 24
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()

	handles := make([]*natslog.Log, handlesN)
	for h := range handles {
		// Every handle knows every node, so it fails over.
		handles[h] = openHandle(t, c.URL(), natslog.Options{PublishTimeout: 2 * time.Second})
	}
	type ack struct {
		rid string
		rec eventlog.Receipt
	}
	var (
		mu      sync.Mutex
		acks    []ack
		retried atomic.Int32
		wg      sync.WaitGroup
		acked   atomic.Int32
		killAt  = int32(handlesN * perHandle * perAppender / 3)
		killed  = make(chan int, 1)
		errs    = make(chan error, handlesN*perHandle)
	)
	began := time.Now()
	for h := range handlesN {
		for g := range perHandle {
			wg.Go(func() {
				stream := fmt.Sprintf("test:h%d-g%d", h, g)
				for i := range perAppender {
					rid := fmt.Sprintf("h%d-g%d-%d", h, g, i)
					req := eventlog.AppendRequest{
						Stream: stream, RequestID: rid, Expect: eventlog.AtRevision(uint64(i)),
						Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}},
					}
					rec, attempts, err := appendRetrying(ctx, handles[h], req)
					if err != nil {
						errs <- fmt.Errorf("%s: %w", rid, err)
						return
					}
					if attempts > 1 {
						retried.Add(1)
					}
					mu.Lock()
					acks = append(acks, ack{rid, rec})
					mu.Unlock()
					if acked.Add(1) == killAt {
						t0 := time.Now()
						killed <- c.KillLeader(clusterStream)
						t.Logf("KillLeader took %s", time.Since(t0).Round(time.Millisecond))
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	var old int
	select {
	case old = <-killed:
	default:
		t.Fatal("the leader was never killed")
	}
	t.Logf("killed leader %s; %d appends retried; appends took %s", c.Name(old), retried.Load(), time.Since(began).Round(time.Millisecond))
	c.RestartNode(old)
	t.Logf("restarted %s after %s", c.Name(old), time.Since(began).Round(time.Millisecond))

	total := uint64(handlesN * perHandle * perAppender)
	check := func(l *natslog.Log, where string) {
		t.Helper()
		evs := readAll(ctx, t, l)
		if uint64(len(evs)) != total {
			t.Fatalf("%s: %d events in the log, want %d (one per request)", where, len(evs), total)
		}
		byRID := make(map[string]int, len(evs))
		revs := make(map[string]uint64)
		for _, e := range evs {
			byRID[e.RequestID]++
			if revs[e.Stream]+1 != e.Revision {
				t.Fatalf("%s: seq %d is revision %d of %s after %d", where, e.Seq, e.Revision, e.Stream, revs[e.Stream])
			}
			revs[e.Stream] = e.Revision
		}
		for _, a := range acks {
			if n := byRID[a.rid]; n != 1 {
				t.Errorf("%s: request %s is in the log %d times, want once", where, a.rid, n)
			}
			e := evs[a.rec.FirstSeq-1]
			if e.RequestID != a.rid || e.ID != a.rec.IDs[0] || e.Hash != a.rec.Hashes[0] {
				t.Errorf("%s: receipt of %s names seq %d, which holds request %q id %s", where, a.rid, a.rec.FirstSeq, e.RequestID, e.ID)
			}
		}
		if n := mustVerify(ctx, t, l); n != total {
			t.Errorf("%s: verified %d events, want %d", where, n, total)
		}
	}
	check(handles[0], "a surviving handle")
	t.Logf("checked after %s", time.Since(began).Round(time.Millisecond))
	head, err := handles[0].Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.WaitStreamLastSeq(old, clusterStream, head.Seq)
	check(openHandle(t, c.ClientURL(old), natslog.Options{ReadOnly: true}), "a handle on the restarted old leader")
}

// TestCluster_StoppedNodeCatchesUp stops a node holding a replica, appends
// while it is down, restarts it: its replica reaches the head, and a
// handle on it alone reads every event and verifies the chain.
func TestCluster_StoppedNodeCatchesUp(t *testing.T) {
	c, first := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()

	appendN := func(l *natslog.Log, from, n int) {
		t.Helper()
		reqs := make([]eventlog.AppendRequest, n)
		for i := range reqs {
			reqs[i] = eventlog.AppendRequest{Stream: "test:catch-up",
				Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(fmt.Sprintf(`{"i":%d}`, from+i))}}}
		}
		res, err := l.Append(ctx, reqs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	appendN(first, 0, 50)

	// Stop a node that does not lead the stream: the two others keep a
	// quorum and the leader.
	down := (c.StreamLeader(clusterStream) + 1) % c.Len()
	c.StopNode(down)
	other := openHandle(t, c.ClientURL((down+1)%c.Len()), natslog.Options{})
	for i := range 4 {
		appendN(other, 50+i*100, 100)
	}
	head, err := other.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.Seq != 450 {
		t.Fatalf("head %d, want 450", head.Seq)
	}
	if got, _ := c.StreamLastSeq(down, clusterStream); got != 0 {
		t.Fatalf("stopped node reports seq %d", got)
	}

	c.RestartNode(down)
	c.WaitStreamLastSeq(down, clusterStream, head.Seq)
	back := openHandle(t, c.ClientURL(down), natslog.Options{ReadOnly: true})
	if got, err := back.Head(ctx); err != nil || got != head {
		t.Fatalf("restarted node's head %+v (%v), want %+v", got, err, head)
	}
	if n := len(readAll(ctx, t, back)); n != 450 {
		t.Fatalf("restarted node reads %d events, want 450", n)
	}
	mustVerify(ctx, t, back)

	// And it follows new events as they commit.
	appendN(other, 450, 1)
	// Generous: on a loaded machine a pull lost while the node rejoins is
	// noticed by missed heartbeats and the consumer recreated.
	fctx, fcancel := context.WithTimeout(ctx, 45*time.Second)
	defer fcancel()
	var last uint64
	err = back.Follow(fctx, 449, func(e eventlog.Event) error {
		last = e.Seq
		if e.Seq == 451 {
			return eventlog.ErrStop
		}
		return nil
	})
	if err != nil || last != 451 {
		t.Fatalf("follow on the restarted node ended at seq %d: %v", last, err)
	}
}

// TestCluster_RetryAfterLeaderChangeReplays appends under a request id,
// kills the stream leader, and retries the same request through the same
// handle and through a handle on another node: both replay the original
// receipt and the log holds the event once. The same id with another
// intent is refused.
func TestCluster_RetryAfterLeaderChangeReplays(t *testing.T) {
	c, first := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()

	req := eventlog.AppendRequest{Stream: tasks.StreamOf("TASK-001"), RequestID: "claim-once",
		Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(`{"x":1}`)}}}
	orig, _, err := appendRetrying(ctx, first, req)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Replayed {
		t.Fatal("first append reported as replayed")
	}

	old := c.KillLeader(clusterStream)
	other := openHandle(t, c.ClientURL((old+1)%c.Len()), natslog.Options{})
	// first may have been connected to the killed node: its retry goes
	// through a reconnect.
	for _, h := range []struct {
		name string
		l    *natslog.Log
	}{{"the same handle", first}, {"a handle on another node", other}} {
		rec, _, err := appendRetrying(ctx, h.l, req)
		if err != nil {
			t.Fatalf("retry through %s: %v", h.name, err)
		}
		if !rec.Replayed || rec.FirstSeq != orig.FirstSeq || rec.IDs[0] != orig.IDs[0] || rec.Hashes[0] != orig.Hashes[0] {
			t.Errorf("retry through %s: %+v, want a replay of %+v", h.name, rec, orig)
		}
	}
	reuse := req
	reuse.Events = []eventlog.Payload{{Type: "test.appended", Data: []byte(`{"x":2}`)}}
	res, err := other.Append(ctx, reuse)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, eventlog.ErrRequestReuse) {
		t.Errorf("same request id, other intent: %v, want ErrRequestReuse", res[0].Err)
	}
	if n := len(readAll(ctx, t, other)); n != 1 {
		t.Errorf("log holds %d events, want 1", n)
	}
	c.RestartNode(old)
}
