package worktree

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
)

// Service is a server's worktree mode: the overlay, kept current by a
// watcher, and the footprints of the tasks claimed through the server. It
// satisfies tools.Worktree.
type Service struct {
	ov *Overlay
	fp *Footprints
	// watching is set while Run's watcher runs; dirty when it saw a write
	// not synced yet. A read syncs only when dirty, or with no watcher.
	watching atomic.Bool
	dirty    atomic.Bool
}

var _ tools.Worktree = (*Service)(nil)

// NewService returns the worktree mode of st (opened with
// state.Options.NoSnapshots) for o.Worktree, with the tasks it derived
// footprints for before (Footprints.Resume) followed again. It syncs
// nothing yet: Run does, and every graph read until then.
func NewService(ctx context.Context, st *state.State, o Options) (*Service, error) {
	ov, err := NewOverlay(st, o)
	if err != nil {
		return nil, err
	}
	fp := NewFootprints(ov)
	if err := fp.Resume(ctx); err != nil {
		return nil, err
	}
	return &Service{ov: ov, fp: fp}, nil
}

// Overlay returns the service's overlay; Footprints its footprints.
func (s *Service) Overlay() *Overlay       { return s.ov }
func (s *Service) Footprints() *Footprints { return s.fp }

// Run watches the worktree and records the footprints until ctx ends.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { s.fp.Run(ctx) })
	s.dirty.Store(true) // until the watcher's first sync
	s.watching.Store(true)
	defer s.watching.Store(false)
	err := s.ov.watch(ctx, watchHooks{
		write:   func() { s.dirty.Store(true) },
		syncing: func() { s.dirty.Store(false) },
		synced:  func(SyncResult) { s.fp.Kick() },
	})
	if err != nil && ctx.Err() == nil {
		s.ov.log.Warn("the worktree is not watched; each graph read reads its changed files", "err", err)
	}
}

// Sync brings the overlay up to date for a read: at once when no watcher
// runs or it saw a write not synced yet, else it is current already.
func (s *Service) Sync(ctx context.Context) error {
	if s.watching.Load() && !s.dirty.Load() {
		return nil
	}
	s.dirty.Store(false)
	res, err := s.ov.Sync(ctx)
	if err == nil && len(res.Applied) > 0 {
		s.fp.Kick()
	}
	return err
}

// Claimed follows the task claimed through this server.
func (s *Service) Claimed(id, assignee string) { s.fp.Claimed(id, assignee) }

// Status is cos_health's worktree field.
func (s *Service) Status() tools.WorktreeStatus {
	return tools.WorktreeStatus{Name: s.ov.Worktree().Name, Files: len(s.ov.Paths()), Tasks: s.fp.Tasks()}
}
