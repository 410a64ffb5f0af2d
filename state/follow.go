package state

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

type graphNode = graph.Node

// checkpointLag is how far (in events) the search index checkpoint may fall
// behind while only events without graph changes arrive.
const checkpointLag = 10_000

// indexFollower keeps the search index in step with the graph projection.
// For each applied graph event it computes the uids the event may have
// touched — the nodes in its payload, plus the nodes the previous extraction
// of the same path carried — and, reading the projection, upserts those that
// exist and deletes the others. Index entries that go stale anyway (e.g.
// after a restart) are harmless: the resolver confirms every hit against
// the graph.
type indexFollower struct {
	s *State
	// mu guards byPath: file path → uids its last extraction carried.
	mu     sync.Mutex
	byPath map[string][]string
	// reflects is the seq of the last event the follower has handed to
	// the index (staged or, having no node, skipped): the index reflects
	// every event up to it, while its stored checkpoint may lag by up to
	// checkpointLag events that changed no node.
	reflects atomic.Uint64
}

// followIndex brings the index up to the tailer's position and registers
// the follower for everything after it. A fresh index is filled from the
// projection; an index that is behind (its checkpoint is older than the
// projections) replays the events in between from the log.
func (s *State) followIndex(ctx context.Context) error {
	f := &indexFollower{s: s, byPath: map[string][]string{}}
	s.searchFollower = f
	// Register first so no batch is missed; then fill the gap.
	regPos := s.tailer.OnApplied(f.apply)
	cp := s.index.Checkpoint()
	var nodes []graph.Node
	f.mu.Lock()
	s.tailer.View(func(projections.Position) {
		// The table needs only uids and paths: building every node (its
		// metadata decoded) is left to a fresh index, which indexes them.
		s.graph.NodePaths(func(uid, path string) bool {
			if path != "" {
				f.byPath[path] = append(f.byPath[path], uid)
			}
			return true
		})
		if cp == 0 {
			s.graph.Nodes(func(n graph.Node) bool {
				nodes = append(nodes, n)
				return true
			})
		}
	})
	f.mu.Unlock()
	switch {
	case cp == 0:
		return s.indexNodes(ctx, nodes, nil, regPos.Seq)
	case cp < regPos.Seq:
		var evs []eventlog.Event
		err := s.log.Read(ctx, cp+1, func(ev eventlog.Event) error {
			if ev.Seq > regPos.Seq {
				return eventlog.ErrStop
			}
			evs = append(evs, ev)
			if len(evs) == 4096 {
				f.apply(evs)
				evs = nil
			}
			return nil
		})
		var ie *eventlog.IntegrityError
		if errors.As(err, &ie) && ie.Seq > regPos.Seq {
			// Damage past what the projections hold is not the index's
			// concern: they stop before it too (Integrity).
			err = nil
		}
		if err != nil {
			return err
		}
		if len(evs) > 0 {
			f.apply(evs)
		}
	}
	return nil
}

// indexNodes applies upserts in batches, checkpointing at seq.
func (s *State) indexNodes(ctx context.Context, nodes []graph.Node, deletes []string, seq uint64) error {
	const batch = 5000
	if seq < s.index.Checkpoint() {
		seq = s.index.Checkpoint()
	}
	for len(nodes) > batch {
		if err := s.index.Apply(ctx, nodes[:batch], nil, seq); err != nil {
			return err
		}
		nodes = nodes[batch:]
	}
	return s.index.Apply(ctx, nodes, deletes, seq)
}

// apply is the tailer follower.
func (f *indexFollower) apply(evs []eventlog.Event) {
	touched := map[string]bool{}
	var last uint64
	f.mu.Lock()
	for _, ev := range evs {
		last = ev.Seq
		if ev.Stream != graph.Stream {
			continue
		}
		switch ev.Type {
		case graph.TypeFileExtracted:
			// Only the path and the node uids matter here: decode those, not
			// the edges and metadata the projection has already applied.
			var p struct {
				Path  string `json:"path"`
				Part  int    `json:"part"`
				Nodes []struct {
					UID string `json:"uid"`
				} `json:"nodes"`
			}
			if json.Unmarshal(ev.Data, &p) != nil {
				continue
			}
			for _, uid := range f.byPath[p.Path] {
				touched[uid] = true
			}
			uids := make([]string, 0, len(p.Nodes))
			if p.Part > 0 { // a further part adds to part 0's nodes
				uids = append(uids, f.byPath[p.Path]...)
			}
			for _, n := range p.Nodes {
				touched[n.UID] = true
				uids = append(uids, n.UID)
			}
			f.byPath[p.Path] = uids
		case graph.TypeFileRemoved:
			var p graph.FileRemoved
			if json.Unmarshal(ev.Data, &p) != nil {
				continue
			}
			for _, uid := range f.byPath[p.Path] {
				touched[uid] = true
			}
			delete(f.byPath, p.Path)
		case graph.TypeNodesUpserted:
			var p graph.NodesUpserted
			if json.Unmarshal(ev.Data, &p) == nil {
				for _, n := range p.Nodes {
					touched[n.UID] = true
				}
			}
		case graph.TypeNodesDeleted:
			var p graph.NodesDeleted
			if json.Unmarshal(ev.Data, &p) == nil {
				for _, uid := range p.UIDs {
					touched[uid] = true
				}
			}
		}
	}
	f.mu.Unlock()
	if last == 0 {
		return
	}
	var ups []graph.Node
	var dels []string
	f.s.tailer.View(func(projections.Position) {
		for uid := range touched {
			if n, ok := f.s.graph.Node(uid); ok {
				ups = append(ups, n)
			} else {
				dels = append(dels, uid)
			}
		}
	})
	// A batch with nothing to index (tasks, evidence, metrics, edges) does
	// not write the index: each write is a segment and an fsync. The
	// checkpoint then lags, which only means a restart re-reads those
	// events; it is advanced at least every checkpointLag events.
	if len(ups) == 0 && len(dels) == 0 && last < f.s.index.Checkpoint()+checkpointLag {
		f.advance(last)
		return
	}
	// Staged, not written: the index writes staged batches together (one
	// segment and one fsync for many batches) and before any search, so a
	// lookup still sees every node applied before it.
	seq := max(last, f.s.index.Checkpoint())
	if err := f.s.index.Stage(context.Background(), ups, dels, seq); err != nil {
		f.s.logger.Warn("search index update failed; fuzzy lookups may miss recent nodes", "seq", last, "err", err)
		return
	}
	f.advance(last)
}

// advance records that the index reflects every event up to seq.
func (f *indexFollower) advance(seq uint64) {
	for {
		cur := f.reflects.Load()
		if seq <= cur || f.reflects.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// searchReflects returns the seq up to which the search index reflects
// the log: its checkpoint, or further when events without nodes were
// applied after it.
func (s *State) searchReflects() uint64 {
	cp := s.index.Checkpoint()
	if s.searchFollower != nil {
		cp = max(cp, s.searchFollower.reflects.Load())
	}
	return cp
}
