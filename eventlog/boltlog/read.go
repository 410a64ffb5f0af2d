package boltlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// Read calls fn for every event from fromSeq (0 and 1 both mean the first)
// to the end of the log, in seq order. It opens the file per chunk of
// Options.ReadChunk events under the shared lock and calls fn outside the
// lock, so a slow fn never holds writers back. fn may return
// eventlog.ErrStop to end early (Read then returns nil); any other error
// ends Read with that error. A record that does not decode, or whose hash
// does not recompute or does not link to the event read before it, is an
// *eventlog.IntegrityError naming its seq, and nothing from it on is read:
// the projections answer from the state before it. The link from fromSeq
// to the event below it, and the head, are Verify's to check.
func (l *Log) Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	if fromSeq == 0 {
		fromSeq = 1
	}
	prev := "" // the hash of the event read before, "" before the first
	for {
		raws, err := l.readChunk(ctx, fromSeq, l.opts.ReadChunk)
		if err != nil {
			return err
		}
		for i, raw := range raws {
			seq := fromSeq + uint64(i)
			ev, err := DecodeRecord(raw)
			if err != nil {
				return &eventlog.IntegrityError{Seq: seq, Reason: err.Error()}
			}
			// A record whose checksum was made valid again after its
			// content changed still fails its hash: nothing from it on is
			// handed out, as with a bad checksum.
			want := prev
			switch {
			case seq == 1:
				want = eventlog.ZeroHash
			case want == "":
				want = ev.PrevHash // the link below fromSeq is Verify's to check
			}
			if err := eventlog.VerifyEvent(&ev, seq, want); err != nil {
				return err
			}
			prev = ev.Hash
			if err := fn(ev); err != nil {
				if errors.Is(err, eventlog.ErrStop) {
					return nil
				}
				return err
			}
		}
		if len(raws) < l.opts.ReadChunk {
			return nil
		}
		fromSeq += uint64(len(raws))
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// readChunk copies up to n consecutive raw records starting at from. The
// records are consecutive seqs; a hole ends the chunk early with an
// *IntegrityError.
func (l *Log) readChunk(ctx context.Context, from uint64, n int) ([][]byte, error) {
	var out [][]byte
	err := l.view(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		want := from
		for k, v := c.Seek(seqKey(from)); k != nil && len(out) < n; k, v = c.Next() {
			if got := binary.BigEndian.Uint64(k); got != want {
				return &eventlog.IntegrityError{Seq: want, Reason: fmt.Sprintf("event missing: the next stored event is seq %d", got)}
			}
			out = append(out, bytes.Clone(v))
			want++
		}
		return nil
	})
	return out, err
}

// Verify walks the hash chain from the first event to the head recorded when
// it starts, checking each record's checksum, seq, prev_hash and hash, and
// that the head matches the last event. It returns the number of events
// verified, or an *eventlog.IntegrityError naming the first bad seq.
func (l *Log) Verify(ctx context.Context) (uint64, error) {
	head, err := l.headFromDB(ctx)
	if err != nil {
		return 0, err
	}
	prev := eventlog.ZeroHash
	var n uint64
	err = l.Read(ctx, 1, func(ev eventlog.Event) error {
		if ev.Seq > head.Seq {
			return eventlog.ErrStop
		}
		if err := eventlog.VerifyEvent(&ev, n+1, prev); err != nil {
			return err
		}
		prev = ev.Hash
		n++
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, checkEnd(n, prev, head)
}

// StreamRevision returns a stream's current revision and entity hash (the
// hash of its last event); revision 0 and "" when it does not exist.
func (l *Log) StreamRevision(ctx context.Context, stream string) (uint64, string, error) {
	var s streamState
	err := l.view(ctx, func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketStreams); b != nil {
			s = getStream(b, stream)
		}
		return nil
	})
	return s.revision, s.hash, err
}

// SeqAt returns the seq of the last event committed at or before t (0 when
// none). Commit times follow seq order within a process; across processes
// clocks may disagree, so the answer is the last seq whose recorded time is
// ≤ t in a forward scan that stops at the first later event.
func (l *Log) SeqAt(ctx context.Context, t time.Time) (uint64, error) {
	var seq uint64
	err := l.Read(ctx, 1, func(ev eventlog.Event) error {
		if ev.Time.After(t) {
			return eventlog.ErrStop
		}
		seq = ev.Seq
		return nil
	})
	return seq, err
}

// LookupReceipt returns the receipt bound to a request id, if one is kept
// (see Options.ReceiptMaxCount and ReceiptMaxAge). Tools that validate a
// write against the current state use it to tell a resend of a write that
// already happened — which must replay (docs/errors.md, "Request ids") —
// from a new write that is invalid now.
func (l *Log) LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error) {
	var (
		rec   eventlog.Receipt
		found bool
	)
	err := l.view(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReceipts)
		if b == nil {
			return nil
		}
		v := b.Get([]byte(requestID))
		if v == nil {
			return nil
		}
		_, r, err := decodeReceipt(v)
		if err != nil {
			return &eventlog.IntegrityError{Reason: fmt.Sprintf("receipt of request_id %q: %v", requestID, err)}
		}
		rec, found = r, true
		return nil
	})
	return rec, found, err
}

// checkEnd checks a walk that read n events, the last with hash prev,
// against the recorded head: an *eventlog.IntegrityError when the log ends
// elsewhere or with another hash, nil when they agree.
func checkEnd(n uint64, prev string, head eventlog.Head) error {
	switch {
	case n != head.Seq:
		return &eventlog.IntegrityError{Seq: n + 1, Reason: fmt.Sprintf("the recorded head is %d but the log ends at %d", head.Seq, n)}
	case head.Seq > 0 && prev != head.Hash:
		return &eventlog.IntegrityError{Seq: head.Seq, Reason: "the recorded head hash does not match the last event"}
	}
	return nil
}

// Receipts calls fn for every receipt the file keeps, oldest first (the
// receipts_by_seq order), with the intent it binds; receipts older than
// the window that no commit has pruned yet are listed too (a replay still
// answers them). The receipts are read in one transaction under the
// shared lock and fn is called after it. A receipt that does not decode
// is an *eventlog.IntegrityError.
func (l *Log) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	var out []eventlog.StoredReceipt
	err := l.view(ctx, func(tx *bolt.Tx) error {
		byAge, receipts := tx.Bucket(bucketByAge), tx.Bucket(bucketReceipts)
		if byAge == nil || receipts == nil {
			return nil
		}
		return byAge.ForEach(func(k, id []byte) error {
			v := receipts.Get(id)
			if v == nil {
				return nil
			}
			intent, rec, err := decodeReceipt(v)
			if err != nil {
				return &eventlog.IntegrityError{Reason: fmt.Sprintf("receipt of request_id %q: %v", id, err)}
			}
			if len(k) != 8 || binary.BigEndian.Uint64(k) != rec.FirstSeq {
				return nil // an older receipt of an id written again
			}
			out = append(out, eventlog.StoredReceipt{RequestID: string(id), Intent: intent, Receipt: rec})
			return nil
		})
	})
	if err != nil {
		return err
	}
	return eventlog.EachReceipt(out, fn)
}

var _ eventlog.ReceiptLister = (*Log)(nil)
