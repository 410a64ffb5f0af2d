// Command natsfill fills a cos log in a JetStream stream with events for
// the benchmarks of scripts/bench_nats_open.sh: -events one-event
// requests, each under a request id (so every event has a receipt), on 64
// task-sized streams, appended 500 requests per call. It creates the
// stream when missing.
//
//	natsfill -store nats://HOST:PORT/STREAM [-events 43000]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

func main() {
	store := flag.String("store", "", "nats://HOST:PORT/STREAM")
	n := flag.Int("events", 43_000, "events to append")
	flag.Parse()
	if err := run(*store, *n); err != nil {
		fmt.Fprintln(os.Stderr, "natsfill:", err)
		os.Exit(1)
	}
}

func run(store string, n int) error {
	url, stream, err := natslog.ParseStore(store)
	if err != nil {
		return err
	}
	ctx := context.Background()
	l, err := natslog.Open(ctx, url, natslog.Options{Stream: stream, Create: true})
	if err != nil {
		return err
	}
	defer func() { _ = l.Close(ctx) }()
	data := []byte(`{"title":"Benchmark task","status":"in_progress","assignee":"agent-7","labels":["bench","nats"],"note":"an event of a couple of hundred bytes, about the size of a task update"}`)
	start := time.Now()
	for i := 0; i < n; i += 500 {
		reqs := make([]eventlog.AppendRequest, 0, 500)
		for j := i; j < min(i+500, n); j++ {
			reqs = append(reqs, eventlog.AppendRequest{Stream: fmt.Sprintf("bench:fill-%d", j%64), RequestID: fmt.Sprintf("fill-%d", j),
				Events: []eventlog.Payload{{Type: "bench.appended", Data: data}}})
		}
		res, err := l.Append(ctx, reqs...)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Err != nil {
				return r.Err
			}
		}
	}
	fmt.Fprintf(os.Stderr, "natsfill: %d events in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
