package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/hub"
)

// BenchmarkEvents_CommitToDelivery measures, with 20 event streams open
// (20 pages), the time from a write's commit (cos_task_create through the
// runner) to its event arriving on every stream: p50 and p99 over the
// slowest stream of each write, in ms.
func BenchmarkEvents_CommitToDelivery(b *testing.B) {
	const pages = 20
	f := openLiveHub(b, "", hub.Options{})
	streams := make([]*sseStream, pages)
	for i := range streams {
		s, status, body := f.openEvents(b, "?types=task.*", nil)
		if s == nil {
			b.Fatalf("status %d %s", status, body)
		}
		streams[i] = s
	}
	var lat []float64
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		env := f.r.Call(context.Background(), "cos_task_create", json.RawMessage(fmt.Sprintf(`{"title":"bench %d"}`, i)),
			envelope.Options{NoBudget: true})
		if !env.OK() {
			b.Fatal(string(env.JSON()))
		}
		seq, ok := env.Meta()["log_seq"].(uint64)
		if !ok {
			b.Fatalf("meta.log_seq %T", env.Meta()["log_seq"])
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var worst time.Duration
		for _, s := range streams {
			wg.Go(func() {
				for {
					ev, ok := s.next(b, eventWait)
					if !ok {
						b.Errorf("no event %d", seq)
						return
					}
					if ev.Seq >= seq {
						break
					}
				}
				d := time.Since(start)
				mu.Lock()
				worst = max(worst, d)
				mu.Unlock()
			})
		}
		wg.Wait()
		lat = append(lat, float64(worst.Microseconds())/1000)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
}
