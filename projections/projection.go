package projections

import "github.com/cos-dev/cos/eventlog"

// Projection is a deterministic reducer over the log: the same events, in the
// same order, give the same state and the same StateHash in every process and
// every replay.
//
// Concurrency: Apply and UnmarshalSnapshot are called by one goroutine at a
// time under the tailer's write lock. StateHash and MarshalSnapshot are
// called under the tailer's read lock, concurrently with readers (never with
// Apply): they must not change the state, and a cache they fill needs its own
// lock. Readers take the read lock the tailer exposes (Tailer.View).
type Projection interface {
	// Name is a stable identifier ("graph", "tasks", "metrics",
	// "evidence"), used as the snapshot section key.
	Name() string
	// Apply folds one event into the state. It must ignore event types it
	// does not own. An error means the event is invalid for this projection;
	// the event is skipped (and logged) — it never stops the tailer.
	Apply(ev eventlog.Event) error
	// StateHash is the SHA-256 of the canonical encoding of the state.
	StateHash() [32]byte
	// MarshalSnapshot encodes the state; UnmarshalSnapshot replaces the
	// state with a decoded one.
	MarshalSnapshot() ([]byte, error)
	UnmarshalSnapshot(data []byte) error
}
