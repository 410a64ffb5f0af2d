// Package projections holds the pure reducers that fold the event log into
// queryable state, the Tailer that keeps them at the log head, their
// snapshots, and point-in-time views (docs/architecture.md: write and read
// paths, lock order, consistency guarantees; docs/storage.md: snapshots).
//
// # Basics
//
// A Projection (projection.go) is a deterministic reducer: the same events in
// the same order give the same state and the same StateHash in every process
// and every replay. Graph is the graph projection: nodes by uid, edges by
// (source, target, type, extractor), in/out adjacency and what each
// (extractor, path) owns, with reference counting for nodes and edges that
// several files emit (see Graph). The tasks and metrics reducers live in
// sub-packages; evidence lives in package evidence.
//
// A Tailer owns a set of projections and an RWMutex:
//
//	t, _ := projections.NewTailer(log, []projections.Projection{g, ...}, opts)
//	t.OnApplied(index.Follow)         // optional followers (the search index)
//	_ = t.Start(ctx)                  // newest snapshot + tail of the log
//	_ = t.Fresh(ctx)                  // before each read: cheap head check
//	t.View(func(pos projections.Position) { n, ok := g.Node(uid); ... })
//
// OpenAt builds the same thing frozen at a past seq or time.
//
// # Snapshots
//
// <StateDir>/snapshots/snap-<seq>.bin holds every projection's
// MarshalSnapshot section, the seq, hash and time of the last event it
// covers, and a SHA-256 checksum (format in snapshot.go). Files are written
// by the tailer's background loop every DefaultSnapshotEvery events or
// DefaultSnapshotInterval, atomically (temp → fsync → rename → fsync
// folder); the newest DefaultSnapshotKeep are kept. Start-up takes the
// newest file that verifies, belongs to this log (the log's event at that
// seq has the recorded hash) and has a section for every projection, then
// applies the tail. Anything else is skipped with a log line, never fatal.
// Several processes may share the folder: snapshots of the same seq are
// byte-identical, and a snapshot is always of a consistent state at its seq
// (taken under the read lock), so it converges with the log's tail.
//
// # Caveats
//
// Graph.StateHash and MarshalSnapshot sort the whole graph: O(n log n),
// about a second of CPU at 100,000 nodes and 500,000 edges. StateHash is
// cached until the next Apply. Snapshot marshalling holds the tailer's
// read lock, so appliers (not readers) wait for it.
//
// Projection.MarshalSnapshot and StateHash are called under the tailer's
// read lock, concurrently with readers (never with Apply): they must not
// change the state, and any cache they fill needs its own lock.
package projections
