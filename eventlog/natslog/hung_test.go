package natslog_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/internal/testutil"
)

// hungResumeBound is how soon after its server hangs a handle must be
// writing again through another server of its URL list. With nats.go's
// defaults (a ping every two minutes, two missed allowed) it never did
// within the test: every publish waited out its timeout on the hung
// connection, for four to six minutes.
const hungResumeBound = 20 * time.Second

// TestCluster_HungNodeIsLeft: a handle whose URL lists three nodes — each
// behind a proxy, the nodes advertising no other address — writes under
// load from eight appenders; the proxy of the node it is connected to stops
// forwarding (the node hangs, its socket open). The handle leaves it, for
// want of pongs or for calls that find no answer, and writes resume through
// the other nodes within hungResumeBound; every acknowledged request is in
// the log exactly once, where its receipt says, and the chain verifies.
func TestCluster_HungNodeIsLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    natslog.Options
	}{
		// Pings (2 s, 2 missed allowed) detect the hang.
		{"pings", natslog.Options{}},
		// Pings too rare to matter: the calls that find no answer do.
		{"unanswered calls", natslog.Options{PingInterval: 10 * time.Minute, PublishTimeout: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) { testHungNodeIsLeft(t, tc.o) })
	}
}

func testHungNodeIsLeft(t *testing.T, o natslog.Options) {
	const appenders = 8
	c := testutil.StartJetStream(t, testutil.JetStreamOptions{Nodes: 3, NoAdvertise: true})
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	openHandle(t, c.ClientURL(0), natslog.Options{Replicas: 3}) // creates the R3 stream

	proxies := make([]*hangProxy, c.Len())
	urls := make([]string, c.Len())
	for i := range proxies {
		proxies[i] = startHangProxy(t, strings.TrimPrefix(c.ClientURL(i), "nats://"))
		urls[i] = proxies[i].URL()
	}
	h := openHandle(t, strings.Join(urls, ","), o)
	var hung *hangProxy
	for i, p := range proxies {
		if p.Forwarding() > 0 {
			hung = p
			t.Logf("the handle is connected to %s", c.Name(i))
		}
	}
	if hung == nil {
		t.Fatal("the handle's connection goes through no proxy")
	}

	type ack struct {
		rid string
		rec eventlog.Receipt
	}
	var (
		mu    sync.Mutex
		acks  []ack
		acked atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		errs  = make(chan error, appenders)
	)
	for g := range appenders {
		wg.Go(func() {
			stream := fmt.Sprintf("test:hung-%d", g)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				rid := fmt.Sprintf("g%d-%d", g, i)
				req := eventlog.AppendRequest{Stream: stream, RequestID: rid, Expect: eventlog.AtRevision(uint64(i)),
					Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}}}
				rec, _, err := appendRetrying(ctx, h, req)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", rid, err)
					return
				}
				mu.Lock()
				acks = append(acks, ack{rid, rec})
				mu.Unlock()
				acked.Add(1)
			}
		})
	}
	waitAcked := func(n int64, within time.Duration) bool {
		deadline := time.Now().Add(within)
		for acked.Load() < n {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(10 * time.Millisecond)
		}
		return true
	}
	if !waitAcked(100, 30*time.Second) {
		close(stop)
		wg.Wait()
		t.Fatalf("only %d appends acknowledged before the hang", acked.Load())
	}
	hung.Hang()
	hungAt, before := time.Now(), acked.Load()
	resumed := waitAcked(before+100, hungResumeBound)
	took := time.Since(hungAt)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !resumed {
		t.Fatalf("%d appends acknowledged in the %s after the node hung (%d before): writes did not resume through the other nodes",
			acked.Load()-before, hungResumeBound, before)
	}
	t.Logf("100 more appends acknowledged %s after the node hung; %d reconnects", took.Round(time.Millisecond), h.Reconnects())
	if h.Reconnects() == 0 {
		t.Error("the handle never reconnected")
	}

	// Nothing acknowledged is lost or doubled, read on a node directly.
	check := openHandle(t, c.ClientURL(0), natslog.Options{ReadOnly: true})
	evs := readAll(ctx, t, check)
	byRID := make(map[string]int, len(evs))
	revs := map[string]uint64{}
	for _, e := range evs {
		byRID[e.RequestID]++
		if revs[e.Stream]+1 != e.Revision {
			t.Fatalf("seq %d is revision %d of %s after %d", e.Seq, e.Revision, e.Stream, revs[e.Stream])
		}
		revs[e.Stream] = e.Revision
	}
	for rid, n := range byRID {
		if n != 1 {
			t.Errorf("request %s is in the log %d times, want once", rid, n)
		}
	}
	for _, a := range acks {
		if byRID[a.rid] != 1 {
			t.Errorf("acknowledged request %s is in the log %d times, want once", a.rid, byRID[a.rid])
			continue
		}
		e := evs[a.rec.FirstSeq-1]
		if e.RequestID != a.rid || e.ID != a.rec.IDs[0] || e.Hash != a.rec.Hashes[0] {
			t.Errorf("receipt of %s names seq %d, which holds request %q id %s", a.rid, a.rec.FirstSeq, e.RequestID, e.ID)
		}
	}
	if n := mustVerify(ctx, t, check); n != uint64(len(evs)) {
		t.Errorf("verified %d events of %d", n, len(evs))
	}
}
