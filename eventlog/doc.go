// Package eventlog is the append-only event log of cos: one bbolt file that
// any number of processes append to and read from, with request-id
// idempotency, per-stream optimistic concurrency and a SHA-256 hash chain
// (DESIGN.md §3, seed 002).
//
// # Basics
//
// Open a Log on "<state>/events.db", Append requests, Read events from a
// seq, ask Head for the last seq, Close it. Every call that waits or does
// I/O takes a context first. Every event gets, inside the write transaction
// that commits it, a gapless seq from 1, a ULID (monotonic within the
// process), the commit time, its stream revision and its place in the hash
// chain.
//
// *Log implements state.Log, the contract the state folder declares; the
// suite in eventlog/eventlogtest asserts it (contract_test.go), and the
// tests of this package cover the rest: options, the files, corruption,
// several processes.
//
// # Files
//
//	events.db       the bbolt database (format below)
//	events.db.lock  lock file: flock exclusive for a write transaction,
//	                shared for a read; waiters are woken at once (Open,
//	                whose context can end its wait, polls instead)
//	events.db.head  48-byte hint of the head (headfile.go), so Head costs a
//	                pread, not a database open
//
// The database is opened for each transaction and closed again, so that
// several processes can write it: bbolt allows one read-write open at a time.
//
// # Buckets and keys (format version 1)
//
//	meta             "format" → 1 byte, FormatVersion
//	                 "head" → seq (8 bytes BE) ‖ hash (32 bytes)
//	                 "receipt_count" → 8 bytes BE
//	events           seq (8 bytes BE) → record
//	streams          stream name → revision (8 BE) ‖ last seq (8 BE) ‖ last hash (32)
//	receipts         request_id → intent hash (32) ‖ created (8 BE, Unix ns) ‖ Receipt JSON
//	receipts_by_seq  first seq of the receipt (8 BE) → request_id (pruning order)
//	counters         stream prefix → last allocated number (8 BE)
//
// A record is: 1 byte record version (1) ‖ CRC-32C (Castagnoli) of the JSON,
// 4 bytes BE ‖ the Event as JSON (the fields of Event, data compact).
//
// # Hash chain
//
// hash = SHA-256("cos-event-v1" ‖ for each of seq, id, time (RFC 3339 with
// nanoseconds, UTC), stream, revision, type, request_id, actor.pid,
// actor.host, actor.client, data, prev_hash: uvarint(len) ‖ bytes), as
// lowercase hex; numbers are decimal strings. prev_hash of seq 1 is 64 "0".
// meta "head" holds the last seq and hash. Every write transaction first
// checks the tail (last record decodes, its hash recomputes, it is the
// recorded head): a broken tail refuses the write with ErrIntegrity while
// reads go on. Verify walks the whole chain.
//
// # Request ids and CAS
//
// A request id binds the canonical intent of its request: stream (or stream
// prefix), expected revision, expected hash, and each event's type and data
// with object keys sorted. The same id with the same intent returns the
// original receipt with Replayed set and writes nothing; with another intent
// it is ErrRequestReuse. Receipts are kept for a window (Options
// ReceiptMaxCount, default 100,000, and ReceiptMaxAge, default 7 days) and
// pruned oldest first. A request that failed writes no receipt.
//
// A request may expect a revision of its stream (NoStream for a create) and
// the entity hash — the hash of the stream's last event. A mismatch is a
// *StaleRevisionError with the current revision and hash.
//
// # Group commit
//
// Append calls of one process are queued to a single committer goroutine,
// which takes everything queued (bounded by MaxBatchRequests and
// MaxBatchBytes) into one bbolt transaction: one pair of fsyncs for the
// whole batch. Requests are decided in arrival order and independently: a
// failed CAS fails only its own request.
//
// # Caveats
//
// A blocking flock cannot be interrupted, so a context ends a wait for the
// lock file only where the wait polls: in Open. Read, Head, Verify and
// LookupReceipt check their context before they wait, then wait for the
// write transaction in progress; the committer always waits.
//
// Durability is bbolt's: an acknowledged append has been fsynced. If the
// process dies between a commit and the head file's rewrite, the head file
// lags until the next commit or Open; Head is then briefly behind, never
// ahead. If the caller's context ends after its request was handed to the
// committer, the outcome is reported as ErrCommitUnknown: retry with the
// same request id.
package eventlog
