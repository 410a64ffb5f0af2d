package eventlog

import "context"

// Log is the event log contract: an append-only sequence of events, each
// with a gapless seq from 1, a per-stream revision and a place in a
// SHA-256 hash chain. *boltlog.Log (one bbolt file) and *natslog.Log (a
// NATS JetStream stream shared by several machines) implement it,
// eventlog/store opens either from a store address, and
// eventlog/eventlogtest holds the suite every implementation passes.
//
// # Concurrency
//
// A Log is safe for concurrent use by many goroutines, and any number of
// Logs — in this process or in others — may be open on the same log at
// once: every Append is decided against everything committed before it by
// any of them. Read, Head, LookupReceipt and Verify see every event
// committed before they start; events committed while they run may or may
// not be seen.
//
// # Errors
//
// Every method takes ctx first. Append, Read, Head, LookupReceipt and
// Verify return ctx's error, having done nothing, when ctx has already
// ended; Close does only when it would have to wait. The sentinel errors
// are this package's: match them with errors.Is (the concrete types with
// errors.As), never by message. Any method may also return a
// *StorageError when the storage underneath fails.
type Log interface {
	// Append appends each request atomically and independently, in order,
	// and returns one Result per request: a Receipt, or an error that
	// belongs to that request alone —
	//   - ErrStaleRevision (a *StaleRevisionError with the stream's
	//     current revision and hash) when Expect or ExpectedHash does not
	//     match, including a create (NoStream) of a stream that exists;
	//   - ErrRequestReuse (a *RequestReuseError naming the original
	//     receipt) when the request id is bound to another intent; the
	//     same id with the same intent returns the original Receipt with
	//     Replayed set and writes nothing;
	//   - ErrRequestID, ErrInvalidEvent (an *InvalidEventError naming the
	//     field) for a malformed request;
	//   - ErrIntegrity when the tail of the hash chain is broken (writes
	//     are refused, reads go on);
	//   - ErrCommitUnknown when the outcome is unknown, including when ctx
	//     ended after the request was handed on: retry with the same
	//     request id.
	// A failed request writes nothing. The error result is non-nil only
	// when no request was attempted: ErrClosed, ErrReadOnly or ctx's error.
	Append(ctx context.Context, reqs ...AppendRequest) ([]Result, error)
	// Read calls fn for every event from fromSeq (0 and 1 both mean the
	// first) to the end of the log, in seq order, never concurrently. fn
	// may return ErrStop to end early, and Read returns nil; any other
	// error of fn ends Read with that error. A record that does not decode
	// is ErrIntegrity; Read does not check the hash chain.
	Read(ctx context.Context, fromSeq uint64, fn func(Event) error) error
	// Head returns the seq and hash of the last committed event; seq 0 and
	// 64 zeros for an empty log. It is cheap: callers poll it.
	Head(ctx context.Context) (Head, error)
	// LookupReceipt returns the receipt bound to a request id while it is
	// kept (receipts are pruned after a window), and false when none is.
	LookupReceipt(ctx context.Context, requestID string) (Receipt, bool, error)
	// Verify walks the whole hash chain up to the head recorded when it
	// starts and returns the number of events verified, or ErrIntegrity
	// (an *IntegrityError naming the first bad seq) with the number of
	// good events before it.
	Verify(ctx context.Context) (uint64, error)
	// Close stops accepting appends (Append then returns ErrClosed), waits
	// for the appends already accepted to commit, and releases the log.
	// It is idempotent. When ctx ends first it returns ctx's error and the
	// accepted appends still commit; Close again to wait for them. Whether
	// Read, Head, LookupReceipt and Verify work after Close is the
	// implementation's choice (boltlog.Log's do).
	Close(ctx context.Context) error
}

// AppendOne appends one request to l and returns its receipt or its error.
func AppendOne(ctx context.Context, l Log, req AppendRequest) (Receipt, error) {
	res, err := l.Append(ctx, req)
	if err != nil {
		return Receipt{}, err
	}
	return res[0].Receipt, res[0].Err
}
