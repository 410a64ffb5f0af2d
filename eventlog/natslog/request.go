package natslog

import (
	"context"
	"time"
)

// requestTimeout bounds one JetStream API request of a read (stream info,
// message get, consumer create). A request the stream leader received and
// did not answer before it died is never answered, and while a new leader
// is elected requests go unanswered or are refused as unavailable: without
// a bound of its own such a request would hold its caller for the caller's
// whole deadline (a tool call's read-after-write, a catch-up) although the
// next leader answers within seconds.
const requestTimeout = 2 * time.Second

// requestRetryFor bounds the retries of one read request when the caller's
// context has no earlier deadline. nats-server elects a stream leader
// within its Raft election timeout (4–9 s by default) of losing one; a
// read that still finds no answer after longer is failed with
// ErrUnavailable: the servers are down, not electing.
const requestRetryFor = 15 * time.Second

// request runs fn, a read-only JetStream API request, with a context that
// ends after requestTimeout, again while it fails because the servers did
// not answer (unreachable), after a pause growing from 20 ms to 500 ms,
// until it succeeds, fails otherwise, ctx ends, the log closes or
// requestRetryFor has passed. It returns fn's last error. Requests that
// write (publishes) are never sent again here: their outcome is the
// committer's to settle.
func (l *Log) request(ctx context.Context, fn func(context.Context) error) error {
	deadline := time.Now().Add(requestRetryFor)
	wait := 20 * time.Millisecond
	for {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		err := fn(rctx)
		cancel()
		if ctx.Err() == nil {
			l.conn.observe(err)
		}
		if err == nil || ctx.Err() != nil || l.closing.Load() || !unreachable(err) ||
			l.nc.IsClosed() || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}
