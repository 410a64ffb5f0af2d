package natslog

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// receiptIndex holds the receipts of the request ids committed within the
// receipt window, built from the log itself: the first message of a
// request with a request id carries its canonical intent and event count
// (doc.go, "Receipts"). Every handle builds it as it reads the stream, so a
// receipt is committed atomically with its events and outlives the
// server's Nats-Msg-Id window. It is not safe for concurrent use (the
// Log's model lock guards it).
type receiptIndex struct {
	window   time.Duration
	maxCount int
	byID     map[string]*receiptEntry
	// order lists the entries oldest first, for pruning; an id whose
	// receipt was pruned and written again appears twice, and only the
	// entry with the same first seq is live.
	order []orderKey
	start int // order[:start] is pruned
	// pending is the receipt of the request whose messages are being
	// read, nil between requests.
	pending *building
}

type receiptEntry struct {
	intent  [32]byte
	receipt eventlog.Receipt
}

// building is the receipt of a request whose messages are still being
// read: it becomes live once all count of them are read and its intent
// matches its events.
type building struct {
	id     string
	entry  receiptEntry
	count  int
	before streamState // the stream before the request
	// events are the request's events so far, for the intent check; nil
	// when the intent needs no check (a request this handle decided).
	events []eventlog.Payload
	check  bool
}

type orderKey struct {
	id       string
	firstSeq uint64
}

func newReceiptIndex(window time.Duration, maxCount int) receiptIndex {
	return receiptIndex{window: window, maxCount: maxCount, byID: map[string]*receiptEntry{}}
}

// lookup returns the live receipt of id.
func (r *receiptIndex) lookup(id string) (*receiptEntry, bool) {
	e, ok := r.byID[id]
	return e, ok
}

// observe records ev, committed at its seq, with the request metadata of
// its message; before is ev's stream as it was before ev. A request's
// receipt becomes live with its last event, and only when the intent its
// first message carries matches its events (eventlog.MatchIntent): a
// message published by anything but cos can carry any Cos-Intent header,
// and a receipt with a forged intent would answer a later request with
// that id "replayed" without writing it. Such a receipt, or one whose
// events stop short of its count, is dropped and reported to logf.
func (r *receiptIndex) observe(ev *eventlog.Event, meta recordMeta, before streamState, logf func(msg string, args ...any)) {
	if b := r.pending; b != nil {
		if !meta.hasIntent && ev.RequestID == b.id && ev.Seq == b.entry.receipt.LastSeq+1 && ev.Stream == b.entry.receipt.Stream {
			b.entry.receipt.LastSeq, b.entry.receipt.Revision = ev.Seq, ev.Revision
			b.entry.receipt.IDs = append(b.entry.receipt.IDs, ev.ID)
			b.entry.receipt.Hashes = append(b.entry.receipt.Hashes, ev.Hash)
			if b.check {
				b.events = append(b.events, eventlog.Payload{Type: ev.Type, Data: ev.Data})
			}
			if len(b.entry.receipt.IDs) == b.count {
				r.finish(logf)
			}
			return
		}
		r.pending = nil
		logf("eventlog: a request's receipt ends before its events do; it is not kept", "request_id", b.id, "first_seq", b.entry.receipt.FirstSeq, "events", len(b.entry.receipt.IDs), "want", b.count)
	}
	if ev.RequestID == "" || !meta.hasIntent {
		return
	}
	b := &building{id: ev.RequestID, count: meta.count, before: before, check: !meta.decided,
		entry: receiptEntry{intent: meta.intent, receipt: eventlog.Receipt{
			Stream: ev.Stream, FirstSeq: ev.Seq, LastSeq: ev.Seq, Revision: ev.Revision,
			IDs: []string{ev.ID}, Hashes: []string{ev.Hash}, Time: ev.Time,
		}}}
	if b.check {
		b.events = []eventlog.Payload{{Type: ev.Type, Data: ev.Data}}
	}
	r.pending = b
	if b.count == 1 {
		r.finish(logf)
	}
}

// finish makes the pending receipt live when its intent matches its
// events.
func (r *receiptIndex) finish(logf func(msg string, args ...any)) {
	b := r.pending
	r.pending = nil
	if b.check {
		_, ok, err := eventlog.MatchIntent(b.entry.intent, eventlog.Committed{
			Stream: b.entry.receipt.Stream, Before: b.before.revision, BeforeHash: b.before.hash, Events: b.events,
		})
		if !ok {
			logf("eventlog: a message's Cos-Intent header does not match its events (not written by cos?); its request id keeps no receipt",
				"request_id", b.id, "seq", b.entry.receipt.FirstSeq, "err", err)
			return
		}
	}
	r.put(b.id, b.entry)
}

// put makes e the live receipt of id.
func (r *receiptIndex) put(id string, e receiptEntry) {
	r.byID[id] = &e
	r.order = append(r.order, orderKey{id, e.receipt.FirstSeq})
}

// prune drops the oldest receipts while more than maxCount are kept or the
// oldest is older than the window at now.
func (r *receiptIndex) prune(now time.Time) {
	i := r.start
	for ; i < len(r.order); i++ {
		k := r.order[i]
		e, ok := r.byID[k.id]
		if !ok || e.receipt.FirstSeq != k.firstSeq {
			continue // superseded
		}
		if len(r.byID) <= r.maxCount && now.Sub(e.receipt.Time) <= r.window {
			break
		}
		delete(r.byID, k.id)
	}
	r.start = i
	if r.start > 1024 && r.start > len(r.order)/2 {
		r.order = append(r.order[:0], r.order[r.start:]...)
		r.start = 0
	}
}

// Receipts calls fn for every receipt the handle keeps within the receipt
// window, oldest first, after reading what other handles committed (as
// LookupReceipt does). fn is called without the handle's lock held.
func (l *Log) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	if err := l.usable(ctx); err != nil {
		return err
	}
	if _, err := l.currentStream(ctx); err != nil {
		return err
	}
	l.smu.Lock()
	if err := l.catchUpLocked(ctx); err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
		l.smu.Unlock()
		return err
	}
	out := l.m.receipts.list()
	l.smu.Unlock()
	return eventlog.EachReceipt(out, fn)
}

var _ eventlog.ReceiptLister = (*Log)(nil)

// list returns the live receipts, oldest first, as copies.
func (r *receiptIndex) list() []eventlog.StoredReceipt {
	out := make([]eventlog.StoredReceipt, 0, len(r.byID))
	for _, k := range r.order[r.start:] {
		e, ok := r.byID[k.id]
		if !ok || e.receipt.FirstSeq != k.firstSeq {
			continue
		}
		rec := e.receipt
		rec.IDs, rec.Hashes = slices.Clone(rec.IDs), slices.Clone(rec.Hashes)
		out = append(out, eventlog.StoredReceipt{RequestID: k.id, Intent: e.intent, Receipt: rec})
	}
	return out
}
