package cli

import (
	"context"
	"log/slog"
	"os"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/cos-dev/cos/worktree"
)

// stateOptions are the state.Options the flags f describe.
func (a *app) stateOptions(f serverFlags, logger *slog.Logger, at *projections.Until) state.Options {
	// A worktree's overlay lives in this process's graph: never in a
	// snapshot others would load.
	return state.Options{Dir: a.stateDir, Store: a.store, NATS: f.nats, Namespace: f.namespace, At: at, Logger: logger,
		NoSnapshots: a.worktree != nil, WritesSoon: a.writesSoon}
}

// indexingOptions are the indexing.Options the flags f describe.
func indexingOptions(f serverFlags, logger *slog.Logger) indexing.Options {
	return indexing.Options{Roots: f.roots, Exclude: f.exclude, MaxFileSize: f.maxFileSize, SCIPTools: os.Getenv(SCIPToolsEnv), Logger: logger}
}

// budgetOptions is the envelope budget the flags f ask for; check has
// validated it before anything was opened.
func (f serverFlags) budgetOptions() envelope.Options {
	return envelope.Options{BudgetChars: f.budget}
}

// opened is what cos serve and cos call run on: the state folder, its
// indexer and the tool runner.
type opened struct {
	st *state.State
	ix *indexing.Indexer
	r  *tools.Runner
	// wt serves the linked worktree the command runs in (worktree mode);
	// nil otherwise.
	wt *worktree.Service
}

// openTools opens the state folder and builds the runner over it; at, when
// set, opens the read-only view of the log at that position.
func (a *app) openTools(ctx context.Context, f serverFlags, logger *slog.Logger, at *projections.Until) (*opened, error) {
	ix, st, err := a.openIndexer(ctx, f, logger, at)
	if err != nil {
		return nil, err
	}
	o := &opened{st: st, ix: ix}
	topts := tools.Options{Version: Version}
	if a.worktree != nil && at == nil {
		if o.wt, err = worktree.NewService(ctx, st, a.worktreeOptions(f, logger)); err != nil {
			_ = st.Close(ctx)
			return nil, err
		}
		topts.Worktree = o.wt
		logger.Info("worktree mode: serving this linked worktree over the main worktree's state folder; its changed files stay in this process",
			"worktree", a.worktree.Name, "folder", a.worktree.Folder, "state_dir", a.stateDir)
	}
	o.r = tools.New(st, ix, topts)
	return o, nil
}

// openIndexer opens the state folder and the indexer over it (cos index
// needs no tool runner).
func (a *app) openIndexer(ctx context.Context, f serverFlags, logger *slog.Logger, at *projections.Until) (*indexing.Indexer, *state.State, error) {
	io := indexingOptions(f, logger)
	if err := io.Validate(); err != nil { // before opening anything
		return nil, nil, err
	}
	st, err := state.Open(ctx, a.stateOptions(f, logger, at))
	if err != nil {
		return nil, nil, err
	}
	ix, err := indexing.New(st, io)
	if err != nil {
		_ = st.Close(ctx)
		return nil, nil, err
	}
	return ix, st, nil
}

// close closes the state folder.
func (o *opened) close(ctx context.Context) error { return o.st.Close(ctx) }
