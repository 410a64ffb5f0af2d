package boltlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// maxPrunePerTx bounds the receipts one transaction prunes, so pruning never
// makes one commit slow.
const maxPrunePerTx = 1024

// tail is the chain position inside one write transaction.
type tail struct {
	seq  uint64
	hash string
	// receipts is the number of receipts kept.
	receipts uint64
}

// outcome is what the transaction decided for one item.
type outcome struct {
	receipt eventlog.Receipt
	events  []eventlog.Event
	err     error
}

// commit runs one write transaction for a batch and delivers the results.
func (l *Log) commit(batch []*pending) {
	outcomes, committed, err := l.transact(batch)
	for bi, p := range batch {
		for ii, it := range p.items {
			r := &p.Results[it.index]
			switch {
			case err != nil && outcomes == nil:
				r.Err = err
			case err != nil: // commit failed after the items were decided
				if o := outcomes[bi][ii]; o.err != nil {
					r.Err = o.err
				} else {
					r.Err = &eventlog.CommitUnknownError{Err: err}
				}
			default:
				r.Receipt, r.Err = outcomes[bi][ii].receipt, outcomes[bi][ii].err
			}
		}
	}
	if err == nil && len(committed) > 0 && l.opts.OnCommit != nil {
		l.opts.OnCommit(committed)
	}
	for _, p := range batch {
		p.Settle()
	}
}

// transact opens the file under the exclusive lock and decides every item of
// the batch in one bbolt transaction. It returns the per-item outcomes (nil
// when the batch failed before any item was decided) and the events written.
func (l *Log) transact(batch []*pending) ([][]outcome, []eventlog.Event, error) {
	release, err := l.lock.lockWith(context.Background(), l.wlock, true)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	var (
		outcomes  [][]outcome
		committed []eventlog.Event
		decided   bool
		head      eventlog.Head
	)
	now := l.opts.Now().UTC()
	var txErr error
	openErr := withDB("open", l.path, bolt.Options{Timeout: boltTimeout}, false, func(db *bolt.DB) error {
		txErr = db.Update(func(tx *bolt.Tx) error {
			t, err := loadTail(tx, l.path, &l.tailSeen)
			if err != nil {
				return err
			}
			if err := l.behind(tx, t); err != nil {
				return err
			}
			outcomes = make([][]outcome, len(batch))
			for bi, p := range batch {
				outcomes[bi] = make([]outcome, len(p.items))
				for ii, it := range p.items {
					o, err := l.applyItem(tx, &t, it.prep, now)
					if err != nil {
						return err // storage failure: the whole transaction rolls back
					}
					outcomes[bi][ii] = o
					committed = append(committed, o.events...)
				}
			}
			decided = true
			if err := l.pruneReceipts(tx, &t, now); err != nil {
				return err
			}
			head = eventlog.Head{Seq: t.seq, Hash: t.hash}
			return putTail(tx, t)
		})
		return nil
	})
	if openErr != nil {
		// Not opened, or bbolt panicked on a damaged page (the transaction
		// rolled back): nothing was written.
		l.tailSeen = tailMark{}
		return nil, nil, openErr
	}
	if txErr == nil {
		l.written = head
	}
	if txErr == nil && l.pendingMark.seq == head.Seq {
		l.tailSeen = l.pendingMark
	} else if txErr != nil {
		l.tailSeen = tailMark{} // verify from scratch next time
	}
	switch {
	case txErr == nil:
	case errors.Is(txErr, eventlog.ErrIntegrity), errors.Is(txErr, eventlog.ErrFormat):
		return nil, nil, txErr
	case !decided:
		return nil, nil, &eventlog.StorageError{Op: "append", Path: l.path, Err: txErr}
	default:
		// Every item was decided, so the error came from writing or syncing
		// the transaction: whether it reached the disk is unknown.
		return outcomes, nil, &eventlog.StorageError{Op: "commit", Path: l.path, Err: txErr}
	}
	l.stats.transactions.Add(1)
	l.stats.events.Add(uint64(len(committed)))
	for _, p := range batch {
		l.stats.requests.Add(uint64(len(p.items)))
	}
	if err := writeHeadFile(l.headf, head); err != nil {
		l.opts.Logger.Warn("eventlog: head file not rewritten; readers fall back to the database", "path", l.path, "err", err)
	}
	return outcomes, committed, nil
}

// behind returns the *eventlog.IntegrityError of a log file that does not
// hold this handle's last commit (l.written): it ends before it, or holds
// another event at its seq. The file was replaced while the handle was
// open — an older copy put back — and writing on would hand out the seqs,
// and the task names, of events already acknowledged. nil otherwise (and
// before the first commit).
func (l *Log) behind(tx *bolt.Tx, t tail) error {
	w := l.written
	if w.Seq == 0 {
		return nil
	}
	if t.seq < w.Seq {
		return &eventlog.IntegrityError{Seq: t.seq + 1, Reason: fmt.Sprintf(
			"the log ends at seq %d, and this process wrote it up to seq %d: the file was replaced (by an older copy?)", t.seq, w.Seq)}
	}
	hash := t.hash
	if t.seq > w.Seq { // others wrote since: one record to read, in place
		ev, err := recordEvent(tx.Bucket(bucketEvents).Get(seqKey(w.Seq)), w.Seq)
		if err != nil {
			return err
		}
		hash = ev.Hash
	}
	if hash != w.Hash {
		return &eventlog.IntegrityError{Seq: w.Seq, Reason: fmt.Sprintf(
			"the log holds another event at seq %d than this process wrote there: the file was replaced", w.Seq)}
	}
	return nil
}

// tailMark identifies the last record a committer verified or wrote: its
// seq, hash and the CRC-32C of its JSON body.
type tailMark struct {
	seq  uint64
	hash string
	crc  uint32
}

// loadTail reads the chain head from the meta bucket and verifies the last
// event against it; a broken tail refuses the write (eventlog.ErrIntegrity). When the
// head is still the record seen (same seq, hash and record CRC), nobody has
// written since and the JSON decode is skipped — the body's CRC is still
// recomputed, so a flipped byte is caught; seen is updated either way.
func loadTail(tx *bolt.Tx, path string, seen *tailMark) (tail, error) {
	meta := tx.Bucket(bucketMeta)
	events := tx.Bucket(bucketEvents)
	if meta == nil || events == nil {
		return tail{}, fmt.Errorf("%w: %s lacks its buckets", eventlog.ErrFormat, path)
	}
	if err := checkFormat(meta, path); err != nil {
		return tail{}, err
	}
	h := readMetaHead(meta)
	t := tail{seq: h.Seq, hash: h.Hash}
	if v := meta.Get(keyReceipts); len(v) == 8 {
		t.receipts = binary.BigEndian.Uint64(v)
	}
	k, v := events.Cursor().Last()
	if h.Seq == 0 {
		if k != nil {
			return t, &eventlog.IntegrityError{Seq: binary.BigEndian.Uint64(k), Reason: "events exist beyond the recorded head 0"}
		}
		return t, nil
	}
	if k == nil || binary.BigEndian.Uint64(k) != h.Seq {
		return t, &eventlog.IntegrityError{Seq: h.Seq, Reason: fmt.Sprintf("the last stored event is not the recorded head %d", h.Seq)}
	}
	if len(v) >= 5 && seen.seq == h.Seq && seen.hash == h.Hash && crc32.Checksum(v[5:], castagnoli) == seen.crc {
		return t, nil
	}
	ev, err := DecodeRecord(v)
	if err != nil {
		return t, &eventlog.IntegrityError{Seq: h.Seq, Reason: err.Error()}
	}
	if got := eventlog.EventHash(&ev); got != ev.Hash || ev.Hash != h.Hash || ev.Seq != h.Seq {
		return t, &eventlog.IntegrityError{Seq: h.Seq, Reason: "the last event does not match its hash or the recorded head"}
	}
	*seen = tailMark{seq: h.Seq, hash: h.Hash, crc: binary.BigEndian.Uint32(v[1:5])}
	return t, nil
}

func putTail(tx *bolt.Tx, t tail) error {
	meta := tx.Bucket(bucketMeta)
	v := make([]byte, 40)
	binary.BigEndian.PutUint64(v[:8], t.seq)
	raw, err := hex.DecodeString(t.hash)
	if err != nil || len(raw) != 32 {
		return fmt.Errorf("head hash %q is not 32 bytes of hex", t.hash)
	}
	copy(v[8:], raw)
	if err := meta.Put(keyHead, v); err != nil {
		return err
	}
	c := make([]byte, 8)
	binary.BigEndian.PutUint64(c, t.receipts)
	return meta.Put(keyReceipts, c)
}

// streamState is the value of a stream's key in the streams bucket:
// revision, seq of the last event, hash of the last event (8+8+32 bytes).
type streamState struct {
	revision uint64
	lastSeq  uint64
	hash     string
}

func getStream(b *bolt.Bucket, name string) streamState {
	v := b.Get([]byte(name))
	if len(v) != 48 {
		return streamState{}
	}
	return streamState{
		revision: binary.BigEndian.Uint64(v[:8]),
		lastSeq:  binary.BigEndian.Uint64(v[8:16]),
		hash:     hex.EncodeToString(v[16:48]),
	}
}

func putStream(b *bolt.Bucket, name string, s streamState) error {
	v := make([]byte, 48)
	binary.BigEndian.PutUint64(v[:8], s.revision)
	binary.BigEndian.PutUint64(v[8:16], s.lastSeq)
	raw, _ := hex.DecodeString(s.hash)
	copy(v[16:], raw)
	return b.Put([]byte(name), v)
}

// applyItem decides one request inside the transaction. A returned error is
// a storage failure that aborts the transaction; a request-level failure is
// in outcome.err.
func (l *Log) applyItem(tx *bolt.Tx, t *tail, p eventlog.Prepared, now time.Time) (outcome, error) {
	req := p.Request
	receipts := tx.Bucket(bucketReceipts)
	if req.RequestID != "" {
		if v := receipts.Get([]byte(req.RequestID)); v != nil {
			intent, rec, err := decodeReceipt(v)
			if err != nil {
				return outcome{err: &eventlog.IntegrityError{Reason: fmt.Sprintf("receipt of request_id %q: %v", req.RequestID, err)}}, nil
			}
			if intent != p.Intent {
				return outcome{err: &eventlog.RequestReuseError{RequestID: req.RequestID, Original: rec}}, nil
			}
			rec.Replayed = true
			return outcome{receipt: rec}, nil
		}
	}
	streams := tx.Bucket(bucketStreams)
	name := req.Stream
	if name == "" {
		var err error
		if name, err = allocateStream(tx, streams, req.StreamPrefix); err != nil {
			return outcome{}, err
		}
	}
	cur := getStream(streams, name)
	if (req.Expect.IsSet() && req.Expect.Revision() != cur.revision) ||
		(req.ExpectedHash != "" && req.ExpectedHash != cur.hash) {
		return outcome{err: &eventlog.StaleRevisionError{
			Stream: name, Expected: req.Expect, ExpectedHash: req.ExpectedHash,
			Current: cur.revision, CurrentHash: cur.hash,
		}}, nil
	}
	events := tx.Bucket(bucketEvents)
	events.FillPercent = 1.0 // keys only ever grow
	actor := l.actor
	if req.Client != "" {
		actor.Client = req.Client
	}
	rec := eventlog.Receipt{Stream: name, FirstSeq: t.seq + 1, Time: now}
	out := outcome{}
	for _, pl := range p.Events {
		ev := eventlog.Event{
			Seq:       t.seq + 1,
			ID:        l.newID(now),
			Time:      now,
			Stream:    name,
			Revision:  cur.revision + 1,
			Type:      pl.Type,
			RequestID: req.RequestID,
			Actor:     actor,
			Data:      pl.Data,
			PrevHash:  t.hash,
		}
		ev.Hash = eventlog.EventHash(&ev)
		v, err := encodeRecord(&ev)
		if err != nil {
			return outcome{}, err
		}
		if err := events.Put(seqKey(ev.Seq), v); err != nil {
			return outcome{}, err
		}
		l.pendingMark = tailMark{seq: ev.Seq, hash: ev.Hash, crc: binary.BigEndian.Uint32(v[1:5])}
		t.seq, t.hash = ev.Seq, ev.Hash
		cur = streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
		rec.IDs = append(rec.IDs, ev.ID)
		rec.Hashes = append(rec.Hashes, ev.Hash)
		out.events = append(out.events, ev)
	}
	if err := putStream(streams, name, cur); err != nil {
		return outcome{}, err
	}
	rec.LastSeq, rec.Revision = t.seq, cur.revision
	if req.RequestID != "" {
		v, err := encodeReceipt(p.Intent, now, rec)
		if err != nil {
			return outcome{}, err
		}
		if err := receipts.Put([]byte(req.RequestID), v); err != nil {
			return outcome{}, err
		}
		if err := tx.Bucket(bucketByAge).Put(seqKey(rec.FirstSeq), []byte(req.RequestID)); err != nil {
			return outcome{}, err
		}
		t.receipts++
	}
	out.receipt = rec
	return out, nil
}

// allocateStream returns prefix + the next free counter value of at least
// three digits, advancing the prefix's counter.
func allocateStream(tx *bolt.Tx, streams *bolt.Bucket, prefix string) (string, error) {
	counters := tx.Bucket(bucketCounters)
	var n uint64
	if v := counters.Get([]byte(prefix)); len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	var name string
	for {
		n++
		name = fmt.Sprintf("%s%03d", prefix, n)
		if streams.Get([]byte(name)) == nil {
			break
		}
	}
	if err := counters.Put([]byte(prefix), seqKey(n)); err != nil {
		return "", err
	}
	return name, nil
}

// A receipt value: intent hash (32 bytes), creation time in Unix
// nanoseconds (8 bytes), receipt JSON.
func encodeReceipt(intent [32]byte, created time.Time, rec eventlog.Receipt) ([]byte, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	v := make([]byte, 40, 40+len(body))
	copy(v, intent[:])
	binary.BigEndian.PutUint64(v[32:40], uint64(created.UnixNano()))
	return append(v, body...), nil
}

func decodeReceipt(v []byte) ([32]byte, eventlog.Receipt, error) {
	var intent [32]byte
	var rec eventlog.Receipt
	if len(v) < 40 {
		return intent, rec, fmt.Errorf("receipt of %d bytes is too short", len(v))
	}
	copy(intent[:], v[:32])
	err := json.NewDecoder(bytes.NewReader(v[40:])).Decode(&rec)
	return intent, rec, err
}

// pruneReceipts drops the oldest receipts while more than ReceiptMaxCount
// are kept or the oldest is older than ReceiptMaxAge, at most maxPrunePerTx
// per transaction.
func (l *Log) pruneReceipts(tx *bolt.Tx, t *tail, now time.Time) error {
	byAge := tx.Bucket(bucketByAge)
	receipts := tx.Bucket(bucketReceipts)
	c := byAge.Cursor()
	for n := 0; n < maxPrunePerTx; n++ {
		k, id := c.First()
		if k == nil {
			return nil
		}
		over := t.receipts > uint64(l.opts.ReceiptMaxCount)
		if !over {
			v := receipts.Get(id)
			if len(v) >= 40 {
				created := time.Unix(0, int64(binary.BigEndian.Uint64(v[32:40])))
				if now.Sub(created) <= l.opts.ReceiptMaxAge {
					return nil
				}
			}
		}
		if err := receipts.Delete(bytes.Clone(id)); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
		if t.receipts > 0 {
			t.receipts--
		}
	}
	return nil
}
