package natslog

import (
	"context"
	"errors"
	"fmt"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

// ErrNotEmpty is returned by Import when the stream already holds events:
// an import only fills an empty log.
var ErrNotEmpty = errors.New("the target log is not empty")

// ImportSource is what Import reads: any event log of this module's
// stores, read from seq 1 in seq order, with the receipts it keeps.
type ImportSource interface {
	Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
	eventlog.ReceiptLister
}

// Import copies every event of src, verbatim — the same seqs, ids, times,
// streams, revisions, types, request ids, actors, data and hashes — into
// the log in the JetStream stream o.Stream at url, which must be empty
// (ErrNotEmpty otherwise; the stream is created when missing: an import
// into a new stream is the explicit step that creates it). Each event is checked before it is sent (its seq follows the
// previous one, its prev_hash names the previous hash, its hash recomputes,
// its revision follows its stream's). Events go out as atomic batches of
// up to MaxBatchEvents (and MaxBatchBytes), each on condition that the
// stream's last sequence is the seq before its first event, so the stream
// sequence is the event's seq and nothing another writer sends meanwhile
// can interleave: a batch that does not land at its seqs ends the import
// with an error, and the stream then holds a verifying prefix of src.
// src is read twice: first to check every event (its links, and its size
// against the servers' max_payload) before anything is sent, so a source
// that cannot be copied whole leaves the stream empty. An
// allocated stream's name (ending in three or more digits) carries its
// prefix, so later allocations continue after it. src's receipts are
// carried as the first message's Cos-Intent and Cos-Events headers of
// each request, as Append writes them, so a retry of a request made
// before the import replays on the stream; each is checked first against
// the events it points at and its intent against theirs
// (eventlog.ReceiptMatches, eventlog.MatchIntent; one that does not
// match is an *eventlog.IntegrityError and nothing is sent).
// progress, when non-nil, is called with the number of events stored
// after each batch. It returns the head of the stream after the
// import (what was stored, on an error).
//
// Errors: ErrNotEmpty, *eventlog.IntegrityError for a source event that
// does not follow its predecessor, *eventlog.StorageError for a batch the
// server refused (or another writer's commit in between),
// *eventlog.CommitUnknownError when a batch was not acknowledged, Open's
// errors, ctx's error.
func Import(ctx context.Context, url string, o Options, src ImportSource, progress func(copied uint64)) (eventlog.Head, error) {
	head := eventlog.Head{Hash: eventlog.ZeroHash}
	o.ReadOnly, o.Create = false, true
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
		return h, fmt.Errorf("%w: stream %s holds %d events", ErrNotEmpty, l.opts.Stream, h.Seq)
	}
	// Check every event before sending any: a source that cannot be copied
	// whole leaves the stream empty (it refuses purges, and a second
	// import refuses a stream that is not empty).
	metas, err := l.checkImport(ctx, url, src)
	if err != nil {
		return head, err
	}
	var (
		msgs  []*nats.Msg
		bytes int
		last  eventlog.Event // the last event of msgs
		next  = uint64(1)
		prev  = eventlog.ZeroHash
		revs  = map[string]uint64{}
	)
	flush := func() error {
		if len(msgs) == 0 {
			return nil
		}
		expected := last.Seq - uint64(len(msgs))
		if err := l.publish(msgs, expected); err != nil {
			if errors.Is(err, errStale) {
				return &eventlog.StorageError{Op: "import", Path: url, Err: fmt.Errorf("another writer committed to stream %s during the import: %w", l.opts.Stream, err)}
			}
			return err
		}
		head = eventlog.Head{Seq: last.Seq, Hash: last.Hash}
		msgs, bytes = msgs[:0], 0
		if progress != nil {
			progress(head.Seq)
		}
		return ctx.Err()
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
		meta, ok := metas[ev.Seq]
		if !ok {
			meta = recordMeta{prefix: allocationPrefix(ev.Stream, ev.Revision)}
		}
		m, err := newMessage(l.opts.Stream, &ev, meta)
		if err != nil {
			return err
		}
		size := len(m.Data) + len(m.Subject) + 256
		if len(msgs) > 0 && (len(msgs) == l.opts.MaxBatchEvents || bytes+size > l.opts.MaxBatchBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		msgs, bytes, last = append(msgs, m), bytes+size, ev
		return nil
	})
	if err == nil {
		err = flush()
	}
	return head, err
}

// checkImport reads src once, without sending anything, and returns the
// request headers of the messages that start a receipt of src (by seq),
// or the error the import would meet on the way: an
// *eventlog.IntegrityError for an event that does not follow its
// predecessor or a receipt that does not match its events, an
// *eventlog.StorageError for one larger as a message than the servers'
// max_payload.
func (l *Log) checkImport(ctx context.Context, url string, src ImportSource) (map[uint64]recordMeta, error) {
	var receipts []eventlog.StoredReceipt
	if err := src.Receipts(ctx, func(r eventlog.StoredReceipt) error { receipts = append(receipts, r); return nil }); err != nil {
		return nil, err
	}
	check, err := eventlog.NewReceiptCheck(receipts)
	if err != nil {
		return nil, err
	}
	metas := make(map[uint64]recordMeta, len(receipts))
	next, prev := uint64(1), eventlog.ZeroHash
	revs := map[string]uint64{}
	streams := map[string]streamState{}
	limit := int(l.nc.MaxPayload())
	var (
		open   eventlog.StoredReceipt // the receipt whose events are being read
		before streamState
		evs    []eventlog.Payload
	)
	err = src.Read(ctx, 1, func(ev eventlog.Event) error {
		if err := eventlog.VerifyEvent(&ev, next, prev); err != nil {
			return err
		}
		if want := revs[ev.Stream] + 1; ev.Revision != want {
			return &eventlog.IntegrityError{Seq: ev.Seq, Reason: fmt.Sprintf("stream %s at revision %d, want %d", ev.Stream, ev.Revision, want)}
		}
		revs[ev.Stream] = ev.Revision
		next, prev = ev.Seq+1, ev.Hash
		r, starts, err := check.Observe(ev)
		if err != nil {
			return err
		}
		if starts {
			open, before, evs = r, streams[ev.Stream], evs[:0]
		}
		streams[ev.Stream] = streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
		meta := recordMeta{prefix: allocationPrefix(ev.Stream, ev.Revision)}
		if starts {
			meta.hasIntent, meta.intent, meta.count = true, r.Intent, int(r.Receipt.LastSeq-r.Receipt.FirstSeq+1)
		}
		if open.RequestID != "" {
			evs = append(evs, eventlog.Payload{Type: ev.Type, Data: ev.Data})
			if ev.Seq == open.Receipt.LastSeq {
				prefix, ok, err := eventlog.MatchIntent(open.Intent, eventlog.Committed{Stream: ev.Stream, Before: before.revision, BeforeHash: before.hash, Events: evs})
				if err != nil || !ok {
					return &eventlog.IntegrityError{Seq: open.Receipt.FirstSeq, Reason: fmt.Sprintf("the intent of request_id %q's receipt does not match its events", open.RequestID)}
				}
				if prefix == "" {
					prefix = allocationPrefix(ev.Stream, before.revision+1)
				}
				metas[open.Receipt.FirstSeq] = recordMeta{hasIntent: true, intent: open.Intent, count: len(evs), prefix: prefix}
				open = eventlog.StoredReceipt{}
			}
		}
		m, err := newMessage(l.opts.Stream, &ev, meta)
		if err != nil {
			return err
		}
		// The batch headers and the expected sequence added on sending.
		if size := msgSize(m) + 256; size > limit {
			return &eventlog.StorageError{Op: "import", Path: url, Err: fmt.Errorf(
				"event seq %d is %d bytes as a message, more than the NATS servers accept (max_payload %d); nothing was copied: "+
					"raise max_payload in every server's configuration (max_payload: 2MB covers any cos event) and run the import again",
				ev.Seq, size, limit)}
		}
		return nil
	})
	if err == nil {
		err = check.Done()
	}
	return metas, err
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
