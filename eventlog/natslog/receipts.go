package natslog

import (
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
}

type receiptEntry struct {
	intent  [32]byte
	receipt eventlog.Receipt
	// remaining counts the request's events still to come while the
	// index is being built message by message.
	remaining int
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
// its message.
func (r *receiptIndex) observe(ev *eventlog.Event, meta recordMeta) {
	if ev.RequestID == "" {
		return
	}
	if meta.hasIntent {
		e := &receiptEntry{intent: meta.intent, remaining: meta.count - 1, receipt: eventlog.Receipt{
			Stream: ev.Stream, FirstSeq: ev.Seq, LastSeq: ev.Seq, Revision: ev.Revision,
			IDs: []string{ev.ID}, Hashes: []string{ev.Hash}, Time: ev.Time,
		}}
		r.byID[ev.RequestID] = e
		r.order = append(r.order, orderKey{ev.RequestID, ev.Seq})
		return
	}
	e, ok := r.byID[ev.RequestID]
	if !ok || e.remaining == 0 || e.receipt.LastSeq+1 != ev.Seq {
		return
	}
	e.remaining--
	e.receipt.LastSeq, e.receipt.Revision = ev.Seq, ev.Revision
	e.receipt.IDs = append(e.receipt.IDs, ev.ID)
	e.receipt.Hashes = append(e.receipt.Hashes, ev.Hash)
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
