package state

import (
	"context"
	"fmt"
	"os"
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
		s.replayBytes.Store(0)
	case ctx.Err() == nil:
		s.snapFail.Store(&SnapshotFailure{Time: time.Now().UTC(), Seq: pos.Seq, Error: err.Error()})
		s.logger.Warn("snapshot failed; start-up will replay more of the log until one succeeds", "seq", pos.Seq, "err", err)
	}
	return pos, err
}

// startSnapshots runs the background snapshot loop of a writable state: a
// snapshot once Options.SnapshotEvery events were applied since the last
// one, and on each Options.SnapshotInterval tick when the position moved,
// each only when the event data applied since the newest snapshot is worth
// one (snapshotDue). It replaces the tailer's own loop so that every
// outcome is recorded for health. Close stops it.
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
			if s.Position().Seq == s.snapSeq.Load() || s.snapHolds.Load() > 0 || !s.snapshotDue() {
				continue
			}
			_, _ = s.Snapshot(ctx) // recorded and logged by Snapshot
		}
	}()
}

// snapshotDue reports whether the background loop's snapshot is worth
// writing now (Options.SnapshotMinReplay).
func (s *State) snapshotDue() bool {
	if s.opts.SnapshotMinReplay < 0 {
		return true
	}
	return s.SnapshotDue(s.ReplayBytes(), s.opts.SnapshotMinReplay)
}

// SnapshotReplayFraction sets when a snapshot is worth writing after an
// index run (SnapshotDue): once the event data a process started now would
// replay from the log reaches 1/SnapshotReplayFraction of the newest
// snapshot's size. Writing a snapshot costs about its size in encoding and
// I/O, and replaying event data costs several times more per byte than
// loading a snapshot (the Linux kernel's state: 253 MB of snapshot load in
// about 6 CPU-s; 1.1 GB of events projected in about 120 s), so at 1/16 a
// cold start replays at most about a third of what it spends loading the
// snapshot, and a run that edits a few files of a large tree does not
// rewrite the whole snapshot.
const SnapshotReplayFraction = 16

// MinSnapshotReplayBytes is the least replay SnapshotDue asks for whatever
// the snapshot's size: 1 MiB, about a tenth of a second of replay.
const MinSnapshotReplayBytes = 1 << 20

// countReplay is the tailer follower that adds up replayBytes.
func (s *State) countReplay(evs []eventlog.Event) {
	var n int64
	for i := range evs {
		n += int64(len(evs[i].Data))
	}
	s.replayBytes.Add(n)
}

// ReplayBytes returns the event data (bytes) the projections applied since
// the snapshot they were loaded from or this process last wrote (0 when
// none was loaded: then the whole log replays, and every byte counts): what
// a process started now would replay from the log. It is an estimate:
// events applied while a snapshot was being written count as covered by it,
// and a snapshot another process wrote since is not known.
func (s *State) ReplayBytes() int64 { return s.replayBytes.Load() }

// SnapshotBytes returns the size in bytes of the newest snapshot file in
// the state folder, 0 when there is none.
func (s *State) SnapshotBytes() int64 {
	dir := filepath.Join(s.opts.Dir, SnapshotDir)
	seq := newestSnapshot(dir)
	if seq == 0 {
		return 0
	}
	fi, err := os.Stat(filepath.Join(dir, fmt.Sprintf("snap-%020d.bin", seq)))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// SnapshotDue reports whether replay bytes of event data past the newest
// snapshot make a new one worth writing: at least minBytes when minBytes is
// positive; when it is 0, at least MinSnapshotReplayBytes and
// 1/SnapshotReplayFraction of the newest snapshot's size (SnapshotBytes).
// A negative minBytes is never due.
func (s *State) SnapshotDue(replay, minBytes int64) bool {
	switch {
	case minBytes < 0:
		return false
	case minBytes > 0:
		return replay >= minBytes
	}
	return replay >= max(MinSnapshotReplayBytes, s.SnapshotBytes()/SnapshotReplayFraction)
}
