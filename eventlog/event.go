package eventlog

import (
	"encoding/json"
	"time"
)

// Actor identifies the process (and, when known, the MCP client) that
// appended an event.
type Actor struct {
	PID    int    `json:"pid"`
	Host   string `json:"host"`
	Client string `json:"client,omitempty"`
}

// Event is one committed entry of the log. Every field is assigned when the
// event commits, atomically with it; doc.go describes the hash chain, and
// each backend's package how it stores events.
type Event struct {
	// Seq is the position in the log: gapless, from 1.
	Seq uint64 `json:"seq"`
	// ID is a ULID, monotonic within the appending process; it is also the
	// NATS message id (Nats-Msg-Id) of the event.
	ID string `json:"id"`
	// Time is the commit time, UTC.
	Time time.Time `json:"time"`
	// Stream names the entity the event belongs to: "graph",
	// "task:TASK-007", "evidence:<session>", "metrics", "system".
	Stream string `json:"stream"`
	// Revision is the 1-based position of the event within its stream.
	Revision uint64 `json:"revision"`
	// Type is shaped like area.verb_noun: "graph.file_extracted",
	// "task.updated".
	Type string `json:"type"`
	// RequestID is the caller's idempotency key, if any (doc.go,
	// "Request ids").
	RequestID string `json:"request_id,omitempty"`
	Actor     Actor  `json:"actor"`
	// Data is the payload: compact JSON, never empty.
	Data json.RawMessage `json:"data"`
	// PrevHash and Hash are lowercase hex SHA-256 digests; PrevHash of the
	// first event is 64 zeros.
	PrevHash string `json:"prev_hash"`
	Hash     string `json:"hash"`
}

// Payload is one event to append: its type and its JSON data.
type Payload struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// ExpectedRevision is the optimistic-concurrency condition of a request. The
// zero value expects nothing.
type ExpectedRevision struct {
	set bool
	rev uint64
}

// NoStream requires that the stream does not exist yet (a create).
func NoStream() ExpectedRevision { return ExpectedRevision{set: true, rev: 0} }

// AtRevision requires that the stream's current revision is rev; rev 0 is the
// same as NoStream.
func AtRevision(rev uint64) ExpectedRevision { return ExpectedRevision{set: true, rev: rev} }

// IsSet reports whether a revision is expected.
func (e ExpectedRevision) IsSet() bool { return e.set }

// Revision returns the expected revision; 0 means "no stream yet".
func (e ExpectedRevision) Revision() uint64 { return e.rev }

// AppendRequest is one unit of Append: one or more events appended to one
// stream atomically, under one optional request id and one optional CAS
// condition. Requests in the same Append call succeed or fail
// independently.
type AppendRequest struct {
	// Stream is the target stream. When empty, StreamPrefix must be set and
	// the log allocates the stream name as it commits, as
	// StreamPrefix + a counter of at least three digits ("task:TASK-" →
	// "task:TASK-001"); an allocated stream is always new.
	Stream       string
	StreamPrefix string
	// Events are appended in order; at least one.
	Events []Payload
	// RequestID, when set (1–MaxRequestIDLen characters), makes the request
	// idempotent: the id binds the request's canonical intent (doc.go,
	// "Request ids").
	RequestID string
	// Expect is the expected revision of Stream.
	Expect ExpectedRevision
	// ExpectedHash, when set, must equal the hash of the stream's last event
	// (the entity hash); a mismatch is a StaleRevisionError.
	ExpectedHash string
	// Client names the MCP client on whose behalf the request is made; it is
	// recorded in Actor.Client.
	Client string
}

// Receipt is what a successful request returns, and what a replay of the same
// request id returns again.
type Receipt struct {
	Stream   string    `json:"stream"`
	FirstSeq uint64    `json:"first_seq"`
	LastSeq  uint64    `json:"last_seq"`
	Revision uint64    `json:"revision"` // stream revision after the request
	IDs      []string  `json:"ids"`
	Hashes   []string  `json:"hashes"` // one per event; the last is the entity hash
	Time     time.Time `json:"time"`
	Replayed bool      `json:"replayed"`
}

// Result is the outcome of one AppendRequest: a Receipt or an error.
type Result struct {
	Receipt Receipt
	Err     error
}

// Head is the log's last position.
type Head struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}
