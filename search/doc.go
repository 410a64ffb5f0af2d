// Package search finds graph nodes by what an agent typed: a bleve index of
// nodes (Index) and the resolver that turns a uid, a repo-relative path or a
// name into one node (Resolver), as docs/uids.md (the scheme, resolution)
// describes.
//
// # Basics
//
// Each process keeps its own on-disk scorch index: bleve locks an on-disk
// index to one process, and scorch on disk answers a fuzzy query in well under
// a millisecond where the in-memory upsidedown index takes ~80 ms
// (NewMemOnly is never used). The indexes live in slot folders
//
//	<state-dir>/search/slot-N/       the bleve index of slot N
//	<state-dir>/search/slot-N.lock   flock held by the process using slot N
//
// OpenIndex takes the lowest slot whose lock is free, so a restarted process
// finds the folder (and checkpoint) a dead one left and only applies the
// events after it. Each document is a node: its uid (the document id), kind,
// label and path, plus the lowercased whole label, path and bare names (see
// lookup), and the words of the label and name through the identifier
// analyzer (Tokens): HTTPServerConfig → http server config,
// parse_json_token → parse json token, with kebab-case, dotted names and
// paths split too and no bare '_' tokens.
//
// Queries run in tiers (query.go): exact label or name, then whole-label
// prefix and typos (up to two edits), then every word as a word or prefix,
// then every word with typos — the costly per-word tiers run only when the
// cheaper ones found nothing.
//
// Apply writes one batch of upserts and deletes together with the log seq it
// reflects (bleve SetInternal in the same batch), so the checkpoint and the
// documents are persisted together; Checkpoint reads it back. Stage is
// Apply deferred: staged batches are merged and written as one bleve batch
// after Options.FlushDelay, at Options.MaxStaged uids, before any search and
// on Close (stage.go), so many small batches cost one segment and one fsync
// while a search still sees every batch staged before it. The index is a
// cache of the log: what a crash loses before the write is replayed from
// Checkpoint at the next start. A search's hits are ordered by score, then
// uid, inside bleve, so the top k are the same whatever the segments; a
// process that indexed a bulk (CompactMinUpdates documents: an index run)
// merges the index into one segment on Close (compact.go), since a search
// pays a searcher per segment for each of its terms.
//
// Resolver: direct → path_prefix → fuzzy, reporting which one answered
// (Resolution.ResolvedFrom = meta.resolved_from) and how the node matched
// (the Match* kinds). Fuzzy answers only with a unique best exact name
// (exact case over a bare name over other case) or a clear winner (score ≥
// 1.5× the runner-up); otherwise *AmbiguousError (E_AMBIGUOUS) with ranked
// candidates. A name never resolves to an external stub (the
// code:external: node of unresolved calls) while an in-tree node matches it
// as well, nor to a build-excluded node over an included one matching as
// well. Strict mode, for mutations, never goes fuzzy: a miss is
// *NotFoundError (E_NOT_FOUND) with suggestions that are never used as the
// answer. Candidates lists every candidate in the resolver's order, for
// cos_graph_resolve: tiers in order, and within a tier the resolver's rank
// over all the tier's index hits, found by paging the best-scored ones until
// no hit not seen can enter the top (tiertop.go), so a smaller limit is
// always the top of a larger one.
//
// # Caveats
//
// The index follows the head of the log; a view of the graph at a past seq
// confirms every index candidate through its own NodeSource, so it never
// answers with a node it does not hold, but it can miss a node that was
// deleted or renamed since.
//
// A slot whose index cannot be opened, or was written with another format
// version, is wiped and rebuilt from seq 0 (logged), never fatal. A
// version-3 index (before the name_exact field) is read as it is: the same
// answers, with more hits looked at for an ambiguous name.
//
// The analyzer is registered in bleve's global registry under
// IdentifierAnalyzer by this package's init.
//
// Lock order inside Index: applyMu before mu.
package search
