package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/state"
)

// BenchmarkPropagation measures how long an event committed by server A
// takes to be applied by server B on the same state folder
// (docs/architecture.md, write path steps 6–8):
// from the event's commit timestamp (taken inside A's write transaction,
// so the figure includes the commit's fsync) to
//
//   - bus: B's tailer applying it from the NATS message (OnApplied), with no
//     read on B;
//   - off: a read on B issued right after A's append is acknowledged
//     (Fresh + View) seeing it, B learning through the freshness check.
//
// One event at a time, each waited for, so the figure is a latency, not a
// queue. Reported: p50-ms and p99-ms of that latency, and append-p50-ms (A's
// own acknowledged commit, which is part of it). The figure is over
// 10,000 events: go test -run '^$' -bench Propagation -benchtime 10000x ./tools
func BenchmarkPropagation(b *testing.B) {
	for _, mode := range []string{bus.ModeAuto, bus.ModeOff} {
		b.Run("nats_"+mode, func(b *testing.B) {
			dir := b.TempDir()
			a := openBenchServer(b, dir, mode)
			s := openBenchServer(b, dir, mode)
			if mode == bus.ModeAuto && (a.st.Bus() == nil || s.st.Bus() == nil) {
				b.Fatal("no bus: NATS unavailable")
			}
			// Applied stamps from B's tailer: the time each seq was applied.
			type stamp struct {
				seq uint64
				at  time.Time
			}
			applied := make(chan stamp, 1024)
			s.Tailer().OnApplied(func(evs []eventlog.Event) {
				now := time.Now()
				for _, ev := range evs {
					select {
					case applied <- stamp{ev.Seq, now}:
					default: // nobody waits for it (a catch-up batch)
					}
				}
			})
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			appendLat := make([]time.Duration, 0, b.N)
			afterAck := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				data, _ := json.Marshal(metrics.Recorded{Name: "bench.propagation", Value: float64(i)})
				t0 := time.Now()
				rc, err := state.AppendOne(ctx, a.Log(), eventlog.AppendRequest{Stream: metrics.Stream,
					Events: []eventlog.Payload{{Type: metrics.TypeRecorded, Data: data}}})
				if err != nil {
					b.Fatal(err)
				}
				acked := time.Now()
				appendLat = append(appendLat, acked.Sub(t0))
				var seen time.Time
				if mode == bus.ModeOff {
					if err := s.Tailer().Fresh(ctx); err != nil {
						b.Fatal(err)
					}
					var pos projections.Position
					s.Tailer().View(func(p projections.Position) { pos = p })
					seen = time.Now()
					if pos.Seq < rc.LastSeq {
						b.Fatalf("B at %d after Fresh, A committed %d", pos.Seq, rc.LastSeq)
					}
				} else {
					seen = waitApplied(b, applied, rc.LastSeq, func(st stamp) (uint64, time.Time) { return st.seq, st.at })
				}
				lat = append(lat, seen.Sub(rc.Time))
				afterAck = append(afterAck, max(0, seen.Sub(acked)))
			}
			b.StopTimer()
			b.ReportMetric(percentileMs(lat, 50), "p50-ms")
			b.ReportMetric(percentileMs(lat, 99), "p99-ms")
			b.ReportMetric(percentileMs(appendLat, 50), "append-p50-ms")
			b.ReportMetric(percentileMs(afterAck, 50), "after-ack-p50-ms")
			b.ReportMetric(percentileMs(afterAck, 99), "after-ack-p99-ms")
		})
	}
}

// waitApplied waits for the stamp of seq (dropping older ones) and returns
// its time.
func waitApplied[S any](b *testing.B, ch <-chan S, seq uint64, get func(S) (uint64, time.Time)) time.Time {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case st := <-ch:
			if s, at := get(st); s >= seq {
				return at
			}
		case <-timeout:
			b.Fatalf("seq %d never applied on B through the bus", seq)
		}
	}
}

// percentileMs returns the p-th percentile of ds in milliseconds.
func percentileMs(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / float64(time.Millisecond)
}

func openBenchServer(b *testing.B, dir, nats string) *testServer {
	b.Helper()
	s, err := openTestServer(context.Background(), testOptions{StateDir: dir, NATS: nats, NoBackgroundSnapshots: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatalf("open %s: %v", nats, err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
