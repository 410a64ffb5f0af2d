// Package state opens one process's view of a cos state folder and hands
// out reads and writes of it. It is the composition root below the
// transports: `cos serve`, `cos call` and `cos index` open a State; the
// tool runner (package tools) and the indexer (package indexing) work on
// it; nothing below it (projections, search, eventlog, bus) knows it.
//
// # Basics
//
// Open wires, in this order: the forensic call log, the evidence role
// registry, the event log, the projections (graph, tasks, metrics,
// evidence — NewProjectionSet) and the tailer that keeps them at the log's
// head (restored from the newest snapshot, then caught up), this process's
// search index slot and its follower, and the bus. Close undoes it in
// reverse and returns the first error.
//
// Reads go through Read(ctx, func(View)): the tailer first catches up with
// the log head, so the view reflects every event committed by any process
// before Read was called; the View holds the projections, the resolver and
// the search index at one log position (View.Pos, an answer's
// meta.log_seq). Writes go through Append; a write that answers with the
// state it produced waits for its own events (WaitFor) and reads them back
// (View).
//
// # Files of a state folder
//
// Every name is declared once, in files.go (or, for a file a lower package
// owns, taken from it there).
//
//	events.db               the event log: a bbolt file (format: package eventlog/boltlog). Written by every
//	                        process that appends, one write transaction at a time.
//	events.db.lock          the log's lock file: flock exclusive for a write transaction, shared for a read.
//	events.db.replaced-<t>  the log `cos restore` replaced, kept (never deleted by cos).
//	.gitignore              "*", written when cos creates the folder, so it never shows in git status.
//	events.db.head          48-byte hint of the log's head (seq ‖ hash), rewritten after each commit, so
//	                        a freshness check is a pread.
//	snapshots/snap-<seq>.bin  projection snapshots (format: package projections, snapshot.go), written by
//	                        each process's tailer in the background and by `cos index`; any file that
//	                        fails its checksum is skipped. Safe to delete.
//	search/slot-<n>/        one bleve index per running process (format: bleve scorch), owned by whoever
//	search/slot-<n>.lock    holds the slot's flock; rebuilt from the graph when missing. Safe to delete
//	                        while no process runs.
//	nats.json, nats.lock    the embedded NATS server's address and the host election's lock
//	                        (package bus). Written by the elected host.
//	subsystems-state.json   which modules are switched off ({"modules":{"tasks":false}}), written by
//	                        `cos module enable|disable` (temp → fsync → rename → fsync folder).
//	roles.json              optional evidence role registry override, written by the user.
//	index-cache/<hash>/     the extractors' caches for one indexed root (extract-stat.gob,
//	                        extract-decls.gob; package extract). Written by indexing. Safe to delete:
//	                        the next index re-extracts everything once.
//	index-root.json         {"root": "<abs>"}: the folder the graph was last indexed from; the doctor and
//	                        rename plans read files under it. Written by indexing.
//	index.lock              serialises index runs across processes (flock).
//	.mcp.log                forensic log of failed and slow calls (JSON lines, mode 0600), appended by
//	                        every serving process.
//	agent/                  exported evidence bundles (evidence_bundle_<session>.json) unless
//	                        $COS_AGENT_DIR names another folder.
//
// Only events.db (and roles.json, subsystems-state.json, which a person
// writes) hold facts: everything else can be rebuilt from the log.
//
// # Lock order
//
// From outermost to innermost; a lock is never taken while one below it in
// this list is held:
//
//  1. indexing.Indexer.mu, then the index lock file (state.IndexLockFile):
//     one index run at a time. Taken outside any view.
//  2. the search follower's mutex (its per-path uid map): held across a
//     View while the follower starts, released before it views a batch.
//  3. the tailer's write lock (catch-up, Offer) or read lock (a View): a
//     tool handler runs under the read lock and must not call Read, View,
//     WaitFor, Append or anything that catches up from inside it.
//  4. the event log's lock file, then bbolt's file lock: taken per
//     transaction inside eventlog/boltlog, never held across a call.
//
// The tailer calls its followers (the search index) after releasing its
// write lock, so a follower may take a view.
package state
