package natslog

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// importWindow is how many messages Import keeps in flight before waiting
// for their acknowledgements.
const importWindow = 256

// ErrNotEmpty is returned by Import when the stream already holds events:
// an import only fills an empty log.
var ErrNotEmpty = errors.New("the target log is not empty")

// ImportSource is what Import reads: any event log (every state.Log is
// one), read from seq 1 in seq order.
type ImportSource interface {
	Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
}

// Import copies every event of src, verbatim — the same seqs, ids, times,
// streams, revisions, types, request ids, actors, data and hashes — into
// the log in the JetStream stream o.Stream at url, which must be empty
// (ErrNotEmpty otherwise; the stream is created when missing, as Open
// does). Each event is checked before it is sent (its seq follows the
// previous one, its prev_hash names the previous hash, its hash
// recomputes) and sent with Nats-Expected-Last-Sequence = its seq - 1, so
// the stream sequence is the event's seq and nothing another writer sends
// meanwhile can interleave: the first message that does not land at its seq
// ends the import with an error, and the stream then holds a verifying
// prefix of src. An allocated stream's name (ending in three or more
// digits) carries its prefix, so later allocations continue after it;
// request-id receipts are not carried over (a retry of a request made
// before the import writes again). progress, when non-nil, is called with
// the number of events acknowledged, every importWindow events and at the
// end. It returns the head of the stream after the import.
//
// Errors: ErrNotEmpty, *eventlog.IntegrityError for a source event that
// does not follow its predecessor, *eventlog.StorageError for a publish
// the server refused or did not acknowledge, Open's errors, ctx's error.
func Import(ctx context.Context, url string, o Options, src ImportSource, progress func(copied uint64)) (eventlog.Head, error) {
	head := eventlog.Head{Hash: eventlog.ZeroHash}
	o.ReadOnly = false
	l, err := Open(ctx, url, o)
	if err != nil {
		return head, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	h, err := l.Head(ctx)
	if err != nil {
		return head, err
	}
	if h.Seq != 0 {
		return h, fmt.Errorf("%w: stream %s holds %d events", ErrNotEmpty, streamName(o), h.Seq)
	}
	nc := o.Conn
	if nc == nil {
		if nc, err = nats.Connect(url, nats.Name("cos import")); err != nil {
			return head, &eventlog.StorageError{Op: "connect", Path: url, Err: err}
		}
		defer nc.Close()
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(importWindow))
	if err != nil {
		return head, &eventlog.StorageError{Op: "jetstream", Path: url, Err: err}
	}
	jsStream := streamName(o)
	var (
		acks    []jetstream.PubAckFuture
		sent    []eventlog.Event
		next    = uint64(1)
		prev    = eventlog.ZeroHash
		revs    = map[string]uint64{}
		acked   uint64
		ackHash = eventlog.ZeroHash
	)
	// wait collects the acknowledgements in flight and checks each landed
	// at its event's seq.
	wait := func() error {
		for i, f := range acks {
			select {
			case ack := <-f.Ok():
				if ack.Stream != jsStream || ack.Sequence != sent[i].Seq {
					return &eventlog.StorageError{Op: "import", Path: url, Err: fmt.Errorf("event %d was stored at %s sequence %d", sent[i].Seq, ack.Stream, ack.Sequence)}
				}
				acked, ackHash = sent[i].Seq, sent[i].Hash
			case err := <-f.Err():
				return &eventlog.StorageError{Op: "import", Path: url, Err: fmt.Errorf("event %d refused: %w", sent[i].Seq, err)}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		acks, sent = acks[:0], sent[:0]
		if progress != nil {
			progress(acked)
		}
		return nil
	}
	err = src.Read(ctx, 1, func(ev eventlog.Event) error {
		if err := eventlog.VerifyEvent(&ev, next, prev); err != nil {
			return err
		}
		if want := revs[ev.Stream] + 1; ev.Revision != want {
			return &eventlog.IntegrityError{Seq: ev.Seq, Reason: fmt.Sprintf("stream %s at revision %d, want %d", ev.Stream, ev.Revision, want)}
		}
		revs[ev.Stream] = ev.Revision
		next, prev = ev.Seq+1, ev.Hash
		m, err := newMessage(jsStream, &ev, recordMeta{prefix: allocationPrefix(ev.Stream, ev.Revision)})
		if err != nil {
			return err
		}
		m.Header.Set(hdrExpLastSeq, strconv.FormatUint(ev.Seq-1, 10))
		f, err := js.PublishMsgAsync(m)
		if err != nil {
			return &eventlog.StorageError{Op: "import", Path: url, Err: fmt.Errorf("send event %d: %w", ev.Seq, err)}
		}
		acks, sent = append(acks, f), append(sent, ev)
		if len(acks) == importWindow {
			return wait()
		}
		return nil
	})
	if werr := wait(); err == nil {
		err = werr
	}
	head = eventlog.Head{Seq: acked, Hash: ackHash}
	return head, err
}

// allocationPrefix is the prefix an allocation would have named a stream
// from ("task:TASK-" for "task:TASK-007"): set on the first event of a
// stream whose name ends in three or more digits, "" otherwise.
func allocationPrefix(name string, revision uint64) string {
	if revision != 1 {
		return ""
	}
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if len(name)-i < 3 || i == 0 {
		return ""
	}
	return name[:i]
}

// streamName is the JetStream stream o names.
func streamName(o Options) string {
	if o.Stream == "" {
		return DefaultStream
	}
	return o.Stream
}
