package eventlog

import (
	"context"
	"errors"
	"fmt"
)

// StoredReceipt is a request id's receipt as a log keeps it: the id, the
// canonical intent hash it binds (Prepared.Intent) and the receipt a
// replay answers. It is what a copy of the log (cos migrate) carries
// beside the events, so that a retry of a request made before the copy
// replays on the copy.
type StoredReceipt struct {
	RequestID string
	Intent    [32]byte
	Receipt   Receipt
}

// ReceiptLister is a log that lists the receipts it keeps: every
// eventlog.Log of this module's stores (boltlog, natslog) is one.
type ReceiptLister interface {
	// Receipts calls fn for each receipt the log keeps, oldest first
	// (by first seq), until fn returns an error (returned; ErrStop ends
	// the listing with nil).
	Receipts(ctx context.Context, fn func(StoredReceipt) error) error
}

// EachReceipt calls fn for each of rs in order, as ReceiptLister.Receipts
// does: until fn returns an error, which it returns (ErrStop: nil).
func EachReceipt(rs []StoredReceipt, fn func(StoredReceipt) error) error {
	for _, r := range rs {
		if err := fn(r); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// ReceiptMatches reports whether r is the receipt of the request that
// wrote evs, the events at r.Receipt.FirstSeq…LastSeq in order: every one
// under r.RequestID on r.Receipt.Stream, with the receipt's ids, hashes and
// last revision. A copy checks each receipt against the events it copies
// with it.
func ReceiptMatches(r StoredReceipt, evs []Event) bool {
	rec := r.Receipt
	if len(evs) == 0 || uint64(len(evs)) != rec.LastSeq-rec.FirstSeq+1 || rec.LastSeq < rec.FirstSeq ||
		len(rec.IDs) != len(evs) || len(rec.Hashes) != len(evs) || evs[len(evs)-1].Revision != rec.Revision {
		return false
	}
	for i, ev := range evs {
		if ev.Seq != rec.FirstSeq+uint64(i) || ev.RequestID != r.RequestID || ev.Stream != rec.Stream ||
			ev.ID != rec.IDs[i] || ev.Hash != rec.Hashes[i] {
			return false
		}
	}
	return true
}

// ReceiptCheck checks receipts against the events of a copy as they pass,
// in seq order: each receipt must match its events (ReceiptMatches) and
// lie within the events copied. Not safe for concurrent use.
type ReceiptCheck struct {
	bySeq map[uint64]StoredReceipt
	cur   *StoredReceipt
	evs   []Event
	left  int // receipts not yet matched
}

// NewReceiptCheck returns the check of rs, or an *IntegrityError when two
// receipts name one request id or start at one seq.
func NewReceiptCheck(rs []StoredReceipt) (*ReceiptCheck, error) {
	c := &ReceiptCheck{bySeq: make(map[uint64]StoredReceipt, len(rs)), left: len(rs)}
	ids := make(map[string]bool, len(rs))
	for _, r := range rs {
		if ids[r.RequestID] {
			return nil, &IntegrityError{Seq: r.Receipt.FirstSeq, Reason: fmt.Sprintf("two receipts of request_id %q", r.RequestID)}
		}
		if _, dup := c.bySeq[r.Receipt.FirstSeq]; dup {
			return nil, &IntegrityError{Seq: r.Receipt.FirstSeq, Reason: "two receipts start at this seq"}
		}
		ids[r.RequestID] = true
		c.bySeq[r.Receipt.FirstSeq] = r
	}
	return c, nil
}

// Observe takes the next event of the copy. It returns the receipt whose
// first event ev is (ok true), and an *IntegrityError naming the receipt
// whose events ev ends, when they do not match it.
func (c *ReceiptCheck) Observe(ev Event) (StoredReceipt, bool, error) {
	if c.cur != nil {
		c.evs = append(c.evs, ev)
		if err := c.finish(ev.Seq); err != nil {
			return StoredReceipt{}, false, err
		}
		return StoredReceipt{}, false, nil
	}
	r, ok := c.bySeq[ev.Seq]
	if !ok {
		return r, false, nil
	}
	c.cur, c.evs = &r, append(c.evs[:0], ev)
	return r, true, c.finish(ev.Seq)
}

func (c *ReceiptCheck) finish(seq uint64) error {
	r := c.cur
	if seq < r.Receipt.LastSeq {
		return nil
	}
	c.cur = nil
	c.left--
	if !ReceiptMatches(*r, c.evs) {
		return &IntegrityError{Seq: r.Receipt.FirstSeq, Reason: fmt.Sprintf("the receipt of request_id %q does not match the events at seqs %d–%d", r.RequestID, r.Receipt.FirstSeq, r.Receipt.LastSeq)}
	}
	return nil
}

// Done returns an *IntegrityError when some receipt was not matched: it
// points past the events copied.
func (c *ReceiptCheck) Done() error {
	if c.left == 0 {
		return nil
	}
	return &IntegrityError{Reason: fmt.Sprintf("%d receipts point past the events copied", c.left)}
}
