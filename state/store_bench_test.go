package state

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
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
		s, err := Open(ctx, Options{Dir: b.TempDir(), Store: url, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
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

// BenchmarkImportLog copies a bbolt log of 20,000 events into an empty
// stream (R1, one node) and back into a new file, as `cos migrate` does;
// reports events/s of each direction.
func BenchmarkImportLog(b *testing.B) {
	const n = 20_000
	ctx := context.Background()
	srcDir := b.TempDir()
	src, err := OpenLog(ctx, srcDir, LogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	data := json.RawMessage(`{"title":"a task of the benchmark","n":1}`)
	for i := 0; i < n; i += 500 {
		reqs := make([]eventlog.AppendRequest, 500)
		for j := range reqs {
			reqs[j] = eventlog.AppendRequest{Stream: fmt.Sprintf("s%d", (i+j)%50), Events: []eventlog.Payload{{Type: "bench.tick", Data: data}}}
		}
		if _, err := src.Append(ctx, reqs...); err != nil {
			b.Fatal(err)
		}
	}
	defer src.Close(ctx)
	js := testutil.StartJetStream(b, testutil.JetStreamOptions{SyncAlways: true})
	var toNATS, toFile time.Duration
	b.ResetTimer()
	for i := range b.N {
		st, _ := ParseStore("", fmt.Sprintf("%s/B%d", js.URL(), i))
		t0 := time.Now()
		if _, err := ImportLog(ctx, st, src, nil); err != nil {
			b.Fatal(err)
		}
		toNATS += time.Since(t0)
		l, err := OpenLog(ctx, b.TempDir(), LogOptions{Store: st.String(), ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		file, _ := ParseStore("", filepath.Join(b.TempDir(), "back.db"))
		t0 = time.Now()
		if _, err := ImportLog(ctx, file, l, nil); err != nil {
			b.Fatal(err)
		}
		toFile += time.Since(t0)
		_ = l.Close(ctx)
	}
	b.ReportMetric(float64(n*b.N)/toNATS.Seconds(), "file→stream-events/s")
	b.ReportMetric(float64(n*b.N)/toFile.Seconds(), "stream→file-events/s")
}
