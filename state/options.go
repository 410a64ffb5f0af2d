package state

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/projections"
)

// Options configure Open. Dir is required; every other zero value takes
// the default its field names.
type Options struct {
	// Dir is the state folder (see the package doc for its files). It is
	// created when missing, except for a point-in-time view.
	Dir string
	// NATS is bus.ModeAuto (the zero value: the embedded server recorded
	// in the state folder, started when none runs; no bus when NATS is
	// unavailable), bus.ModeOff, or a nats:// URL (an error when
	// unreachable).
	NATS string
	// Namespace separates projects on one NATS; empty derives it from Dir.
	Namespace string
	// Store is where the event log lives (ParseStore): "" for the file
	// events.db in Dir, a bbolt file path, or
	// nats://HOST:PORT[,nats://HOST:PORT…][/STREAM] for a JetStream stream
	// that several machines share. Dir keeps this machine's projections,
	// snapshots, search index and locks whatever the store.
	Store string
	// CreateStream creates a NATS store's stream when it is missing (a
	// flag on the first open, as `cos log init` is a command); without it
	// Open refuses a missing stream (store.ErrNoStream).
	CreateStream bool
	// At, when set, opens a read-only view of the state as it was at that
	// log position (`cos call --at`): no bus, no search slot (a temporary
	// index instead), Append fails with ErrReadOnly.
	At *projections.Until
	// Client names the MCP client, recorded on the events this state
	// appends.
	Client string
	// WritesSoon says the process is about to write (cos index): the
	// background walk of the hash chain, which every write waits for,
	// starts at once, beside the load of the projections, instead of once
	// they are loaded. Reads never wait for it either way.
	WritesSoon bool
	// NoBackgroundSnapshots turns the background snapshot loop off (tests).
	NoBackgroundSnapshots bool
	// NoSnapshots writes no snapshot at all (Snapshot does nothing) and
	// keeps the search index in a temporary folder of its own, removed on
	// Close: a process that keeps changes of its own over the graph
	// (SetGraphOverlay, a worktree's files) must not save them where
	// others load them — the search index is fed from this process's graph
	// and its slot is reused by the next process.
	NoSnapshots bool
	// SearchFlushDelay is how long the search index may hold applied graph
	// changes before writing them as one batch (search.Options.FlushDelay):
	// zero means search.DefaultFlushDelay (50 ms), negative writes each
	// applied batch at once. A search always sees every change applied
	// before it, whatever the delay.
	SearchFlushDelay time.Duration
	// SnapshotEvery is how many applied events since the last snapshot
	// make the background loop write one; zero means
	// projections.DefaultSnapshotEvery (20,000).
	SnapshotEvery uint64
	// SnapshotInterval is how often the background loop writes a snapshot
	// when the position moved; zero means
	// projections.DefaultSnapshotInterval (10 minutes).
	SnapshotInterval time.Duration
	// SnapshotMinReplay is the event data (bytes) applied since the newest
	// snapshot below which the background loop writes none, kicked or
	// ticked (SnapshotDue's minBytes): zero means the rule of index runs,
	// max(MinSnapshotReplayBytes, the newest snapshot's size /
	// SnapshotReplayFraction), so a server taking a few writes does not
	// rewrite a kernel-sized snapshot every SnapshotInterval; positive, that
	// many bytes; negative, no minimum (a snapshot whenever the position
	// moved).
	SnapshotMinReplay int64
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
	// PastViews bounds the point-in-time views (a tool's `at` argument)
	// kept cached, least recently used out first; zero means
	// DefaultPastViews (4). Negative is invalid.
	PastViews int
}

// ErrOptions is returned (wrapped) by Open and Validate for an invalid
// option.
var ErrOptions = errors.New("invalid options")

// Validate reports the first invalid option, wrapping ErrOptions.
func (o Options) Validate() error {
	if o.Dir == "" {
		return fmt.Errorf("%w: the state folder (Dir) is required", ErrOptions)
	}
	if o.PastViews < 0 {
		return fmt.Errorf("%w: PastViews %d is negative", ErrOptions, o.PastViews)
	}
	if _, err := ParseStore(o.Dir, o.Store); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if o.SnapshotInterval < 0 {
		return fmt.Errorf("%w: SnapshotInterval %s is negative", ErrOptions, o.SnapshotInterval)
	}
	return nil
}

// withDefaults fills the zero values with their defaults.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.NATS == "" {
		o.NATS = bus.ModeAuto
	}
	return o
}
