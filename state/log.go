package state

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/projections"
)

// Log is the event log as the state folder uses it: the contract is
// eventlog.Log (its doc says what every method does, and its errors);
// eventlog/store opens it where LogOptions.Store says.
type Log = eventlog.Log

// Every Log is what a projections.Tailer reads from.
var _ projections.Source = Log(nil)

// LogOptions configure OpenLog.
type LogOptions struct {
	// ReadOnly opens the log for reading only: Append fails with
	// eventlog.ErrReadOnly. A missing log file reads as empty; a missing
	// NATS stream is ErrNoStream (it may be one that was deleted).
	ReadOnly bool
	// CreateStream creates a NATS store's stream when it is missing (the
	// explicit step `cos log init` takes); without it OpenLog refuses a
	// missing stream (store.ErrNoStream).
	CreateStream bool
	// SingleReplica says one replica is intended for a NATS store's
	// stream (store.Options.SingleReplica, `cos log init
	// --single-replica`).
	SingleReplica bool
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

// OpenLog opens the event log of the state folder dir where o.Store says
// (store.Open): the bbolt file LogFile in dir by default, another bbolt
// file, or a JetStream stream (created when missing only with
// o.CreateStream).
// Unless o.ReadOnly, dir is created first when missing (with its
// .gitignore: EnsureDir): with a NATS store it still holds this machine's
// projections, snapshots, search index and locks. Errors: ErrStore for a
// bad o.Store, the log's (eventlog.ErrFormat for a file or stream that is
// not a cos log, *eventlog.StorageError, ctx.Err()). With a NATS store, a
// failure for want of an answer from the servers (store.ErrUnavailable:
// none reachable, no stream leader in time) is an E_UNAVAILABLE
// *envelope.Error wrapping it, from OpenLog and from every method of the
// Log it returns; an append whose outcome is unknown stays
// eventlog.ErrCommitUnknown.
func OpenLog(ctx context.Context, dir string, o LogOptions) (Log, error) {
	st, err := ParseStore(dir, o.Store)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(dir)
	created := errors.Is(statErr, fs.ErrNotExist)
	if o.ReadOnly && created && filepath.Dir(st.Path) == filepath.Clean(dir) {
		return nil, envelope.Wrap(statErr, envelope.CodeNotFound, "no state folder at %s: nothing has been indexed or written with it yet "+
			"(check --state-dir; `cos index DIR` or any write creates it)", dir)
	}
	if !o.ReadOnly {
		if err := EnsureDir(dir); err != nil {
			return nil, err
		}
	}
	l, err := store.Open(ctx, st, store.Options{ReadOnly: o.ReadOnly, CreateStream: o.CreateStream, SingleReplica: o.SingleReplica, Client: o.Client, Logger: o.Logger, OnCommit: o.OnCommit,
		Checkpoint: logCheckpoint(dir, st)})
	if err != nil {
		if created && !o.ReadOnly {
			// A failed first open leaves no state folder behind: only
			// what EnsureDir wrote, removed; a folder something else
			// wrote into since stays, with its .gitignore.
			_ = os.Remove(filepath.Join(dir, GitignoreFile))
			if rerr := os.Remove(dir); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				_ = EnsureDir(dir)
			}
		}
		if st.IsNATS() {
			return nil, unavailable(err)
		}
		return nil, err
	}
	if st.IsNATS() {
		return newNATSStore(l), nil
	}
	return l, nil
}

// AppendOne appends one request to l and returns its receipt or its error.
func AppendOne(ctx context.Context, l Log, req eventlog.AppendRequest) (eventlog.Receipt, error) {
	return eventlog.AppendOne(ctx, l, req)
}
