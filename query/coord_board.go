package query

import (
	"context"
	"slices"
	"sync"

	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/tasks"
)

// BoardCoord is the coordination a board page reads of the active tasks at
// one log position: which tasks each one overlaps, and how many changes
// are under it. Each part is computed on first use and kept, so one
// BoardCoord serves every board call at that position (a cache keyed by
// the view's seq); it is safe for concurrent use, and callers asking for a
// part being computed wait for it instead of computing it again.
//
// Every method takes the graph and board of a view at the position the
// BoardCoord was made for, and must be called inside that view.
type BoardCoord struct {
	once sync.Once
	// all are the active tasks, byID the same by id; tasks with the same
	// resolved footprint share its reach (walked once).
	all  []*coordTask
	byID map[string]*coordTask
	ids  map[string][]string

	mu     sync.Mutex
	counts map[string]int
}

// NewBoardCoord returns an empty BoardCoord: nothing is computed until a
// method needs it.
func NewBoardCoord() *BoardCoord { return &BoardCoord{counts: map[string]int{}} }

// resolve resolves the footprint of every active task, walks the reach of
// each distinct footprint once, and finds the overlapping pairs.
func (bc *BoardCoord) resolve(ctx context.Context, g *projections.Graph, b *tasks.Board) {
	bc.once.Do(func() {
		type group struct {
			c     *coordTask
			tasks []*coordTask
		}
		bc.all, _ = coordOf(ctx, g, b, "")
		bc.byID = make(map[string]*coordTask, len(bc.all))
		// coordOf shares one reach among the tasks of one footprint.
		byReach := map[*Dependents]*group{}
		var groups []*group
		for _, c := range bc.all {
			gr, ok := byReach[c.reach]
			if !ok {
				// Only the reach's uids are read: keep no graph past the view.
				c.reach.comp = nil
				gr = &group{c: c}
				byReach[c.reach] = gr
				groups = append(groups, gr)
			}
			gr.tasks = append(gr.tasks, c)
			bc.byID[c.t.ID] = c
		}
		ids := map[string][]string{}
		for i, gt := range groups {
			for _, gu := range groups[i:] {
				if gt == gu && len(gt.tasks) < 2 || !meets(gt.c, gu.c) {
					continue
				}
				for _, t := range gt.tasks {
					for _, u := range gu.tasks {
						if t != u {
							ids[t.t.ID] = append(ids[t.t.ID], u.t.ID)
						}
					}
				}
				if gt == gu {
					continue
				}
				for _, u := range gu.tasks {
					for _, t := range gt.tasks {
						ids[u.t.ID] = append(ids[u.t.ID], t.t.ID)
					}
				}
			}
		}
		for id := range ids {
			slices.Sort(ids[id])
		}
		bc.ids = ids
	})
}

// meets reports whether t's and u's code meet: overlap(g, t, u) != nil
// without building the shared symbols.
func meets(t, u *coordTask) bool {
	for _, s := range u.fp {
		if t.inFP[s] {
			return true
		}
		if _, ok := t.reach.byUID[s]; ok {
			return true
		}
	}
	for _, s := range t.fp {
		if _, ok := u.reach.byUID[s]; ok {
			return true
		}
	}
	return false
}

// OverlapIDs returns, for every active task that overlaps another, the
// ids it overlaps, sorted (shared: do not modify).
func (bc *BoardCoord) OverlapIDs(ctx context.Context, g *projections.Graph, b *tasks.Board) map[string][]string {
	bc.resolve(ctx, g, b)
	return bc.ids
}

// Overlaps is Overlaps of task id, from the footprints and reaches
// resolved once.
func (bc *BoardCoord) Overlaps(ctx context.Context, g *projections.Graph, b *tasks.Board, id string) []Overlap {
	bc.resolve(ctx, g, b)
	return overlapsOf(g, bc.all, bc.byID[id])
}

// NoticeCount returns how many changes are under task id (the total
// Notices answers), 0 when it is not active.
func (bc *BoardCoord) NoticeCount(ctx context.Context, g *projections.Graph, b *tasks.Board, id string) int {
	bc.resolve(ctx, g, b)
	self, ok := bc.byID[id]
	if !ok {
		return 0
	}
	bc.mu.Lock()
	n, ok := bc.counts[id]
	bc.mu.Unlock()
	if ok {
		return n
	}
	n = noticeCount(b, bc.all, self)
	bc.mu.Lock()
	bc.counts[id] = n
	bc.mu.Unlock()
	return n
}

// noticeCount counts the changes under self: the index changes since it
// became active that touch its footprint or reach, and the seqs at which
// another active task's derived footprint came to hold such symbols.
func noticeCount(b *tasks.Board, all []*coordTask, self *coordTask) int {
	since := self.t.ClaimedSeq
	if since == 0 {
		since = self.t.CreatedSeq
	}
	under := func(uid string) bool {
		if self.inFP[uid] {
			return true
		}
		_, ok := self.reach.byUID[uid]
		return ok
	}
	n := 0
	changes, _ := b.Changes(since)
	for _, c := range changes {
		for _, uid := range c.UIDs {
			if under(uid) {
				n++
				break
			}
		}
	}
	for _, u := range all {
		if u.t.ID == self.t.ID || u.t.Footprint == nil {
			continue
		}
		seqs := map[uint64]bool{}
		for _, uid := range u.t.Footprint.Symbols {
			if at := u.t.Footprint.Since[uid]; at > since && under(uid) {
				seqs[at] = true
			}
		}
		n += len(seqs)
	}
	return n
}
