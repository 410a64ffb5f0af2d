package natslog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// consumerInactive is how long the server keeps a reading consumer that
// is no longer used when its deletion did not reach it.
const consumerInactive = 10 * time.Second

// followHeartbeat is the idle heartbeat asked of the server on every pull
// of an ordered consumer, and followPullExpiry how long one pull waits for
// messages: two missed heartbeats reset the consumer.
const (
	followHeartbeat  = 2 * time.Second
	followPullExpiry = 10 * time.Second
)

// getMsgRange is the longest gap catch-up and Read fill with one request
// per message; a longer one is read through an ordered consumer.
const getMsgRange = 16

// rawMsg is one stored message.
type rawMsg struct {
	subject string
	seq     uint64
	header  nats.Header
	data    []byte
}

// currentStream returns the stream, looking it up again while a read-only
// log's stream does not exist (nil, nil then).
func (l *Log) currentStream(ctx context.Context) (jetstream.Stream, error) {
	l.smu.Lock()
	s := l.stream
	l.smu.Unlock()
	if s != nil {
		return s, nil
	}
	err := l.request(ctx, func(ctx context.Context) (err error) {
		s, err = l.js.Stream(ctx, l.opts.Stream)
		return err
	})
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return nil, nil
	case err != nil:
		return nil, l.storageErr(ctx, "open stream", err)
	}
	if err := checkConfig(s.CachedInfo().Config, l.opts.Stream); err != nil {
		return nil, err
	}
	l.smu.Lock()
	l.stream = s
	l.smu.Unlock()
	return s, nil
}

// storageErr wraps a NATS failure, or returns ctx's error when ctx ended
// or eventlog.ErrClosed when the log was closed meanwhile.
func (l *Log) storageErr(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if l.closing.Load() {
		return eventlog.ErrClosed
	}
	if streamGone(err) {
		return noStream(l.where, l.opts.Stream)
	}
	return storeError(op, l.where, err)
}

// lastSeq returns the stream's last sequence as the stream leader knows it
// (0 while a read-only log's stream does not exist). A stream that ends
// before the head this handle has read is an *eventlog.IntegrityError
// (shorter): the log it read is gone.
func (l *Log) lastSeq(ctx context.Context) (jetstream.Stream, uint64, error) {
	s, err := l.currentStream(ctx)
	if err != nil || s == nil {
		return nil, 0, err
	}
	last, err := l.streamLastSeq(ctx, s)
	if err != nil {
		return nil, 0, err
	}
	if err := l.shorter(last); err != nil {
		return nil, 0, err
	}
	return s, last, nil
}

// shorter returns an *eventlog.IntegrityError when the stream's last
// sequence is before the head this handle has read, nil otherwise.
func (l *Log) shorter(last uint64) error {
	if h := l.known.Load(); h != nil && last < h.Seq {
		return shorterError(last, h.Seq)
	}
	return nil
}

// shorterError is the *eventlog.IntegrityError of a stream that ends at
// last after a handle read up to seen.
func shorterError(last, seen uint64) *eventlog.IntegrityError {
	return &eventlog.IntegrityError{Seq: last + 1, Reason: fmt.Sprintf(
		"the stream ends at seq %d, this handle has read up to %d: it was deleted and created again, or its servers lost events", last, seen)}
}

// streamLastSeq asks the stream leader for s's last sequence.
func (l *Log) streamLastSeq(ctx context.Context, s jetstream.Stream) (uint64, error) {
	var info *jetstream.StreamInfo
	err := l.request(ctx, func(ctx context.Context) (err error) {
		info, err = s.Info(ctx)
		return err
	})
	if err != nil {
		return 0, l.storageErr(ctx, "stream info", err)
	}
	if created := l.created.Load(); created != nil && !info.Created.Equal(*created) {
		// Same name, another stream: what this handle read is gone,
		// whatever the new one holds (the same number of events even).
		return 0, &eventlog.IntegrityError{Seq: 1, Reason: fmt.Sprintf(
			"the stream was created again at %s (this handle read the one created at %s): it was deleted, and its events are not in the new one",
			info.Created.UTC().Format(time.RFC3339Nano), created.UTC().Format(time.RFC3339Nano))}
	}
	return info.State.LastSeq, nil
}

// fetch calls fn for every message from..to (inclusive), in order. A
// missing message is an *eventlog.IntegrityError.
// s nil reads as an empty stream.
func (l *Log) fetch(ctx context.Context, s jetstream.Stream, from, to uint64, fn func(rawMsg) error) error {
	if from > to || s == nil {
		return nil
	}
	if to-from < getMsgRange {
		for seq := from; seq <= to; seq++ {
			var m *jetstream.RawStreamMsg
			err := l.request(ctx, func(ctx context.Context) (err error) {
				m, err = s.GetMsg(ctx, seq)
				return err
			})
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return &eventlog.IntegrityError{Seq: seq, Reason: "message missing from the stream"}
			}
			if err != nil {
				return l.storageErr(ctx, "read", err)
			}
			if err := fn(rawMsg{m.Subject, m.Sequence, m.Header, m.Data}); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		err := l.consume(ctx, s, from, consumeStall, func(m rawMsg) (bool, error) {
			if err := fn(m); err != nil {
				return false, err
			}
			from = m.seq + 1
			return m.seq < to, nil
		})
		if !errors.Is(err, errStalled) {
			return err
		}
		l.opts.Logger.Debug("eventlog: reading the stream stalled; reading again with a new consumer", "from_seq", from, "to_seq", to)
	}
}

// consumeStall is how long a read of messages known to be stored waits for
// the next one before it starts again with a new consumer. An ordered
// consumer created while the cluster is busy can go without its first
// delivery for seconds (its own recovery waits out a missed heartbeat and
// retries after 1, 2, 4 s); the messages are there, a new consumer gets
// them at once.
const consumeStall = 2 * time.Second

// errStalled ends a consume that waited longer than its stall bound.
var errStalled = errors.New("no message within the stall bound")

// consume reads the stream from seq from through an ordered consumer and
// calls fn for each message until fn returns false or an error, or ctx
// ends. With stall > 0 it returns errStalled when no message arrives for
// that long (for reads of messages known to be stored).
func (l *Log) consume(ctx context.Context, s jetstream.Stream, from uint64, stall time.Duration, fn func(rawMsg) (bool, error)) error {
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: consumerInactive}
	if from > 1 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	var cons jetstream.Consumer
	err := l.request(ctx, func(ctx context.Context) (err error) {
		cons, err = s.OrderedConsumer(ctx, cfg)
		return err
	})
	if err != nil {
		return l.storageErr(ctx, "read", err)
	}
	defer func() {
		// Delete the consumer now rather than leave it to the server's
		// inactivity timer: a busy log catches up often, and the server
		// limits the consumers of a stream.
		if info := cons.CachedInfo(); info != nil {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = s.DeleteConsumer(dctx, info.Name)
			cancel()
		}
	}()
	// A pull the server never answers (lost while a node rejoins) shows
	// as missing heartbeats; the ordered consumer then recreates itself
	// at the next seq. The client's default (5 s, so 10 s to notice) left
	// a follower deaf for that long; followHeartbeat notices in 4 s.
	it, err := cons.Messages(jetstream.PullMaxMessages(512), jetstream.PullHeartbeat(followHeartbeat), jetstream.PullExpiry(followPullExpiry))
	if err != nil {
		return l.storageErr(ctx, "read", err)
	}
	defer it.Stop()
	want := from
	if want == 0 {
		want = 1
	}
	for {
		nctx, cancel := ctx, context.CancelFunc(func() {})
		if stall > 0 {
			nctx, cancel = context.WithTimeout(ctx, stall)
		}
		msg, err := it.Next(jetstream.NextContext(nctx))
		cancel()
		if err != nil && stall > 0 && ctx.Err() == nil && nctx.Err() != nil {
			return errStalled
		}
		if err != nil {
			return l.storageErr(ctx, "read", err)
		}
		md, err := msg.Metadata()
		if err != nil {
			return l.storageErr(ctx, "read", err)
		}
		if md.Sequence.Stream != want {
			return &eventlog.IntegrityError{Seq: want, Reason: fmt.Sprintf("message missing: the next stored message is seq %d", md.Sequence.Stream)}
		}
		want++
		more, err := fn(rawMsg{msg.Subject(), md.Sequence.Stream, msg.Headers(), msg.Data()})
		if err != nil || !more {
			return err
		}
	}
}

// catchUp reads what other handles committed since the model's head,
// checking every link of the chain. Called under smu. A message that does
// not verify stops the model there: the *eventlog.IntegrityError is
// returned and kept (writes are refused from then on).
func (l *Log) catchUp() error {
	ctx, cancel := context.WithTimeout(context.Background(), max(catchUpTimeout, l.opts.PublishTimeout))
	defer cancel()
	err := l.catchUpLocked(ctx)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return storeError("catch up", l.where, fmt.Errorf("reading what other handles wrote took longer than %s: %w", max(catchUpTimeout, l.opts.PublishTimeout), err))
	}
	return err
}

// catchUpTimeout bounds one catch-up of the committer.
const catchUpTimeout = 30 * time.Second

func (l *Log) catchUpLocked(ctx context.Context) error {
	if l.m.broken != nil {
		return l.m.broken
	}
	s := l.stream
	if s == nil {
		return nil // read-only, no stream yet: Read and Head look it up themselves
	}
	last, err := l.streamLastSeq(ctx, s)
	if ie := (*eventlog.IntegrityError)(nil); errors.As(err, &ie) {
		l.m.broken = err
	}
	if err != nil {
		return err
	}
	l.caughtUp = time.Now()
	if last < l.m.head.Seq {
		l.m.broken = shorterError(last, l.m.head.Seq)
		return l.m.broken
	}
	defer l.publishHead()
	err = l.fetch(ctx, s, l.m.head.Seq+1, last, func(m rawMsg) error {
		ev, meta, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		if err != nil {
			l.m.broken = err
			return err
		}
		return l.m.apply(&ev, meta)
	})
	l.m.receipts.prune(l.opts.Now())
	return err
}

// publishHead makes the model's head visible to Head. Called under smu.
func (l *Log) publishHead() {
	h := l.m.head
	l.known.Store(&h)
}

// Read calls fn for every event from fromSeq (0 and 1 both mean the
// first) to the last event committed when Read starts, in seq order, never
// concurrently (the contract is eventlog.Log's). A message that is not a cos
// event, or holds another seq or stream than where it is stored, is an
// *eventlog.IntegrityError; Read does not check the hash chain.
func (l *Log) Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	if err := l.usable(ctx); err != nil {
		return err
	}
	s, last, err := l.lastSeq(ctx)
	if err != nil {
		return err
	}
	fromSeq = max(fromSeq, 1)
	err = l.fetch(ctx, s, fromSeq, last, func(m rawMsg) error {
		ev, _, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		if err != nil {
			return err
		}
		return fn(ev)
	})
	if errors.Is(err, eventlog.ErrStop) {
		return nil
	}
	return err
}

// Head returns the seq and hash of the last committed event as the stream
// leader knows it: one stream-info request, and one message read when
// another handle wrote it. Seq 0 and eventlog.ZeroHash for an empty log.
func (l *Log) Head(ctx context.Context) (eventlog.Head, error) {
	if err := l.usable(ctx); err != nil {
		return eventlog.Head{}, err
	}
	s, last, err := l.lastSeq(ctx)
	if err != nil {
		return eventlog.Head{}, err
	}
	if last == 0 {
		return eventlog.Head{Hash: eventlog.ZeroHash}, nil
	}
	if h := l.known.Load(); h != nil && h.Seq == last {
		return *h, nil
	}
	var head eventlog.Head
	err = l.fetch(ctx, s, last, last, func(m rawMsg) error {
		ev, _, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		head = eventlog.Head{Seq: ev.Seq, Hash: ev.Hash}
		return err
	})
	return head, err
}

// LookupReceipt returns the receipt bound to requestID while it is within
// the receipt window, after reading what other handles committed.
func (l *Log) LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error) {
	if err := l.usable(ctx); err != nil {
		return eventlog.Receipt{}, false, err
	}
	if _, err := l.currentStream(ctx); err != nil {
		return eventlog.Receipt{}, false, err
	}
	l.smu.Lock()
	defer l.smu.Unlock()
	if err := l.catchUpLocked(ctx); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
		return eventlog.Receipt{}, false, err
	}
	e, ok := l.m.receipts.lookup(requestID)
	if !ok {
		return eventlog.Receipt{}, false, nil
	}
	rec := e.receipt
	rec.IDs = append([]string(nil), rec.IDs...)
	rec.Hashes = append([]string(nil), rec.Hashes...)
	return rec, true, nil
}

// Verify walks the hash chain from the first event to the last one
// committed when it starts and returns the number of events verified, or
// an *eventlog.IntegrityError naming the first message that is not the
// next link — a message published on a cos subject by anything but cos
// is one — with the number of good events before it; ErrNoStream when the
// stream was deleted.
func (l *Log) Verify(ctx context.Context) (uint64, error) {
	if err := l.usable(ctx); err != nil {
		return 0, err
	}
	s, last, err := l.lastSeq(ctx)
	if err != nil {
		return 0, err
	}
	if s == nil {
		// A read-only handle reads a missing stream as an empty log, but
		// a missing log does not verify: it may be one that was deleted.
		return 0, noStream(l.where, l.opts.Stream)
	}
	var n uint64
	prev := eventlog.ZeroHash
	revs := map[string]uint64{}
	err = l.fetch(ctx, s, 1, last, func(m rawMsg) error {
		ev, _, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		if err != nil {
			return err
		}
		if err := eventlog.VerifyEvent(&ev, n+1, prev); err != nil {
			return err
		}
		if ev.Revision != revs[ev.Stream]+1 {
			return &eventlog.IntegrityError{Seq: ev.Seq, Reason: fmt.Sprintf("revision %d of stream %q follows revision %d", ev.Revision, ev.Stream, revs[ev.Stream])}
		}
		revs[ev.Stream] = ev.Revision
		prev = ev.Hash
		n++
		return nil
	})
	return n, err
}

// Follow calls fn for every event from fromSeq (0 and 1 both mean the
// first), in seq order, never concurrently, and then for each new event as
// it commits, until ctx ends (Follow returns ctx's error) or fn returns an
// error (Follow returns it; eventlog.ErrStop ends Follow with nil). It
// reads through an ordered consumer, so a reconnect resumes where it left
// off. A message that is not a cos event, or an event that does not link
// to the one before it (the stream was deleted and created again), is an
// *eventlog.IntegrityError.
func (l *Log) Follow(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	if err := l.usable(ctx); err != nil {
		return err
	}
	var s jetstream.Stream
	for {
		var err error
		if s, err = l.currentStream(ctx); err != nil {
			return err
		}
		if s != nil {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	// Each event must link to the one before it: the ordered consumer
	// carries on silently into a stream deleted and created again under
	// the same name, whose events do not.
	var prev *eventlog.Head
	if fromSeq <= 1 {
		prev = &eventlog.Head{Hash: eventlog.ZeroHash}
	}
	err := l.consume(ctx, s, max(fromSeq, 1), 0, func(m rawMsg) (bool, error) {
		ev, _, err := decodeMessage(l.opts.Stream, m.subject, m.seq, m.header, m.data)
		if err != nil {
			return false, err
		}
		if prev != nil {
			if err := eventlog.VerifyEvent(&ev, prev.Seq+1, prev.Hash); err != nil {
				return false, err
			}
		}
		prev = &eventlog.Head{Seq: ev.Seq, Hash: ev.Hash}
		return true, fn(ev)
	})
	if errors.Is(err, eventlog.ErrStop) {
		return nil
	}
	return err
}
