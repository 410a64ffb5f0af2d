package projections

import (
	"context"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// Until bounds a point-in-time view: the view holds every event with
// seq ≤ Seq and commit time ≤ Time. A zero field is no bound.
type Until struct {
	Seq  uint64
	Time time.Time
}

// excludes reports whether ev lies past the bound. Commit times follow seq
// order, so the first excluded event ends the replay.
func (u Until) excludes(ev eventlog.Event) bool {
	return (u.Seq != 0 && ev.Seq > u.Seq) || (!u.Time.IsZero() && ev.Time.After(u.Time))
}

// OpenAt builds a read-only, point-in-time view of projs (which must be
// empty) at until, for `cos replay --until` and `cos call --at`: it restores
// the newest valid snapshot of opts.StateDir covering at most until (unless
// opts.NoSnapshotLoad), then replays the log up to the bound.
//
// The returned Tailer is frozen: View, Position, StateHash and Projections
// work as on a live one; Fresh, CatchUp and Ring are no-ops; no snapshot is
// written and Close has nothing to stop. A bound past the head gives the
// head. Its cost is a snapshot load plus the replay of the events between
// the snapshot and the bound.
func OpenAt(ctx context.Context, src Source, projs []Projection, until Until, opts TailerOptions) (*Tailer, error) {
	opts.NoBackgroundSnapshots = true
	t, err := NewTailer(src, projs, opts)
	if err != nil {
		return nil, err
	}
	t.started.Store(true)
	if opts.StateDir != "" && !opts.NoSnapshotLoad {
		if err := t.restore(ctx, until); err != nil {
			return nil, err
		}
	}
	t.applyMu.Lock()
	_, err = t.catchUpLocked(ctx, until)
	t.applyMu.Unlock()
	if err != nil {
		return nil, err
	}
	t.frozen = true
	return t, nil
}
