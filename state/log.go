package state

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/projections"
)

// Log is the event log as the state folder uses it: an append-only sequence
// of events, each with a gapless seq from 1, a per-stream revision and a
// place in a SHA-256 hash chain. Its types, errors and rules are package
// eventlog's; *boltlog.Log (one bbolt file) and *natslog.Log (a NATS
// JetStream stream shared by several machines) implement it, and
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
// are package eventlog's: match them with errors.Is (the concrete types
// with errors.As), never by message. Any method may also return an
// *eventlog.StorageError when the storage underneath fails.
type Log interface {
	// Append appends each request atomically and independently, in order,
	// and returns one Result per request: a Receipt, or an error that
	// belongs to that request alone —
	//   - eventlog.ErrStaleRevision (a *eventlog.StaleRevisionError with
	//     the stream's current revision and hash) when Expect or
	//     ExpectedHash does not match, including a create (NoStream) of a
	//     stream that exists;
	//   - eventlog.ErrRequestReuse (a *eventlog.RequestReuseError naming
	//     the original receipt) when the request id is bound to another
	//     intent; the same id with the same intent returns the original
	//     Receipt with Replayed set and writes nothing;
	//   - eventlog.ErrRequestID, eventlog.ErrInvalidEvent (a
	//     *eventlog.InvalidEventError naming the field) for a malformed
	//     request;
	//   - eventlog.ErrIntegrity when the tail of the hash chain is broken
	//     (writes are refused, reads go on);
	//   - eventlog.ErrCommitUnknown when the outcome is unknown, including
	//     when ctx ended after the request was handed on: retry with the
	//     same request id.
	// A failed request writes nothing. The error result is non-nil only
	// when no request was attempted: eventlog.ErrClosed, eventlog.ErrReadOnly
	// or ctx's error.
	Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error)
	// Read calls fn for every event from fromSeq (0 and 1 both mean the
	// first) to the end of the log, in seq order, never concurrently. fn
	// may return eventlog.ErrStop to end early, and Read returns nil; any
	// other error of fn ends Read with that error. A record that does not
	// decode is eventlog.ErrIntegrity; Read does not check the hash chain.
	Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
	// Head returns the seq and hash of the last committed event; seq 0 and
	// 64 zeros for an empty log. It is cheap: callers poll it.
	Head(ctx context.Context) (eventlog.Head, error)
	// LookupReceipt returns the receipt bound to a request id while it is
	// kept (receipts are pruned after a window), and false when none is.
	LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error)
	// Verify walks the whole hash chain up to the head recorded when it
	// starts and returns the number of events verified, or
	// eventlog.ErrIntegrity (an *eventlog.IntegrityError naming the first
	// bad seq) with the number of good events before it.
	Verify(ctx context.Context) (uint64, error)
	// Close stops accepting appends (Append then returns
	// eventlog.ErrClosed), waits for the appends already accepted to
	// commit, and releases the log. It is idempotent. When ctx ends first
	// it returns ctx's error and the accepted appends still commit; Close
	// again to wait for them. Whether Read, Head, LookupReceipt and Verify
	// work after Close is the implementation's choice (boltlog.Log's do).
	Close(ctx context.Context) error
}

var (
	_ Log = (*boltlog.Log)(nil)
	_ Log = (*natslog.Log)(nil)
)

// Every Log is what a projections.Tailer reads from.
var _ projections.Source = Log(nil)

// LogOptions configure OpenLog.
type LogOptions struct {
	// ReadOnly opens the log for reading only: Append fails with
	// eventlog.ErrReadOnly and a missing log reads as empty.
	ReadOnly bool
	// Client names the client recorded on the events appended.
	Client string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// OnCommit, when set, receives every batch this process commits, in
	// seq order.
	OnCommit func([]eventlog.Event)
	// Store is where the log lives (ParseStore): "" for the file LogFile
	// in the state folder, a bbolt file path, or
	// nats://HOST:PORT[,nats://HOST:PORT…][/STREAM] for a JetStream
	// stream several machines share.
	Store string
}

// OpenLog opens the event log of the state folder dir where o.Store says:
// the bbolt file LogFile in dir by default (package eventlog/boltlog),
// another bbolt file, or a JetStream stream (package eventlog/natslog,
// created when missing unless o.ReadOnly). It is the one place a backend is
// chosen. Unless o.ReadOnly, dir is created first when missing (with its
// .gitignore: EnsureDir): with a NATS store it still holds this machine's
// projections, snapshots, search index and locks. Errors: ErrStore for a
// bad o.Store, the log's (eventlog.ErrFormat for a file or stream that is
// not a cos log, *eventlog.StorageError, ctx.Err()). With a NATS store, a
// failure for want of an answer from the servers (natslog.ErrUnavailable:
// none reachable, no stream leader in time) is an E_UNAVAILABLE
// *envelope.Error wrapping it, from OpenLog and from every method of the
// Log it returns; an append whose outcome is unknown stays
// eventlog.ErrCommitUnknown.
func OpenLog(ctx context.Context, dir string, o LogOptions) (Log, error) {
	st, err := ParseStore(dir, o.Store)
	if err != nil {
		return nil, err
	}
	if !o.ReadOnly {
		if err := EnsureDir(dir); err != nil {
			return nil, err
		}
	}
	if st.IsNATS() {
		l, err := natslog.Open(ctx, st.URLs, natslog.Options{
			Stream:   st.Stream,
			Replicas: st.Replicas(),
			ReadOnly: o.ReadOnly,
			Actor:    eventlog.Actor{Client: o.Client},
			Logger:   o.Logger,
			OnCommit: o.OnCommit,
		})
		if err != nil {
			return nil, unavailable(fmt.Errorf("open the log in %s: %w", st, err))
		}
		return natsStore{l}, nil
	}
	if !o.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(st.Path), 0o755); err != nil {
			return nil, &eventlog.StorageError{Op: "create folder", Path: filepath.Dir(st.Path), Err: err}
		}
	}
	l, err := boltlog.Open(ctx, st.Path, boltlog.Options{
		ReadOnly: o.ReadOnly,
		Actor:    eventlog.Actor{Client: o.Client},
		Logger:   o.Logger,
		OnCommit: o.OnCommit,
	})
	if err != nil {
		return nil, err // a nil Log, not a Log holding a nil *boltlog.Log
	}
	return l, nil
}

// AppendOne appends one request to l and returns its receipt or its error.
func AppendOne(ctx context.Context, l Log, req eventlog.AppendRequest) (eventlog.Receipt, error) {
	res, err := l.Append(ctx, req)
	if err != nil {
		return eventlog.Receipt{}, err
	}
	return res[0].Receipt, res[0].Err
}
