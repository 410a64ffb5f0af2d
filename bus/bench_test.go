package bus

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// BenchmarkBus_PublishReceive measures the latency from Publish in one Bus
// to the subscriber callback in another on the same embedded server, one
// event at a time. Run with -benchtime=10000x for the 10,000 events.
func BenchmarkBus_PublishReceive(b *testing.B) {
	dir := b.TempDir()
	logger := discardLogger()
	pub := openBus(b, Options{StateDir: dir, Logger: logger})
	sub := openBus(b, Options{StateDir: dir, Logger: logger})
	arrived := make(chan time.Time, 1)
	unsub, err := sub.Subscribe(EventsSubject(sub.Namespace(), ">"), func(eventlog.Event) { arrived <- time.Now() })
	if err != nil {
		b.Fatal(err)
	}
	defer unsub()

	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	ev := testEvent(1, "graph.file_extracted", "graph")
	b.ResetTimer()
	for i := range b.N {
		ev.Seq = uint64(i + 1)
		start := time.Now()
		if err := pub.Publish(ctx, ev); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, receive(b, arrived, "event").Sub(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkBus_Takeover measures, per iteration, the time from kill -9 of a
// hosting child process to a surviving Bus having taken over and rung
// OnReconnect, with the default ReconnectWait. Run with a small -benchtime
// such as 10x.
func BenchmarkBus_Takeover(b *testing.B) {
	logger := discardLogger()
	var total time.Duration
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		host := startChild(b, dir, DefaultHeartbeatInterval, 0)
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		s, err := Open(ctx, Options{StateDir: dir, Logger: logger}) // default ReconnectWait
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		rang := make(chan struct{}, 1)
		s.OnReconnect(func() { signal(rang) })
		b.StartTimer()
		start := time.Now()
		host.kill9(b)
		for {
			receive(b, rang, "OnReconnect")
			if s.State().Hosting {
				break
			}
		}
		total += time.Since(start)
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "takeover-ms")
}
