package boltlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/atomicfile"
	bolt "go.etcd.io/bbolt"
)

// importChunk is how many events Import writes per transaction.
const importChunk = 4096

// ImportSource is what Import reads: any event log of this module's
// stores, read from seq 1 in seq order, with the receipts it keeps.
type ImportSource interface {
	Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
	eventlog.ReceiptLister
}

// Import writes to dest (a new file; ErrDestExists when it exists) a log
// holding every event of src verbatim: the same seqs, ids, times, streams,
// revisions, types, request ids, actors, data and hashes, so the new log's
// chain is the source's chain and its head hash the source's. Each event is
// checked as it is copied — the seq follows the previous one, prev_hash
// names the previous event's hash, the hash recomputes and the revision
// follows its stream's — and the first that does not is an
// *eventlog.IntegrityError: nothing is left at dest. The file is written
// as dest+".tmp", fsynced and renamed into place, so dest appears whole or
// not at all.
//
// Allocated-stream counters are rebuilt from the stream names (a name
// ending in three or more digits sets its prefix's counter to at least that
// number). src's receipts are copied with their intents, each checked
// against the events it points at (eventlog.ReceiptMatches; one that does
// not match, or points past the events, is an *eventlog.IntegrityError),
// so a retry of a request made before the import replays on the copy.
// progress, when non-nil, is called with the number of events copied
// after each chunk of importChunk.
//
// Errors: ErrDestExists, *eventlog.IntegrityError, *eventlog.StorageError,
// src's errors, ctx's error.
func Import(ctx context.Context, dest string, src ImportSource, progress func(copied uint64)) (eventlog.Head, error) {
	head := eventlog.Head{Hash: eventlog.ZeroHash}
	if err := ctx.Err(); err != nil {
		return head, err
	}
	if _, err := os.Lstat(dest); err == nil {
		return head, fmt.Errorf("%w: %s", ErrDestExists, dest)
	}
	tmp := dest + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return head, &eventlog.StorageError{Op: "remove", Path: tmp, Err: err}
	}
	w, err := newLogWriter(tmp)
	if err != nil {
		return head, &eventlog.StorageError{Op: "create", Path: tmp, Err: err}
	}
	ok := false
	defer func() {
		if !ok {
			_ = w.close()
			_ = os.Remove(tmp)
		}
	}()
	var receipts []eventlog.StoredReceipt
	if err := src.Receipts(ctx, func(r eventlog.StoredReceipt) error { receipts = append(receipts, r); return nil }); err != nil {
		return head, err
	}
	check, err := eventlog.NewReceiptCheck(receipts)
	if err != nil {
		return head, err
	}
	counters := map[string]uint64{}
	batch := make([]eventlog.Event, 0, importChunk)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := w.putVerbatim(batch); err != nil {
			return &eventlog.StorageError{Op: "write", Path: tmp, Err: err}
		}
		batch = batch[:0]
		if progress != nil {
			progress(w.tail.seq)
		}
		return ctx.Err()
	}
	next, prev := uint64(1), eventlog.ZeroHash
	revs := map[string]uint64{}
	err = src.Read(ctx, 1, func(ev eventlog.Event) error {
		if err := eventlog.VerifyEvent(&ev, next, prev); err != nil {
			return err
		}
		if want := revs[ev.Stream] + 1; ev.Revision != want {
			return &eventlog.IntegrityError{Seq: ev.Seq, Reason: fmt.Sprintf("stream %s at revision %d, want %d", ev.Stream, ev.Revision, want)}
		}
		revs[ev.Stream] = ev.Revision
		if prefix, n, ok := allocatedName(ev.Stream); ok && n > counters[prefix] {
			counters[prefix] = n
		}
		if _, _, err := check.Observe(ev); err != nil {
			return err
		}
		next, prev = ev.Seq+1, ev.Hash
		batch = append(batch, ev)
		if len(batch) == importChunk {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = check.Done()
	}
	if err != nil {
		return head, err
	}
	if err := w.putReceipts(receipts); err != nil {
		return head, &eventlog.StorageError{Op: "write receipts", Path: tmp, Err: err}
	}
	raw := make(map[string][]byte, len(counters))
	for p, n := range counters {
		raw[p] = seqKey(n)
	}
	if err := w.putCounters(raw); err != nil {
		return head, &eventlog.StorageError{Op: "write counters", Path: tmp, Err: err}
	}
	head = eventlog.Head{Seq: w.tail.seq, Hash: w.tail.hash}
	if head.Seq == 0 {
		head.Hash = eventlog.ZeroHash
	}
	if err := w.close(); err != nil {
		return head, &eventlog.StorageError{Op: "close", Path: tmp, Err: err}
	}
	if _, err := os.Lstat(dest); err == nil {
		_ = os.Remove(tmp)
		ok = true
		return head, fmt.Errorf("%w: %s", ErrDestExists, dest)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return head, &eventlog.StorageError{Op: "rename", Path: dest, Err: err}
	}
	ok = true
	if err := atomicfile.SyncDir(filepath.Dir(dest)); err != nil {
		return head, &eventlog.StorageError{Op: "sync folder", Path: filepath.Dir(dest), Err: err}
	}
	return head, nil
}

// allocatedName splits a stream name ending in three or more digits into
// the prefix and the number an allocation would have given it.
func allocatedName(name string) (string, uint64, bool) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if len(name)-i < 3 || i == 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(name[i:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return name[:i], n, true
}

// putVerbatim writes evs after the tail as they are (Import has checked
// that they follow it), with the streams' states and the head.
func (w *logWriter) putVerbatim(evs []eventlog.Event) error {
	return w.db.Update(func(tx *bolt.Tx) error {
		events, streams := tx.Bucket(bucketEvents), tx.Bucket(bucketStreams)
		events.FillPercent = 1.0 // keys only ever grow
		touched := map[string]streamState{}
		for i := range evs {
			ev := &evs[i]
			v, err := encodeRecord(ev)
			if err != nil {
				return err
			}
			if err := events.Put(seqKey(ev.Seq), v); err != nil {
				return err
			}
			st := streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
			w.streams[ev.Stream] = st
			touched[ev.Stream] = st
			w.tail.seq, w.tail.hash = ev.Seq, ev.Hash
		}
		for name, st := range touched {
			if err := putStream(streams, name, st); err != nil {
				return err
			}
		}
		if w.tail.seq == 0 {
			return nil
		}
		return putTail(tx, w.tail)
	})
}

// putReceipts writes rs (checked against the events already written) as
// the receipts of the log, created at their receipts' times.
func (w *logWriter) putReceipts(rs []eventlog.StoredReceipt) error {
	if len(rs) == 0 {
		return nil
	}
	return w.db.Update(func(tx *bolt.Tx) error {
		receipts, byAge := tx.Bucket(bucketReceipts), tx.Bucket(bucketByAge)
		for _, r := range rs {
			rec := r.Receipt
			rec.Replayed = false
			v, err := encodeReceipt(r.Intent, rec.Time, rec)
			if err != nil {
				return err
			}
			if err := receipts.Put([]byte(r.RequestID), v); err != nil {
				return err
			}
			if err := byAge.Put(seqKey(rec.FirstSeq), []byte(r.RequestID)); err != nil {
				return err
			}
		}
		w.tail.receipts = uint64(len(rs))
		if w.tail.seq == 0 {
			return nil
		}
		return putTail(tx, w.tail)
	})
}
