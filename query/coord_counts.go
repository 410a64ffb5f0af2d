package query

import (
	"context"

	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/tasks"
)

// NoticeCounts returns, for every active task with changes under it, how
// many there are: the total Notices answers, for all tasks at once (the
// footprints and reaches resolved once, not once per task). Call it inside
// a view.
func NoticeCounts(ctx context.Context, g *projections.Graph, b *tasks.Board) map[string]int {
	bc := NewBoardCoord()
	bc.resolve(ctx, g, b)
	out := map[string]int{}
	for _, self := range bc.all {
		if n := noticeCount(b, bc.all, self); n > 0 {
			out[self.t.ID] = n
		}
	}
	return out
}
