package boltlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/atomicfile"
	bolt "go.etcd.io/bbolt"
)

// SalvageReport says what Salvage kept and what it lost.
type SalvageReport struct {
	// Source and Dest are the log read and the log written.
	Source string `json:"source"`
	Dest   string `json:"dest"`
	// Examined is the number of seqs looked at: 1 to the larger of the
	// recorded head and the last stored record.
	Examined uint64 `json:"examined"`
	// Kept is the number of events written to Dest.
	Kept uint64 `json:"kept"`
	// Lost lists every seq of the source not written to Dest, with why, in
	// seq order; empty when the source verified.
	Lost []LostEvent `json:"lost"`
	// Head is Dest's head: its last seq (= Kept) and hash.
	Head eventlog.Head `json:"head"`
}

// LostEvent is one seq Salvage could not keep.
type LostEvent struct {
	Seq    uint64 `json:"seq"`
	Reason string `json:"reason"`
}

// Salvage writes to dest (a new file; ErrDestExists when it exists) a new
// log holding every event of l that still verifies on its own, in their
// original order, and reports exactly which seqs were lost. l is only read,
// under the shared lock, one chunk at a time.
//
// An event is kept when its record decodes (version byte and CRC-32C), it
// holds the seq it is stored under, its hash recomputes from its fields,
// and the next stored event, when that one decodes, names it as its
// prev_hash (a record whose hash was recomputed after a change is caught by
// its successor). A kept event keeps its id, time, stream, type, request
// id, actor and data; its seq, revision, prev_hash and hash are assigned
// anew so that the new log's chain verifies: after the first lost seq,
// every later event moves down by the number of seqs lost before it.
// Allocated-stream counters are copied; request-id receipts are not (a
// retry of an old request id after a restore writes again).
//
// Errors: ErrDestExists, *eventlog.StorageError, ctx's error. A source with
// no events gives an empty log at dest.
func (l *Log) Salvage(ctx context.Context, dest string) (SalvageReport, error) {
	rep := SalvageReport{Source: l.path, Dest: dest, Lost: []LostEvent{}}
	if _, err := os.Lstat(dest); err == nil {
		return rep, fmt.Errorf("%w: %s", ErrDestExists, dest)
	}
	var (
		head eventlog.Head
		// headLost: the meta bucket could not be read, so head is the head
		// file's hint, if any. lastStored is the last seq stored, when the
		// end of the events bucket could be read.
		headLost   bool
		lastStored uint64
		counters   = map[string][]byte{}
	)
	if err := l.viewLenient(ctx, func(tx *bolt.Tx) error {
		// Either may sit on a lost page: the head is then taken from the
		// events that read, and the counters from the events' streams
		// (allocateStream skips a name that exists).
		if p := guarded(func() {
			if meta := tx.Bucket(bucketMeta); meta != nil {
				head = readMetaHead(meta)
			}
		}); p != nil {
			headLost = true
			head = eventlog.Head{Hash: eventlog.ZeroHash}
		}
		_ = guarded(func() {
			if b := tx.Bucket(bucketEvents); b != nil {
				if k, _ := b.Cursor().Last(); len(k) == 8 {
					lastStored = binary.BigEndian.Uint64(k)
				}
			}
		})
		if p := guarded(func() {
			if b := tx.Bucket(bucketCounters); b != nil {
				_ = b.ForEach(func(k, v []byte) error {
					counters[string(k)] = bytes.Clone(v)
					return nil
				})
			}
		}); p != nil {
			clear(counters)
		}
		return nil
	}); err != nil {
		return rep, err
	}
	if headLost {
		if f, err := os.Open(l.path + ".head"); err == nil {
			if h, err := readHeadFile(f); err == nil {
				head = h
			}
			_ = f.Close()
		}
	}
	last := max(head.Seq, lastStored)
	tmp := dest + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, err
	}
	w, err := newLogWriter(tmp)
	if err != nil {
		return rep, &eventlog.StorageError{Op: "create", Path: tmp, Err: err}
	}
	ok := false
	defer func() {
		if !ok {
			_ = w.db.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := w.putCounters(counters); err != nil {
		return rep, &eventlog.StorageError{Op: "write", Path: tmp, Err: err}
	}
	// cand is the last event that verified on its own, waiting for its
	// successor to confirm (or contradict) it.
	var (
		cand    *eventlog.Event
		next    uint64 = 1
		pending []eventlog.Event
	)
	lose := func(seq uint64, reason string) { rep.Lost = append(rep.Lost, LostEvent{Seq: seq, Reason: reason}) }
	settle := func(succ *eventlog.Event) {
		if cand == nil {
			return
		}
		if succ != nil && succ.PrevHash != cand.Hash {
			lose(cand.Seq, fmt.Sprintf("seq %d names another event as its predecessor (prev_hash %s)", succ.Seq, succ.PrevHash))
		} else {
			pending = append(pending, *cand)
		}
		cand = nil
	}
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := w.append(pending)
		pending = pending[:0]
		return err
	}
	for {
		keys, raws, unreadable, err := l.rawChunk(ctx, next, last, l.opts.ReadChunk)
		if err != nil {
			return rep, err
		}
		for i, k := range keys {
			for ; next < k; next++ { // a hole in the keys
				settle(nil)
				lose(next, "no record is stored at this seq")
			}
			next = k + 1
			if reason, bad := unreadable[k]; bad {
				settle(nil)
				lose(k, reason)
				continue
			}
			ev, err := DecodeRecord(raws[i])
			switch {
			case err != nil:
				settle(nil)
				lose(k, err.Error())
				continue
			case ev.Seq != k:
				settle(nil)
				lose(k, fmt.Sprintf("the record holds seq %d", ev.Seq))
				continue
			}
			settle(&ev)
			if got := eventlog.EventHash(&ev); got != ev.Hash {
				lose(k, fmt.Sprintf("hash %s does not match the recomputed %s", ev.Hash, got))
				continue
			}
			cand = &ev
		}
		if len(pending) >= l.opts.ReadChunk {
			if err := flush(); err != nil {
				return rep, &eventlog.StorageError{Op: "write", Path: tmp, Err: err}
			}
		}
		if len(keys) < l.opts.ReadChunk {
			break
		}
	}
	if cand != nil && cand.Seq == head.Seq && cand.Hash != head.Hash {
		lose(cand.Seq, "its hash does not match the recorded head")
		cand = nil
	}
	settle(nil)
	for ; next <= head.Seq; next++ {
		lose(next, "no record is stored at this seq (the recorded head is later)")
	}
	rep.Examined = next - 1
	if headLost && rep.Examined == 0 {
		return rep, damaged("salvage", l.path, "neither its head nor any event can be read")
	}
	if err := flush(); err != nil {
		return rep, &eventlog.StorageError{Op: "write", Path: tmp, Err: err}
	}
	rep.Kept, rep.Head = w.tail.seq, eventlog.Head{Seq: w.tail.seq, Hash: w.tail.hash}
	if err := w.close(); err != nil {
		return rep, &eventlog.StorageError{Op: "close", Path: tmp, Err: err}
	}
	if _, err := os.Lstat(dest); err == nil {
		return rep, fmt.Errorf("%w: %s", ErrDestExists, dest)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return rep, &eventlog.StorageError{Op: "rename", Path: dest, Err: err}
	}
	ok = true
	if err := atomicfile.SyncDir(filepath.Dir(dest)); err != nil {
		return rep, &eventlog.StorageError{Op: "sync folder of", Path: dest, Err: err}
	}
	return rep, nil
}

// rawChunk copies up to n stored records with seq ≥ from, keys and values,
// whatever they hold. It reads a damaged (or truncated) file too: a seq
// whose page cannot be read is returned with its reason in unreadable
// (and no value), and the walk goes on at the next seq, up to last (the
// recorded head; the walk ends at the first unreadable seq past it).
func (l *Log) rawChunk(ctx context.Context, from, last uint64, n int) ([]uint64, [][]byte, map[uint64]string, error) {
	var (
		keys       []uint64
		raws       [][]byte
		unreadable = map[uint64]string{}
	)
	err := l.viewLenient(ctx, func(tx *bolt.Tx) error {
		var b *bolt.Bucket
		if p := guarded(func() { b = tx.Bucket(bucketEvents) }); p != nil {
			for seq := from; seq <= last && len(keys) < n; seq++ {
				keys, raws = append(keys, seq), append(raws, nil)
				unreadable[seq] = fmt.Sprintf("the events bucket cannot be read: %v", p)
			}
			return nil
		}
		if b == nil {
			return nil
		}
		c := b.Cursor()
		var k, v []byte
		want, seek := from, true
		for len(keys) < n {
			p := guarded(func() {
				if seek {
					k, v = c.Seek(seqKey(want))
				} else {
					k, v = c.Next()
				}
			})
			if p != nil {
				if want > last {
					return nil
				}
				keys, raws = append(keys, want), append(raws, nil)
				unreadable[want] = fmt.Sprintf("the page holding it cannot be read: %v", p)
				want, seek = want+1, true
				continue
			}
			if k == nil {
				return nil
			}
			seek = false
			if len(k) != 8 {
				continue
			}
			seq := binary.BigEndian.Uint64(k)
			keys = append(keys, seq)
			raws = append(raws, bytes.Clone(v))
			want = seq + 1
		}
		return nil
	})
	return keys, raws, unreadable, err
}

// logWriter builds a new log file from events whose seq, revision and chain
// it assigns itself.
type logWriter struct {
	db      *bolt.DB
	tail    tail
	streams map[string]streamState
}

// newLogWriter creates an empty log of format FormatVersion at path.
func newLogWriter(path string) (*logWriter, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: boltTimeout})
	if err != nil {
		return nil, err
	}
	w := &logWriter{db: db, tail: tail{hash: eventlog.ZeroHash}, streams: map[string]streamState{}}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keyFormat, []byte{FormatVersion}); err != nil {
			return err
		}
		for _, name := range [][]byte{bucketEvents, bucketStreams, bucketReceipts, bucketByAge, bucketCounters} {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return w, nil
}

func (w *logWriter) putCounters(counters map[string][]byte) error {
	return w.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCounters)
		for k, v := range counters {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// append writes evs after the tail, re-sequenced and re-chained.
func (w *logWriter) append(evs []eventlog.Event) error {
	return w.db.Update(func(tx *bolt.Tx) error {
		events, streams := tx.Bucket(bucketEvents), tx.Bucket(bucketStreams)
		for i := range evs {
			ev := evs[i]
			st := w.streams[ev.Stream]
			ev.Seq = w.tail.seq + 1
			ev.Revision = st.revision + 1
			ev.PrevHash = w.tail.hash
			ev.Hash = eventlog.EventHash(&ev)
			v, err := encodeRecord(&ev)
			if err != nil {
				return err
			}
			if err := events.Put(seqKey(ev.Seq), v); err != nil {
				return err
			}
			st = streamState{revision: ev.Revision, lastSeq: ev.Seq, hash: ev.Hash}
			w.streams[ev.Stream] = st
			if err := putStream(streams, ev.Stream, st); err != nil {
				return err
			}
			w.tail.seq, w.tail.hash = ev.Seq, ev.Hash
		}
		if w.tail.seq == 0 {
			return nil
		}
		return putTail(tx, w.tail)
	})
}

// close fsyncs and closes the file (bbolt fsyncs each commit; Close
// releases it).
func (w *logWriter) close() error { return w.db.Close() }
