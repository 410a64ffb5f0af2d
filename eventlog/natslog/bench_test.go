package natslog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// BenchmarkLog_Append appends one-event requests (~60 bytes of data) from
// 1, 8 and 64 goroutines sharing one handle on an R1 stream of one
// in-process server (file storage), and reports events/s and the mean
// group commit (requests per round). mode=pipeline is the default commit
// of one-event rounds; mode=batch sends every round as an atomic batch.
func BenchmarkLog_Append(b *testing.B) {
	for _, mode := range []string{"pipeline", "batch"} {
		for _, appenders := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("mode=%s/appenders=%d", mode, appenders), func(b *testing.B) {
				defer natslog.SetPipeline(mode == "pipeline")()
				benchLocalAppend(b, appenders)
			})
		}
	}
}

func benchLocalAppend(b *testing.B, appenders int) {
	{
		{
			_, url := startJetStream(b)
			l := openLog(b, url, newStreamName(), natslog.Options{})
			data := json.RawMessage(`{"file":"internal/pkg/thing.go","symbols":12,"ok":true}`)
			var next atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			for g := range appenders {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						res, err := l.Append(context.Background(), eventlog.AppendRequest{
							Stream: fmt.Sprintf("bench:%d", g%16),
							Events: []eventlog.Payload{{Type: "bench.appended", Data: data}},
						})
						if err == nil {
							err = res[0].Err
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			if st := l.Stats(); st.Batches > 0 {
				b.ReportMetric(float64(st.Requests)/float64(st.Batches), "reqs/round")
			}
		}
	}
}
