package hub

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/tasks"
)

// boardBenchTasks is the board size of BenchmarkAPI_Board5000.
const boardBenchTasks = 5000

// seedTasks appends n task.created events straight to the log, in
// batches, and waits until the projections hold them.
func seedTasks(tb testing.TB, e *apiEnv, n int) {
	tb.Helper()
	ctx := context.Background()
	const batch = 500
	statuses := tasks.Statuses
	var last uint64
	for done := 0; done < n; done += batch {
		reqs := make([]eventlog.AppendRequest, 0, batch)
		for i := done; i < min(n, done+batch); i++ {
			p, err := tasks.CreatedPayload(tasks.Created{Title: fmt.Sprintf("task %d of the benchmark board", i),
				Priority: tasks.DefaultPriority, Status: statuses[i%len(statuses)], Labels: []string{"bench", fmt.Sprintf("l%d", i%7)}})
			if err != nil {
				tb.Fatal(err)
			}
			reqs = append(reqs, eventlog.AppendRequest{StreamPrefix: tasks.StreamPrefix, Expect: eventlog.NoStream(),
				Events: []eventlog.Payload{p}})
		}
		recs, err := e.st.Append(ctx, reqs...)
		if err != nil {
			tb.Fatal(err)
		}
		last = recs[len(recs)-1].LastSeq
	}
	if err := e.st.WaitFor(ctx, last); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkAPI_Board5000 is GET /api/board on a board of 5,000 tasks:
// the first page (50 rows), a page of 200, a filter, and the board at a
// past seq. ns/op is the whole round trip over loopback, server-ms/op the
// handler's own time (the target is ≤ 50 ms).
func BenchmarkAPI_Board5000(b *testing.B) {
	e := newAPIEnv(b, false)
	seedTasks(b, e, boardBenchTasks)
	var serverNS atomic.Int64
	timed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		e.api.ServeHTTP(w, r)
		serverNS.Add(int64(time.Since(t0)))
	})
	srv := httptest.NewServer(timed)
	defer srv.Close()
	c := srv.Client()
	get := func(tb testing.TB, path string) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			tb.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatalf("%d %v: %.300s", resp.StatusCode, err, body)
		}
	}
	for _, q := range []struct{ name, path string }{
		{"first-page", "/api/board"},
		{"limit-200", "/api/board?limit=200"},
		{"label-filter", "/api/board?label=l3&status=todo"},
		{"at-past-seq", fmt.Sprintf("/api/board?at=%d", boardBenchTasks/2)},
	} {
		b.Run(q.name, func(b *testing.B) {
			get(b, q.path) // the first read builds what later reads reuse (a past state is cached by seq)
			serverNS.Store(0)
			n := 0
			for b.Loop() {
				get(b, q.path)
				n++
			}
			b.ReportMetric(float64(serverNS.Load())/float64(n)/1e6, "server-ms/op")
		})
	}
}
