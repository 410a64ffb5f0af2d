// Package indexing turns a folder of a repository into graph events on a
// state folder's log: it runs the extractors (package extract) against the
// content hashes the graph projection already holds, merges SCIP indexes
// when asked (package extract/scip), and appends each batch of changed files
// as one transaction. `cos index` and the cos_graph_index tool both call
// Indexer.IndexWith; it needs the state (package state), never a tool
// server or a transport.
//
// # Basics
//
// New(st, Options) returns an Indexer; IndexWith(ctx, root, RunOptions)
// indexes root and returns a Report. Runs take turns: within the process
// (Indexer.mu) and across processes (the index lock file in the state
// folder), because two runs of one root at once would take each other's
// files for vanished. A state folder holds several roots (roots.go):
// IndexWith places a folder among them, RemoveRoot takes one out.
//
// ApprovedPath and ApprovedFile check a client-supplied path against the
// approved roots (Options.Roots, default the working directory), symlinks
// resolved on both sides; Roots says where the graph's repo-relative paths
// are read from (the doctor, rename plans).
//
// IndexAtStart is what `cos serve` runs in the background: it indexes each
// approved root the graph holds no index of (Indexed), under the index lock
// like any run, and Starting says how far it is while it runs.
//
// # Payloads
//
// One graph.file_extracted event per file; a payload over the log's 1 MiB
// event limit is split into parts appended in one request (applied together
// or not at all). Only when no split fits (a node or edge over the limit on
// its own, such as a minified bundle's megabyte-long import) is the payload
// trimmed: metadata first, then the items over the limit on their own, the
// rest split as before; the file's parse errors say what was dropped and
// Report.TrimmedPaths names it.
package indexing
