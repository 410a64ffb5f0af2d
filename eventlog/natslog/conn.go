package natslog

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

// A handle's connection must leave a hung server within seconds and carry
// on through the other servers its URL lists. nats.go's defaults do not:
// it pings every two minutes and allows two pings unanswered, so a server
// that stops answering (a paused process, a partition that drops packets)
// holds the connection — and every write, each waiting out its publish
// timeout — for four to six minutes. Two mechanisms leave it:
//
//   - Pings (Options.PingInterval, Options.MaxPingsOut): a server that
//     does not answer MaxPingsOut+1 pings in a row is declared stale and
//     nats.go reconnects to the next server of the list: detected within
//     (MaxPingsOut+1)×PingInterval, 4–6 s by default.
//   - Unanswered calls (Options.StallReconnect): a server that answers
//     pings but not JetStream (a node cut off from its cluster) leaves
//     every call of the handle timing out; after StallReconnect such
//     failures in a row spanning stallSpan, with no success between, the
//     handle reconnects to another server itself (nats.Conn.ForceReconnect).
//
// When the connection drops, the publishes waiting for an acknowledgement
// on it end at once as eventlog.ErrCommitUnknown (the retry of a request
// with its request id replays or writes it once), instead of waiting out
// Options.PublishTimeout: their answer would come on the old connection.

// Defaults of the connection options.
const (
	// DefaultPingInterval is how often the client pings its server when
	// Options.PingInterval is zero.
	DefaultPingInterval = 2 * time.Second
	// DefaultMaxPingsOut is how many pings may go unanswered before the
	// connection is declared stale when Options.MaxPingsOut is zero.
	DefaultMaxPingsOut = 2
	// DefaultStallReconnect is how many calls in a row must fail for want
	// of an answer before the handle reconnects elsewhere, when
	// Options.StallReconnect is zero.
	DefaultStallReconnect = 3
	// DefaultReconnectWait is the pause before dialling a server again
	// that was just tried, when Options.ReconnectWait is zero.
	DefaultReconnectWait = 250 * time.Millisecond
)

// stallSpan is the shortest time the failed calls of a stall must span
// before the handle reconnects: several calls failing together in one
// moment (the appenders of one round) are one failure, and an election of
// a new stream leader (a few seconds, during which calls go unanswered on
// every server) does not move the connection.
const stallSpan = 5 * time.Second

// stallCooldown is the least time between two reconnects for stalls.
const stallCooldown = 10 * time.Second

// errConnLost is the cause of a publish ended because the connection
// dropped before its acknowledgement came.
var errConnLost = errors.New("the connection to the NATS server dropped before the acknowledgement came")

// connWatch follows the state of a handle's connection: it ends the
// publishes in flight when the connection drops, and counts the calls
// that found no answer to reconnect when they stall.
type connWatch struct {
	logger    *slog.Logger
	threshold int // StallReconnect; negative: never

	// mu guards every field below.
	mu sync.Mutex
	// waiting are the cancel functions of the publishes in flight, by id.
	waiting map[uint64]context.CancelCauseFunc
	next    uint64
	// nc is the connection to force a reconnect on (nil: the caller's
	// own connection, left alone).
	nc *nats.Conn
	// fails counts the calls in a row that found no answer, the first at
	// since; lastForce is the last forced reconnect.
	fails     int
	since     time.Time
	lastForce time.Time
	// reconnects counts the connection's reconnects.
	reconnects int
}

func newConnWatch(o Options) *connWatch {
	return &connWatch{logger: o.Logger, threshold: o.StallReconnect, waiting: map[uint64]context.CancelCauseFunc{}}
}

// dialOptions are the nats.go options of a connection Open dials for o
// and reports to w.
func (w *connWatch) dialOptions(o Options, timeout time.Duration) []nats.Option {
	return []nats.Option{
		nats.Name("cos event log"),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(o.ReconnectWait),
		nats.PingInterval(o.PingInterval),
		nats.MaxPingsOutstanding(o.MaxPingsOut),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if nc.IsClosed() {
				// Close, not a lost connection: nothing to say.
				w.dropped()
				return
			}
			w.logger.Warn("eventlog: lost the connection to the NATS server; reconnecting to the servers of the store",
				"server", nc.ConnectedUrlRedacted(), "err", err)
			w.dropped()
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			w.logger.Info("eventlog: reconnected to a NATS server", "server", nc.ConnectedUrlRedacted())
			w.mu.Lock()
			w.reconnects++
			w.fails = 0
			w.mu.Unlock()
		}),
	}
}

// watch makes w force reconnects of nc (a connection Open dialled).
func (w *connWatch) watch(nc *nats.Conn) {
	w.mu.Lock()
	w.nc = nc
	w.mu.Unlock()
}

// publishContext returns the context of one publish: it ends after d, or
// as soon as the connection drops (cause errConnLost). Call cancel when
// the publish is answered.
func (w *connWatch) publishContext(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	ctx, cancelTimeout := context.WithTimeout(ctx, d)
	w.mu.Lock()
	id := w.next
	w.next++
	w.waiting[id] = cancelCause
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		delete(w.waiting, id)
		w.mu.Unlock()
		cancelTimeout()
		cancelCause(context.Canceled)
	}
}

// dropped ends every publish in flight with errConnLost.
func (w *connWatch) dropped() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, cancel := range w.waiting {
		cancel(errConnLost)
		delete(w.waiting, id)
	}
}

// observe counts err, the outcome of one call that reached for the
// servers: a failure for want of an answer (ErrUnavailable, or a publish
// whose acknowledgement did not come in time) adds to the stall, anything
// else ends it. When the stall reaches the threshold and spans stallSpan,
// it forces a reconnect to another server of the list.
func (w *connWatch) observe(err error) {
	unanswered := err != nil && (errors.Is(err, ErrUnavailable) || unreachable(err))
	w.mu.Lock()
	if !unanswered {
		if err == nil || !errors.Is(err, eventlog.ErrCommitUnknown) {
			w.fails = 0
		}
		w.mu.Unlock()
		return
	}
	now := time.Now()
	if w.fails == 0 {
		w.since = now
	}
	w.fails++
	nc := w.nc
	force := nc != nil && w.threshold > 0 && w.fails >= w.threshold && now.Sub(w.since) >= stallSpan &&
		now.Sub(w.lastForce) >= stallCooldown && nc.IsConnected()
	if force {
		w.lastForce, w.fails = now, 0
	}
	n := w.fails
	w.mu.Unlock()
	if force {
		w.logger.Warn("eventlog: the NATS server does not answer the log's calls; reconnecting to another server of the store",
			"server", nc.ConnectedUrlRedacted(), "failed_calls", n, "err", err)
		if ferr := nc.ForceReconnect(); ferr != nil {
			w.logger.Warn("eventlog: reconnect failed", "err", ferr)
		}
	}
}

// Reconnects returns how many times the handle's connection has
// reconnected since Open (to the same server or another).
func (l *Log) Reconnects() int {
	l.conn.mu.Lock()
	defer l.conn.mu.Unlock()
	return l.conn.reconnects
}
