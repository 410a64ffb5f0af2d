package state

import (
	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
)

// The files and folders of a state folder that this package opens, each
// named once here or, for a file a lower package owns, taken from that
// package. The package doc says who writes each one (the others too) and
// its format.
const (
	// LogFile is the event log (a bbolt file); the log keeps LogFile+".lock"
	// and LogFile+".head" beside it.
	LogFile = "events.db"
	// SnapshotDir holds the projections' snapshots (snap-<seq>.bin).
	SnapshotDir = projections.SnapshotDirName
	// SearchDir holds the search index slots, one per running process.
	SearchDir = "search"
	// ModulesFile records which modules are switched off.
	ModulesFile = "subsystems-state.json"
	// RolesFile overrides the evidence role registry.
	RolesFile = evidence.RolesFile
	// IndexCacheDir holds the extractors' caches, one folder per indexed
	// root.
	IndexCacheDir = "index-cache"
	// IndexRootFile records the folder the graph was last indexed from.
	IndexRootFile = "index-root.json"
	// IndexLockFile serialises indexing across processes.
	IndexLockFile = "index.lock"
	// WatchLockFile elects the one process that watches the indexed tree
	// (flock, held while it watches; it holds that process's id).
	WatchLockFile = "watch.lock"
	// NATSLockFile is the embedded NATS server's host election lock.
	NATSLockFile = bus.LockFile
)
