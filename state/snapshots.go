package state

import (
	"context"
	"path/filepath"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
)

// SnapshotFailure is the last snapshot attempt that failed, as cos_health
// reports it until a later snapshot succeeds.
type SnapshotFailure struct {
	// Time is when the attempt failed; Seq the position it tried to save.
	Time  time.Time `json:"time"`
	Seq   uint64    `json:"seq"`
	Error string    `json:"error"`
}

// SnapshotFailure returns the last failed snapshot attempt, or nil when
// the last attempt succeeded (or none was made).
func (s *State) SnapshotFailure() *SnapshotFailure { return s.snapFail.Load() }

// Snapshot writes a snapshot of the projections now (projections.Tailer
// Snapshot) and records the outcome for health: a failure stays reported
// until a later snapshot succeeds. A point-in-time or read-only state
// writes none and returns its position. Errors: the snapshot's (the
// snapshots folder cannot be created or written, ctx's error).
func (s *State) Snapshot(ctx context.Context) (projections.Position, error) {
	if !s.writable || s.opts.NoSnapshots {
		return s.Position(), nil
	}
	pos, err := s.tailer.Snapshot(ctx)
	switch {
	case err == nil:
		s.snapFail.Store(nil)
		s.snapSeq.Store(pos.Seq)
	case ctx.Err() == nil:
		s.snapFail.Store(&SnapshotFailure{Time: time.Now().UTC(), Seq: pos.Seq, Error: err.Error()})
		s.logger.Warn("snapshot failed; start-up will replay more of the log until one succeeds", "seq", pos.Seq, "err", err)
	}
	return pos, err
}

// startSnapshots runs the background snapshot loop of a writable state: a
// snapshot once Options.SnapshotEvery events were applied since the last
// one, and on each Options.SnapshotInterval tick when the position moved.
// It replaces the tailer's own loop so that every outcome is recorded for
// health. Close stops it.
func (s *State) startSnapshots() {
	every, interval := s.opts.SnapshotEvery, s.opts.SnapshotInterval
	if every == 0 {
		every = projections.DefaultSnapshotEvery
	}
	if interval == 0 {
		interval = projections.DefaultSnapshotInterval
	}
	s.snapSeq.Store(newestSnapshot(filepath.Join(s.opts.Dir, SnapshotDir)))
	kick := make(chan struct{}, 1)
	s.tailer.OnApplied(func(evs []eventlog.Event) {
		if last := evs[len(evs)-1].Seq; last >= s.snapSeq.Load()+every {
			select {
			case kick <- struct{}{}:
			default:
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	s.snapStop = cancel
	s.snapWG.Add(1)
	go func() {
		defer s.snapWG.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			case <-tick.C:
			}
			if s.Position().Seq == s.snapSeq.Load() || s.snapHolds.Load() > 0 {
				continue
			}
			_, _ = s.Snapshot(ctx) // recorded and logged by Snapshot
		}
	}()
}
