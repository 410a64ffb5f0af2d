package projections

import (
	"fmt"
	"log/slog"
	"time"
)

// Defaults of TailerOptions.
const (
	// DefaultSnapshotEvery is how many applied events since the last
	// snapshot make the background loop write one.
	DefaultSnapshotEvery = 20_000
	// DefaultSnapshotInterval is how often the background loop writes a
	// snapshot when the position moved but fewer than SnapshotEvery events
	// arrived.
	DefaultSnapshotInterval = 10 * time.Minute
	// DefaultSnapshotKeep is how many snapshot files are kept; older ones
	// are deleted after each write.
	DefaultSnapshotKeep = 3
	// DefaultBatchSize is how many events are applied per hold of the write
	// lock during a catch-up; readers get the lock between batches.
	DefaultBatchSize = 512
)

// SnapshotDirName is the folder, under the state folder, that holds
// snapshot files.
const SnapshotDirName = "snapshots"

// TailerOptions configure a Tailer. The zero value is valid: no snapshots,
// default batch size, logs discarded.
type TailerOptions struct {
	// StateDir is the state folder; snapshots live in
	// StateDir/snapshots. Empty means no snapshot is loaded or written.
	StateDir string
	// NoSnapshotLoad starts from empty projections and replays the whole
	// log even when a snapshot exists.
	NoSnapshotLoad bool
	// NoBackgroundSnapshots turns the background snapshot loop off; Snapshot
	// can still be called. Tests use it to drive snapshots themselves.
	NoBackgroundSnapshots bool
	// SnapshotEvery is the number of applied events after which the
	// background loop writes a snapshot. Zero means DefaultSnapshotEvery.
	SnapshotEvery uint64
	// SnapshotInterval is the period of the background loop's timer; a tick
	// writes a snapshot only when the position moved since the last one.
	// Zero means DefaultSnapshotInterval.
	SnapshotInterval time.Duration
	// SnapshotKeep is how many snapshot files to keep (the newest by seq).
	// Zero means DefaultSnapshotKeep.
	SnapshotKeep int
	// BatchSize is the number of events applied per hold of the write lock
	// during a catch-up. Zero means DefaultBatchSize.
	BatchSize int
	// Logger receives skipped events, skipped snapshots and snapshot
	// failures. Nil discards them.
	Logger *slog.Logger
}

// Validate reports a field out of range.
func (o TailerOptions) Validate() error {
	switch {
	case o.SnapshotInterval < 0:
		return fmt.Errorf("tailer options: SnapshotInterval %s is negative", o.SnapshotInterval)
	case o.SnapshotKeep < 0:
		return fmt.Errorf("tailer options: SnapshotKeep %d is negative", o.SnapshotKeep)
	case o.BatchSize < 0:
		return fmt.Errorf("tailer options: BatchSize %d is negative", o.BatchSize)
	}
	return nil
}

func (o TailerOptions) withDefaults() TailerOptions {
	if o.SnapshotEvery == 0 {
		o.SnapshotEvery = DefaultSnapshotEvery
	}
	if o.SnapshotInterval == 0 {
		o.SnapshotInterval = DefaultSnapshotInterval
	}
	if o.SnapshotKeep == 0 {
		o.SnapshotKeep = DefaultSnapshotKeep
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
