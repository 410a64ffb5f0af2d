package natslog_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/internal/testutil"
)

// The benchmarks of this file start real nats-server nodes (one for R1,
// three for R3) with every write fsynced before it is acknowledged
// (sync_interval: always; COS_BENCH_NATS_FSYNC=lazy for the server's
// default), and run the bbolt log beside them in the same process for
// comparison. They run only with COS_BENCH_NATS=1; scripts/bench_nats.sh
// runs them all and prints a table.

// benchEnv is the variable that switches the cluster benchmarks on.
const benchEnv = "COS_BENCH_NATS"

func skipUnlessBench(b *testing.B) {
	b.Helper()
	if os.Getenv(benchEnv) != "1" {
		b.Skipf("starts JetStream clusters; set %s=1 to run", benchEnv)
	}
}

// appender is what the append benchmarks drive: *natslog.Log and
// *boltlog.Log.
type appender interface {
	Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error)
}

// benchData is the data of one benchmark event: about the size of a task
// update.
var benchData = []byte(`{"title":"Benchmark task","status":"in_progress","assignee":"agent-7","labels":["bench","nats"],"note":"an event of a couple of hundred bytes, about the size of a task update"}`)

// benchReq is request i of appender g: one event on the appender's own
// stream under a request id.
func benchReq(run string, g, i int) eventlog.AppendRequest {
	return eventlog.AppendRequest{
		Stream:    fmt.Sprintf("bench:%s-%d", run, g),
		RequestID: fmt.Sprintf("%s-%d-%d", run, g, i),
		Events:    []eventlog.Payload{{Type: "bench.appended", Data: benchData}},
	}
}

// percentile returns the p-th percentile (0 < p ≤ 1) of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds))*p+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchFsyncEnv set to "lazy" runs the nodes with nats-server's default
// fsync interval instead of an fsync before every acknowledgement.
const benchFsyncEnv = "COS_BENCH_NATS_FSYNC"

// benchNATSLog starts nodes nodes (R = nodes), fsyncing every write unless
// COS_BENCH_NATS_FSYNC=lazy, and opens a handle on node 0.
func benchNATSLog(b *testing.B, nodes int, o natslog.Options) (*testutil.JetStreamCluster, *natslog.Log) {
	b.Helper()
	c := testutil.StartJetStream(b, testutil.JetStreamOptions{Nodes: nodes, SyncAlways: os.Getenv(benchFsyncEnv) != "lazy"})
	o.Replicas = nodes
	return c, openHandle(b, c.ClientURL(0), o)
}

// BenchmarkCluster_Append appends b.N one-event requests (each under a
// request id) from 1, 8 and 64 concurrent appenders on one handle: bbolt,
// NATS R1 (one node) and NATS R3 (three nodes), reporting events/s and the
// p50 and p99 latency of one Append.
func BenchmarkCluster_Append(b *testing.B) {
	skipUnlessBench(b)
	_, r1 := benchNATSLog(b, 1, natslog.Options{})
	_, r3 := benchNATSLog(b, 3, natslog.Options{})
	bolt := testutil.OpenLog(b, boltlog.Options{})
	backends := []struct {
		name string
		log  appender
	}{{"bbolt", bolt}, {"R1", r1}, {"R3", r3}}
	var runs atomic.Int32
	for _, be := range backends {
		for _, n := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("backend=%s/appenders=%d", be.name, n), func(b *testing.B) {
				benchAppend(b, be.log, n, fmt.Sprintf("r%d", runs.Add(1)))
			})
		}
	}
}

// BenchmarkCluster_AppendHandles appends b.N one-event requests to an R3
// stream from 1 handle × 64 appenders and from 4 × 16 and 8 × 8 (the
// handles on the three nodes in turn, each with its own connection, as
// machines would be), reporting events/s, the p50 and p99 latency of one
// Append, and the rounds lost to another handle per 1,000 events.
func BenchmarkCluster_AppendHandles(b *testing.B) {
	skipUnlessBench(b)
	c, first := benchNATSLog(b, 3, natslog.Options{})
	handles := []*natslog.Log{first}
	for h := 1; h < 8; h++ {
		handles = append(handles, openHandle(b, c.ClientURL(h%c.Len()), natslog.Options{}))
	}
	var runs atomic.Int32
	for _, shape := range []struct{ handles, appenders int }{{1, 64}, {4, 16}, {8, 8}} {
		b.Run(fmt.Sprintf("handles=%d/appenders=%d", shape.handles, shape.appenders), func(b *testing.B) {
			var logs []appender
			retries := func() (n uint64) {
				for _, l := range handles[:shape.handles] {
					n += l.Stats().Retries
				}
				return n
			}
			for _, l := range handles[:shape.handles] {
				logs = append(logs, l)
			}
			before := retries()
			benchAppendOn(b, logs, shape.handles*shape.appenders, fmt.Sprintf("h%d", runs.Add(1)))
			b.ReportMetric(float64(retries()-before)*1000/float64(b.N), "lost_rounds/1k_events")
		})
	}
}

// benchAppend runs b.N appends from n goroutines sharing l.
func benchAppend(b *testing.B, l appender, n int, run string) {
	benchAppendOn(b, []appender{l}, n, run)
}

// benchAppendOn runs b.N appends from n goroutines, goroutine g on
// logs[g%len(logs)].
func benchAppendOn(b *testing.B, logs []appender, n int, run string) {
	ctx := context.Background()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		lat   = make([]time.Duration, 0, b.N)
		fails atomic.Int64
	)
	b.ResetTimer()
	start := time.Now()
	for g := range n {
		wg.Go(func() {
			mine := make([]time.Duration, 0, b.N/n+1)
			for {
				i := int(next.Add(1))
				if i > b.N {
					break
				}
				t0 := time.Now()
				res, err := logs[g%len(logs)].Append(ctx, benchReq(run, g, i))
				if err == nil {
					err = res[0].Err
				}
				if err != nil {
					fails.Add(1)
					b.Error(err)
					break
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if fails.Load() > 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(ms(percentile(lat, 0.50)), "p50_ms")
	b.ReportMetric(ms(percentile(lat, 0.99)), "p99_ms")
}

// BenchmarkCluster_CommitToApply appends b.N events one after another
// through a handle on node 0 ("machine A") while a handle with its own
// connection on another node ("machine B") follows the log, and reports
// the p50 and p99 of the time from A's acknowledged commit to B's receiving
// the event (commit_to_apply), and from A's call to it (call_to_apply).
func BenchmarkCluster_CommitToApply(b *testing.B) {
	skipUnlessBench(b)
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("R%d", nodes), func(b *testing.B) {
			c, a := benchNATSLog(b, nodes, natslog.Options{})
			machineB := openHandle(b, c.ClientURL(nodes-1), natslog.Options{ReadOnly: true})
			benchCommitToApply(b, a, machineB)
		})
	}
}

func benchCommitToApply(b *testing.B, a, follower *natslog.Log) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	head, err := a.Head(ctx)
	if err != nil {
		b.Fatal(err)
	}
	n := b.N
	sent := make([]time.Time, n)
	acked := make([]time.Time, n)
	arrived := make([]time.Time, n)
	var (
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
		ferr error
	)
	got := 0
	wg.Go(func() {
		ferr = follower.Follow(ctx, head.Seq+1, func(e eventlog.Event) error {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			var i int
			if _, err := fmt.Sscanf(e.RequestID, "c2a-%d", &i); err != nil || i < 0 || i >= n {
				return fmt.Errorf("unexpected event %d %q", e.Seq, e.RequestID)
			}
			arrived[i] = now
			got++
			if got == n {
				close(done)
				return eventlog.ErrStop
			}
			return nil
		})
	})
	b.ResetTimer()
	for i := range n {
		req := benchReq("c2a", 0, i)
		req.RequestID = fmt.Sprintf("c2a-%d", i)
		sent[i] = time.Now()
		res, err := a.Append(ctx, req)
		if err == nil {
			err = res[0].Err
		}
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		acked[i] = time.Now()
		mu.Unlock()
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cancel()
		wg.Wait()
		b.Fatalf("the follower received %d of %d events in 30 s (%v)", got, n, ferr)
	}
	b.StopTimer()
	wg.Wait()
	commit := make([]time.Duration, n)
	call := make([]time.Duration, n)
	for i := range n {
		commit[i] = max(0, arrived[i].Sub(acked[i]))
		call[i] = arrived[i].Sub(sent[i])
	}
	slices.Sort(commit)
	slices.Sort(call)
	b.ReportMetric(ms(percentile(commit, 0.50)), "commit_to_apply_p50_ms")
	b.ReportMetric(ms(percentile(commit, 0.99)), "commit_to_apply_p99_ms")
	b.ReportMetric(ms(percentile(call, 0.50)), "call_to_apply_p50_ms")
	b.ReportMetric(ms(percentile(call, 0.99)), "call_to_apply_p99_ms")
}

// catchUpEvents is the log size of the catch-up benchmark.
const catchUpEvents = 100_000

// BenchmarkCluster_CatchUp fills an R3 stream with 100,000 events, then
// measures a fresh machine catching up: opening a handle on another node
// (Open reads the stream to the end for revisions and receipts) and
// reading every event (open_read_s); opening a fresh state folder on that
// node and reading its state, which applies every event to the
// projections first (state_s); and following every event from seq 1 on a
// handle (follow_s).
func BenchmarkCluster_CatchUp(b *testing.B) {
	skipUnlessBench(b)
	c, a := benchNATSLog(b, 3, natslog.Options{})
	ctx := context.Background()
	fill := time.Now()
	const perCall = 500
	for i := 0; i < catchUpEvents; i += perCall {
		reqs := make([]eventlog.AppendRequest, perCall)
		for j := range reqs {
			reqs[j] = benchReq("fill", (i+j)%64, i+j)
		}
		res, err := a.Append(ctx, reqs...)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	}
	b.Logf("filled %d events in %s", catchUpEvents, time.Since(fill).Round(time.Millisecond))
	c.WaitStreamLastSeq(2, clusterStream, catchUpEvents)

	b.Run("open_read", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			t0 := time.Now()
			l := openHandle(b, c.ClientURL(2), natslog.Options{})
			n := 0
			if err := l.Read(ctx, 0, func(eventlog.Event) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			total += time.Since(t0)
			if n != catchUpEvents {
				b.Fatalf("read %d events, want %d", n, catchUpEvents)
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "open_read_s")
	})
	b.Run("state", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			t0 := time.Now()
			m := openMachine(b, c.ClientURL(2)+"/"+clusterStream, "fresh")
			seq, _ := m.stateOf(ctx, b)
			total += time.Since(t0)
			if seq != catchUpEvents {
				b.Fatalf("a fresh state folder caught up to seq %d, want %d", seq, catchUpEvents)
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "state_s")
	})
	b.Run("follow", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			l := openHandle(b, c.ClientURL(2), natslog.Options{ReadOnly: true})
			t0 := time.Now()
			n := 0
			err := l.Follow(ctx, 0, func(e eventlog.Event) error {
				n++
				if e.Seq == catchUpEvents {
					return eventlog.ErrStop
				}
				return nil
			})
			total += time.Since(t0)
			if err != nil || n != catchUpEvents {
				b.Fatalf("followed %d events (%v), want %d", n, err, catchUpEvents)
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "follow_s")
	})
}
