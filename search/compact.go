package search

import (
	"context"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// CompactMinUpdates is how many documents a process must have indexed for
// Close to merge the index into one segment first: a bulk (an index run, a
// fresh fill of a new slot) leaves tens of segments, and a search pays a
// searcher per segment for each of its terms (79% of a resolve's time on
// GOROOT/src with 10 segments). Fewer updates leave the merging to scorch.
const CompactMinUpdates = 10_000

// Compact writes what is staged, then merges the index into one segment and
// returns once the merged segment is on disk and searched. Answers do not
// change (the top hits are ordered by score, then uid, whatever the
// segments). It costs about a second of CPU per 100k nodes. Searches run
// beside it; Stage and Apply wait for it. It returns ErrClosed after Close
// and ctx's error when ctx ends first (the index stays as it was).
func (ix *Index) Compact(ctx context.Context) error {
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	if err := ix.flushLocked(); err != nil {
		return err
	}
	return ix.compactLocked(ctx)
}

// compactLocked is Compact after the flush; applyMu must be held.
func (ix *Index) compactLocked(ctx context.Context) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return ErrClosed
	}
	sc, err := ix.scorch()
	if err != nil {
		return err
	}
	// One pass merges at most SegmentsPerMergeTask (10) segments at a
	// time: go on until one is left.
	for pass := 0; segmentCount(sc) > 1 && pass < maxMergePasses; pass++ {
		if err := sc.ForceMerge(ctx, nil); err != nil {
			return fmt.Errorf("merge search index: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return waitPersisted(ctx, sc)
}

// waitPersisted returns once scorch's persister has written the current
// root (the merged segment list) to its root file, or when ctx ends, or
// after persistWait. A merge is introduced in memory first; scorch's Close
// does not write the root, so a Close right after a merge would leave the
// next process the segment list from before it (seen under load in CI).
func waitPersisted(ctx context.Context, sc *scorch.Scorch) error {
	deadline := time.Now().Add(persistWait)
	for {
		m := sc.StatsMap()
		root, _ := m["CurRootEpoch"].(uint64)
		persisted, _ := m["LastPersistedEpoch"].(uint64)
		if persisted >= root {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("merge search index: root epoch %d not persisted after %s (persisted %d)", root, persistWait, persisted)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// persistWait bounds waitPersisted: scorch persists a root of file
// segments in milliseconds; a persister that has not done so in this
// long has failed (its errors go to the index's async error log).
const persistWait = 30 * time.Second

// maxMergePasses bounds Compact's ForceMerge passes: each merges up to ten
// segments into one, so a handful reach one segment from hundreds.
const maxMergePasses = 8

// segmentCount is the number of segments at sc's root, in memory or on disk.
func segmentCount(sc *scorch.Scorch) uint64 {
	m := sc.StatsMap()
	mem, _ := m["TotMemorySegmentsAtRoot"].(uint64)
	file, _ := m["TotFileSegmentsAtRoot"].(uint64)
	return mem + file
}

// bulkWritten reports whether this process indexed at least
// CompactMinUpdates documents into an index of more than one segment.
// ix.mu must be held.
func (ix *Index) bulkWritten() bool {
	sc, err := ix.scorch()
	if err != nil {
		return false
	}
	updates, _ := sc.StatsMap()["TotUpdates"].(uint64)
	return updates >= CompactMinUpdates && segmentCount(sc) > 1
}

// scorch returns the scorch index under bi. ix.mu must be held.
func (ix *Index) scorch() (*scorch.Scorch, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("search index: %T is not a scorch index", adv)
	}
	return sc, nil
}

// compactOnClose reports whether Close merges first: the index is open and
// bulkWritten.
func (ix *Index) compactOnClose() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.bi != nil && ix.bulkWritten()
}
