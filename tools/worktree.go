package tools

import (
	"context"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/state"
)

// Worktree is what a server started in a linked git worktree serves the
// worktree with (package worktree): its files that differ from the shared
// graph, kept over this process's graph and never logged, and the
// footprint of the tasks claimed through this server.
type Worktree interface {
	// Sync brings the worktree's files into this process's graph; graph
	// reads and Call.Refresh call it in place of a re-index.
	Sync(ctx context.Context) error
	// Claimed is told of each successful cos_task_claim.
	Claimed(taskID, assignee string)
	// Status is cos_health's worktree field.
	Status() WorktreeStatus
}

// WorktreeStatus is cos_health's worktree: the worktree served (its
// branch or folder name, never a path), how many of its files differ from
// the shared graph, and the tasks whose footprint it derives.
type WorktreeStatus struct {
	Name  string   `json:"name"`
	Files int      `json:"files"`
	Tasks []string `json:"tasks"`
}

// readWorktree is readGraph in a worktree: the worktree's files are
// synced into this process's graph first (a no-op when nothing changed
// since), then the handler runs once. A failed sync is a warning: the
// answer stands on the graph as it is.
func (r *Runner) readWorktree(ctx context.Context, c *Call) (data any, tm envelope.ToolMeta, err, rerr error) {
	serr := r.worktree.Sync(ctx)
	rerr = r.st.Read(ctx, func(v state.View) {
		c.V, c.inView = v, true
		defer func() { c.inView = false }()
		c.files = nil
		data, tm, err = c.Tool.Handler(ctx, c)
	})
	if serr != nil {
		why := "the worktree's changed files could not be read into the graph: " + serr.Error()
		if err == nil {
			tm.Warnings = append(tm.Warnings, why)
		}
		// A not-found says why the graph could not answer (the main
		// worktree not indexed, say), as a read in the main tree does.
		err = notFoundBecause(err, why, false)
	}
	return data, tm, err, rerr
}
