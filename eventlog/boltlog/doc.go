// Package boltlog is the event log of cos in one bbolt file that any number
// of processes append to and read from. It implements eventlog.Log with the
// types, errors and rules of package eventlog — request validation, request
// ids, CAS, the hash chain — which doc.go there describes; this package
// documents how they are stored. docs/storage.md describes the same files
// for operators.
//
// # Basics
//
// Open a Log on "<state>/events.db", Append requests, Read events from a
// seq, ask Head for the last seq, Close it. Every call that waits or does
// I/O takes a context first. eventlog/store is the one package that opens
// it (state.OpenLog goes through it); packages above the state never
// import this package.
//
// The contract suite eventlog/eventlogtest runs against it
// (contract_test.go); the tests of this package cover the rest: options,
// the files, corruption, several processes, and the frozen format-1
// fixture in testdata/v1.
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
// 4 bytes BE ‖ the eventlog.Event as JSON (its fields, data compact);
// DecodeRecord reads one.
//
// # Hash chain
//
// Every event is chained with eventlog.EventHash inside the write
// transaction that commits it. meta "head" holds the last seq and hash.
// Every write transaction first checks the tail (last record decodes, its
// hash recomputes, it is the recorded head): a broken tail refuses the
// write with eventlog.ErrIntegrity while reads go on. Verify walks the
// whole chain with eventlog.VerifyEvent.
//
// # Receipts
//
// A receipt is stored under its request id with the request's intent hash
// (eventlog.Prepared.Intent), inside the transaction that writes its
// events. Receipts are kept for a window (Options ReceiptMaxCount and
// ReceiptMaxAge, by default eventlog's) and pruned oldest first, at most
// 1,024 per transaction.
//
// # Group commit
//
// Append calls of one process are queued to a single committer goroutine
// (an eventlog.Committer), which takes everything queued (bounded by MaxBatchRequests and
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
// bbolt trusts its file: it panics on a damaged page and faults (SIGBUS) on
// a mapped page past the end of a truncated file. Every open goes through
// withDB (damage.go), which checks the file's size against its meta page
// with pread before bbolt maps it, and recovers bbolt's panics and memory
// faults (debug.SetPanicOnFault) into ErrDamaged. After such a panic the
// file is closed but its mapping is left to the process, since bbolt's
// locks may be held. Salvage reads past lost pages one seq at a time.
//
// Durability is bbolt's: an acknowledged append has been fsynced. If the
// process dies between a commit and the head file's rewrite, the head file
// lags until the next commit or Open; Head is then briefly behind, never
// ahead. If the caller's context ends after its request was handed to the
// committer, the outcome is reported as eventlog.ErrCommitUnknown: retry
// with the same request id.
package boltlog
