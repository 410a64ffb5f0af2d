package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/cos-dev/cos/worktree"
)

// Worktree mode: cos serve and cos call started in a linked git worktree,
// with neither --state-dir nor $COS_STATE_DIR, use the main worktree's
// state folder and answer for the worktree — its changed files over the
// shared graph, in this process only, never appended to the log
// (package worktree). Other commands read and write the main worktree's
// state as it is (cos log head, cos replay, cos verify, …), except cos
// index: it would add the worktree to the shared graph as a root of its
// own, so it is refused unless a state folder is given (a ./.cos of the
// worktree's own would be a state no server there reads).

// servesWorktree reports whether cmd runs in worktree mode when started
// in a linked worktree.
func servesWorktree(cmd *cobra.Command) bool {
	return cmd.Name() == "serve" || cmd.Name() == "call"
}

// detectWorktree detects a linked worktree at the working directory.
func detectWorktree(ctx context.Context) (worktree.Info, bool, error) {
	wd, err := os.Getwd()
	if err != nil {
		return worktree.Info{}, false, fmt.Errorf("working directory: %w", err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return worktree.Detect(ctx, wd)
}

// worktreeOptions are the worktree.Options of the flags f.
func (a *app) worktreeOptions(f serverFlags, logger *slog.Logger) worktree.Options {
	return worktree.Options{Worktree: *a.worktree, Exclude: f.exclude, MaxFileSize: f.maxFileSize, Logger: logger}
}

// refuseIndexInWorktree is the usage error of cos index run in a linked
// worktree with no state folder given, nil elsewhere.
func refuseIndexInWorktree(ctx context.Context) error {
	wt, ok, _ := detectWorktree(ctx) // not a worktree we can tell: index as before
	if !ok {
		return nil
	}
	return usageError("%s is a linked git worktree of %s: run cos index in %s (cos serve and cos call here read its state and overlay this worktree's changes), or give --state-dir for a state of its own",
		wt.Folder, wt.Main, wt.Main)
}
