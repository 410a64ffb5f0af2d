// Package worktree serves a linked git worktree from the state folder of
// its main worktree: the worktree's files that differ from what the shared
// graph holds are extracted and kept over this process's graph projection
// (an Overlay, never appended to the log), and the tasks claimed through
// this process get their footprint derived from the worktree's diff
// (Footprints, task.footprint_derived events).
//
// # Basics
//
// Detect says whether a folder is in a linked worktree and where the main
// worktree is. NewOverlay(st, Options) registers the overlay on a state
// opened with state.Options.NoSnapshots; Sync brings it up to date with
// the disk (one extraction run over the worktree against the graph's
// content hashes: only the files that differ are extracted; the first
// starts from the main worktree's extract cache, extract.SeedCache, so it
// applies those files and their dependents, not the whole tree), Watch keeps
// it current. Memory grows with the changed files only: the overlay keeps
// each changed file's payload to apply it again when the log replaces that
// file (a re-index of the main tree).
//
// # Caveats
//
// The search index follows the log only: a symbol that exists only in the
// worktree is found by uid or path, not by a name search. The overlay
// covers the graph root indexed from the main worktree's folder.
package worktree
