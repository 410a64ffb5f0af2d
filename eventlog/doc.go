// Package eventlog is the vocabulary of the cos event log: the types a log
// takes and returns, its errors, and the rules every backend keeps — request
// validation, the canonical intent a request id binds, and the SHA-256 hash
// chain. It holds no storage: the contract is the Log interface; the
// backends are eventlog/boltlog (a bbolt file shared by processes) and
// eventlog/natslog (a NATS JetStream stream shared by machines), each
// group-committing through a Committer; eventlog/store opens, backs up,
// salvages and imports a log by its store address; the suite every backend
// passes is eventlog/eventlogtest. Packages above the state import this
// package, never a backend.
//
// # Basics
//
// A log is an append-only sequence of Events. Append takes AppendRequests —
// one or more Payloads for one stream, with an optional request id and CAS
// condition — and returns one Result per request: a Receipt or an error of
// that request alone. Read walks events from a seq, Head names the last one.
//
// Every event gets, atomically with its commit, a gapless Seq from 1, a ULID
// (monotonic within the appending process), the commit time, the 1-based
// Revision of its stream and its place in the hash chain.
//
// # Writing a backend
//
// A backend runs each request through Prepare before it touches storage; a
// request Prepare refuses fails alone and writes nothing. It then decides
// the prepared requests in order against what is committed — receipt, then
// CAS, then the new events — and stamps each event with EventHash over its
// fields and its predecessor's hash. Verify walks the chain link by link
// with VerifyEvent.
//
// # Hash chain
//
// hash = SHA-256("cos-event-v1" ‖ for each of seq, id, time (RFC 3339 with
// nanoseconds, UTC), stream, revision, type, request_id, actor.pid,
// actor.host, actor.client, data, prev_hash: uvarint(len) ‖ bytes), as
// lowercase hex; numbers are decimal strings and data is the compact JSON
// as stored. prev_hash of seq 1 is ZeroHash, and so is the hash of the Head
// of an empty log. Any change to a committed event breaks the chain. A
// backend refuses writes (ErrIntegrity) while the tail of its chain does
// not verify; reads go on. docs/storage.md shows the encoding,
// docs/errors.md what the tools answer when the chain is broken.
//
// # Request ids and CAS
//
// A request id binds the canonical intent of its request: stream (or stream
// prefix), expected revision, expected hash, and each event's type and data
// with object keys sorted and numbers as written (Prepared.Intent). The same
// id with the same intent returns the original receipt with Replayed set and
// writes nothing — checked before CAS, so it works after the stream has
// moved on; with another intent it is ErrRequestReuse. Receipts are kept for
// a window (by default the newest DefaultReceiptMaxCount, at most
// DefaultReceiptMaxAge old) and pruned oldest first. A request that failed
// writes no receipt.
//
// A request may expect a revision of its stream (NoStream for a create) and
// the entity hash — the hash of the stream's last event. A mismatch is a
// *StaleRevisionError with the current revision and hash. A request with a
// StreamPrefix instead of a Stream gets a new stream allocated as it
// commits: the prefix plus a counter of at least three digits.
//
// # Errors
//
// The sentinels in errors.go are the contract: callers match them with
// errors.Is and the concrete types with errors.As, never by message.
// ErrCommitUnknown means a write may or may not have committed: retry with
// the same request id, and the answer is the original receipt or a clean
// first write. docs/errors.md maps each sentinel to the code the tools
// answer with.
package eventlog
