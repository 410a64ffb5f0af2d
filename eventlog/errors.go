package eventlog

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a backend's Append, Read, Head,
// LookupReceipt, Verify and Open return matches one of these with errors.Is,
// or is a *StorageError or a context error. docs/errors.md gives the code
// each becomes at the tool surface.
var (
	// ErrStaleRevision is returned when a request's expected revision or
	// expected hash does not match the stream (STALE_REVISION), including a create (NoStream) of a stream that already exists. The
	// concrete error is a *StaleRevisionError carrying the current revision
	// and hash.
	ErrStaleRevision = errors.New("stale revision")
	// ErrRequestReuse is returned when a request id already bound to one
	// intent is sent with another (E_REQUEST_REUSE).
	ErrRequestReuse = errors.New("request_id belongs to another intent")
	// ErrRequestID is returned when a request id is empty, longer than
	// MaxRequestIDLen characters, not valid UTF-8 or holds control
	// characters (E_REQUEST_ID).
	ErrRequestID = errors.New("invalid request_id")
	// ErrInvalidEvent is returned when a request breaks a limit: an empty
	// stream, a type not shaped like area.verb_noun, data that is not JSON
	// or is larger than Limits.MaxEventBytes, no events. The concrete error
	// is an *InvalidEventError naming the field.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrIntegrity is returned when the hash chain does not verify: by
	// Verify for any broken event, and by Append when the tail of the chain
	// is broken (writes are refused; reads still work). The concrete error
	// is an *IntegrityError naming the first bad seq.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrCommitUnknown is returned when a write was sent to storage but its
	// durability could not be confirmed (COMMIT_UNKNOWN), or when the
	// caller's context ended after its request was handed on to be
	// committed. Retry with the same request id:
	// the answer is the original receipt or a clean first write.
	ErrCommitUnknown = errors.New("commit outcome unknown")
	// ErrClosed is returned by Append on a closed log, and by any other
	// call a backend does not serve once closed.
	ErrClosed = errors.New("event log closed")
	// ErrReadOnly is returned by Append on a log opened read-only.
	ErrReadOnly = errors.New("event log opened read-only")
	// ErrFormat is returned by a backend's Open when the storage was
	// written by a newer, unknown format version, or is not an event log.
	ErrFormat = errors.New("unknown event log format")
	// ErrStop may be returned by a Read callback to stop reading early;
	// Read then returns nil.
	ErrStop = errors.New("stop reading")
)

// StaleRevisionError is the concrete ErrStaleRevision.
type StaleRevisionError struct {
	Stream string
	// Expected is what the request expected; ExpectedHash is empty when no
	// hash was expected.
	Expected     ExpectedRevision
	ExpectedHash string
	// Current is the stream's revision now (0: no such stream) and
	// CurrentHash the hash of its last event ("" when it does not exist).
	Current     uint64
	CurrentHash string
}

func (e *StaleRevisionError) Error() string {
	switch {
	case e.Expected.IsSet() && e.Expected.Revision() == 0 && e.Current > 0:
		return fmt.Sprintf("create target already exists: stream %q is at revision %d", e.Stream, e.Current)
	case e.Expected.IsSet() && e.Expected.Revision() != e.Current:
		return fmt.Sprintf("stream %q is at revision %d, expected %d", e.Stream, e.Current, e.Expected.Revision())
	default:
		return fmt.Sprintf("stream %q hash is %s, expected %s", e.Stream, orNone(e.CurrentHash), e.ExpectedHash)
	}
}

func (e *StaleRevisionError) Unwrap() error { return ErrStaleRevision }

func orNone(s string) string {
	if s == "" {
		return "none (no such stream)"
	}
	return s
}

// RequestReuseError is the concrete ErrRequestReuse.
type RequestReuseError struct {
	RequestID string
	// Original is the receipt the id is bound to.
	Original Receipt
}

func (e *RequestReuseError) Error() string {
	return fmt.Sprintf("request_id %q belongs to another intent (first used for stream %q at seq %d)", e.RequestID, e.Original.Stream, e.Original.FirstSeq)
}

func (e *RequestReuseError) Unwrap() error { return ErrRequestReuse }

// InvalidEventError is the concrete ErrInvalidEvent (and, with Field
// "request_id", wraps ErrRequestID instead).
type InvalidEventError struct {
	Field  string
	Reason string
	cause  error
}

func (e *InvalidEventError) Error() string { return e.Field + ": " + e.Reason }

func (e *InvalidEventError) Unwrap() error {
	if e.cause != nil {
		return e.cause
	}
	return ErrInvalidEvent
}

// IntegrityError is the concrete ErrIntegrity.
type IntegrityError struct {
	// Seq is the first event that does not verify (0: the log's metadata).
	Seq    uint64
	Reason string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("integrity check failed at seq %d: %s", e.Seq, e.Reason)
}

func (e *IntegrityError) Unwrap() error { return ErrIntegrity }

// CommitUnknownError is the concrete ErrCommitUnknown.
type CommitUnknownError struct{ Err error }

func (e *CommitUnknownError) Error() string {
	return "commit outcome unknown, retry with the same request_id: " + e.Err.Error()
}

func (e *CommitUnknownError) Unwrap() []error { return []error{ErrCommitUnknown, e.Err} }

// StorageError wraps a failure of the underlying storage, naming it. Its
// DatabasePath puts the database into the forensic line that an internal
// failure writes to .mcp.log (envelope.DatabasePather, docs/errors.md).
type StorageError struct {
	// Op is what failed ("open", "commit", "lock", …).
	Op string
	// Path names the storage: for the bbolt log, a file.
	Path string
	Err  error
}

func (e *StorageError) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err) }
func (e *StorageError) Unwrap() error { return e.Err }

// DatabasePath names the database the failing handle had open.
func (e *StorageError) DatabasePath() string { return e.Path }
