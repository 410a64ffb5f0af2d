package tools

import (
	"context"

	"github.com/cos-dev/cos/query"
	"github.com/cos-dev/cos/state"
)

// NewestNotices returns, for each task id of ids that exists, the seq of
// its newest change under it (query.Notices; 0 when it has none), read in
// one view of the current state. The MCP server uses it to tell a
// subscriber of cos://task/{id} that a batch of events added one.
func (r *Runner) NewestNotices(ctx context.Context, ids []string) (map[string]uint64, error) {
	out := make(map[string]uint64, len(ids))
	err := r.st.Read(ctx, func(v state.View) {
		for _, id := range ids {
			if _, ok := v.Board.Get(id); !ok {
				continue
			}
			list, _, _ := query.Notices(ctx, v.Graph, v.Board, id, 1)
			if len(list) > 0 {
				out[id] = list[0].Seq
			} else {
				out[id] = 0
			}
		}
	})
	return out, err
}
