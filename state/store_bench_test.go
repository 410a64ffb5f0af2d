package state

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// BenchmarkState_NATSStore_CommitToApplied: machine A appends one event
// at a time to a stream on a three-node cluster (R3); the figure is how
// long after A's append returned machine B's projections applied it (B
// follows the stream; no read on B pulls it). Reports p50 and p99 in ms.
func BenchmarkState_NATSStore_CommitToApplied(b *testing.B) {
	js := testutil.StartJetStream(b, testutil.JetStreamOptions{Nodes: 3, SyncAlways: true})
	urls := js.ClientURLs()
	store := fmt.Sprintf("%s,%s,%s/COS", urls[0], urls[1], urls[2])
	ctx := context.Background()
	open := func(url string) *State {
		s, err := Open(ctx, Options{Dir: b.TempDir(), Store: url, CreateStream: true, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close(ctx) })
		return s
	}
	a := open(store)
	other := open(fmt.Sprintf("%s,%s,%s/COS", urls[2], urls[1], urls[0]))
	var mu sync.Mutex
	applied := map[uint64]time.Time{}
	other.Tailer().OnApplied(func(evs []eventlog.Event) {
		now := time.Now()
		mu.Lock()
		for _, ev := range evs {
			applied[ev.Seq] = now
		}
		mu.Unlock()
	})
	data, _ := json.Marshal(map[string]string{"k": "v"})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		recs, err := a.Append(ctx, eventlog.AppendRequest{Stream: "bench", Events: []eventlog.Payload{{Type: "bench.tick", Data: data}}})
		if err != nil {
			b.Fatal(err)
		}
		done := time.Now()
		seq := recs[0].LastSeq
		for {
			mu.Lock()
			at, ok := applied[seq]
			mu.Unlock()
			if ok {
				lat = append(lat, max(at.Sub(done), 0))
				break
			}
			if time.Since(done) > 10*time.Second {
				b.Fatalf("seq %d not applied on B after 10 s", seq)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
