package natslog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// BenchmarkOpen_Checkpoint opens a handle on a stream of 20,000 one-event
// requests, each with a request id, and closes it: reading the whole
// stream (checkpoint=off, as every process did before checkpoints) or
// only past the checkpoint an earlier handle left (checkpoint=on; the
// close rewrites nothing, as nothing was read). One in-process server, so
// ns/op includes the server's work.
func BenchmarkOpen_Checkpoint(b *testing.B) {
	_, url := startJetStream(b)
	name := newStreamName()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "log-checkpoint.bin")
	w := openLog(b, url, name, natslog.Options{})
	const events, perCall = 20_000, 500
	for i := 0; i < events; i += perCall {
		reqs := make([]eventlog.AppendRequest, perCall)
		for j := range reqs {
			reqs[j] = eventlog.AppendRequest{Stream: fmt.Sprintf("doc:%d", (i+j)%64), RequestID: fmt.Sprintf("r-%d", i+j),
				Events: []eventlog.Payload{{Type: "doc.updated", Data: []byte(`{"title":"a task-sized event","status":"open","labels":["a","b"]}`)}}}
		}
		if _, err := w.Append(ctx, reqs...); err != nil {
			b.Fatal(err)
		}
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("checkpoint=%t", on), func(b *testing.B) {
			o := natslog.Options{Stream: name}
			if on {
				o.Checkpoint = path
				l, err := natslog.Open(ctx, url, o) // leaves the checkpoint
				if err != nil {
					b.Fatal(err)
				}
				_ = l.Close(ctx)
			}
			b.ResetTimer()
			for range b.N {
				l, err := natslog.Open(ctx, url, o)
				if err != nil {
					b.Fatal(err)
				}
				if h, err := l.Head(ctx); err != nil || h.Seq != events {
					b.Fatalf("head %+v, %v", h, err)
				}
				_ = l.Close(ctx)
			}
		})
	}
}
