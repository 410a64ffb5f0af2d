package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cos-dev/cos/graph"
)

// Defaults of Options.FlushDelay and Options.MaxStaged.
const (
	// DefaultFlushDelay: staged batches are written at most this long after
	// the first of them, as one bleve batch.
	DefaultFlushDelay = 50 * time.Millisecond
	// DefaultMaxStaged: a Stage leaving this many uids staged writes them at
	// once.
	DefaultMaxStaged = 20_000
)

// Stage is Apply without the wait: the upserts, deletes and checkpoint seq
// are merged into what is staged (a later stage of a uid replaces an
// earlier one; a uid in both lists ends deleted) and written as one bleve
// batch when FlushDelay has passed, when MaxStaged uids are staged, before
// any search, Apply, docCount or Flush, and on Close. Checkpoint moves only
// when the batch is written. A write that fails is logged and dropped, as a
// failed Apply is: the log is the truth, and a restart replays from
// Checkpoint.
//
// Stage returns ErrSeqBackwards when seq is below the staged or written
// checkpoint, ErrClosed after Close, ctx's error when ctx has ended, and the
// write's error when Stage wrote (MaxStaged reached, or FlushDelay < 0).
func (ix *Index) Stage(ctx context.Context, upserts []graph.Node, deletes []string, seq uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	if err := ix.checkSeq(seq); err != nil {
		return err
	}
	ix.stageLocked(upserts, deletes, seq)
	if ix.flushDelay < 0 || len(ix.staged) >= ix.maxStaged {
		return ix.flushLocked()
	}
	select {
	case ix.kick <- struct{}{}:
	default: // the flusher is already due to write
	}
	return nil
}

// Flush writes what is staged now. It returns ErrClosed after Close and the
// write's error.
func (ix *Index) Flush() error {
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	if ix.closed() {
		return ErrClosed
	}
	return ix.flushLocked()
}

// flushStaged writes what is staged, if anything: searches call it first
// so that they see every batch staged before them.
func (ix *Index) flushStaged() error {
	if !ix.hasStaged.Load() {
		return nil
	}
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	return ix.flushLocked()
}

// checkSeq reports ErrClosed after Close and ErrSeqBackwards when seq is
// below the checkpoint written or staged. applyMu must be held.
func (ix *Index) checkSeq(seq uint64) error {
	if ix.closed() {
		return ErrClosed
	}
	cur := ix.seq.Load()
	if ix.hasStaged.Load() {
		cur = max(cur, ix.stagedSeq)
	}
	if seq < cur {
		return fmt.Errorf("apply at seq %d: %w (%d)", seq, ErrSeqBackwards, cur)
	}
	return nil
}

// closed reports whether Close has closed the index.
func (ix *Index) closed() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.bi == nil
}

// stageLocked merges a batch into staged. applyMu must be held.
func (ix *Index) stageLocked(upserts []graph.Node, deletes []string, seq uint64) {
	for _, n := range upserts {
		ix.staged[n.UID] = &n
	}
	for _, uid := range deletes {
		ix.staged[uid] = nil
	}
	ix.stagedSeq = seq
	ix.hasStaged.Store(true)
}

// flushLocked writes staged as one batch with its checkpoint and empties
// it, whether the write succeeds or not. applyMu must be held.
func (ix *Index) flushLocked() error {
	if !ix.hasStaged.Load() {
		return nil
	}
	staged, seq := ix.staged, ix.stagedSeq
	ix.staged, ix.stagedSeq = make(map[string]*graph.Node, len(staged)), 0
	ix.hasStaged.Store(false)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return ErrClosed
	}
	b := ix.bi.NewBatch()
	for uid, n := range staged {
		if n == nil {
			b.Delete(uid)
			continue
		}
		if err := b.Index(uid, newDocument(*n)); err != nil {
			return fmt.Errorf("index node %q: %w", uid, err)
		}
	}
	b.SetInternal(keySeq, encodeSeq(seq))
	if err := ix.bi.Batch(b); err != nil {
		return fmt.Errorf("apply search batch at seq %d: %w", seq, err)
	}
	ix.seq.Store(seq)
	return nil
}

// runFlusher writes what is staged FlushDelay after a Stage kicked it,
// until Close.
func (ix *Index) runFlusher() {
	defer ix.flusher.Done()
	t := time.NewTimer(ix.flushDelay)
	t.Stop()
	for {
		select {
		case <-ix.stop:
			return
		case <-ix.kick:
		}
		t.Reset(ix.flushDelay)
		select {
		case <-ix.stop:
			t.Stop()
			return
		case <-t.C:
		}
		if err := ix.flushStaged(); err != nil && !errors.Is(err, ErrClosed) {
			ix.log.Warn("search index update failed; fuzzy lookups may miss recent nodes", "err", err)
		}
	}
}
