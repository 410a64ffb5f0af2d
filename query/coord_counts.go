package query

import (
	"context"

	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/tasks"
)

// NoticeCounts returns, for every active task with changes under it, how
// many there are: the total Notices answers, for all tasks at once (the
// footprints and reaches resolved once, not once per task). A board page
// uses it. Call it inside a view.
func NoticeCounts(ctx context.Context, g *projections.Graph, b *tasks.Board) map[string]int {
	all, _ := coordOf(ctx, g, b, "")
	out := map[string]int{}
	for _, self := range all {
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
		if n > 0 {
			out[self.t.ID] = n
		}
	}
	return out
}
