package store

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// Options configure Open. The zero value opens for reading and writing,
// records no client name and discards diagnostics.
type Options struct {
	// ReadOnly opens the log for reading only: Append fails with
	// eventlog.ErrReadOnly. A missing log file reads as empty; a missing
	// NATS stream is ErrNoStream (it may be one that was deleted).
	ReadOnly bool
	// CreateStream creates a NATS store's stream when it is missing
	// (natslog.Options.Create); without it a missing stream is refused
	// with natslog.ErrNoStream. A file store's file is created either way.
	CreateStream bool
	// SingleReplica says one replica is intended for a NATS store's
	// stream (natslog.Options.SingleReplica): a stream created now gets
	// one replica whatever the address lists, records the intent, and no
	// open warns about it. Ignored for a file store.
	SingleReplica bool
	// Client names the client recorded on the events appended.
	Client string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// OnCommit, when set, receives every batch this process commits, in
	// seq order.
	OnCommit func([]eventlog.Event)
	// Checkpoint is the file where a NATS store's handle keeps what it
	// read of the stream between processes (natslog.Options.Checkpoint);
	// empty for none. A file store ignores it.
	Checkpoint string
}

// Open opens the event log at a: a bbolt file (eventlog/boltlog; unless
// o.ReadOnly its folder is created when missing) or a JetStream stream
// (eventlog/natslog; created when missing only with o.CreateStream, with
// a.Replicas()). Errors: the log's (eventlog.ErrFormat for a file or stream
// that is not a cos log, ErrNoStream for a missing stream,
// *eventlog.StorageError, ctx.Err()); a NATS store's
// name the store, and wrap ErrUnavailable when its servers did not answer.
func Open(ctx context.Context, a Address, o Options) (eventlog.Log, error) {
	actor := eventlog.Actor{Client: o.Client}
	if a.IsNATS() {
		replicas := a.Replicas()
		if o.SingleReplica {
			replicas = 1
		}
		l, err := natslog.Open(ctx, a.URLs, natslog.Options{
			Stream:        a.Stream,
			Replicas:      replicas,
			SingleReplica: o.SingleReplica,
			ReadOnly:      o.ReadOnly,
			Create:        o.CreateStream,
			Actor:         actor,
			Logger:        o.Logger,
			OnCommit:      o.OnCommit,
			Checkpoint:    o.Checkpoint,
		})
		if err != nil {
			return nil, fmt.Errorf("open the log in %s: %w", a, err)
		}
		return l, nil
	}
	if !o.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(a.Path), 0o755); err != nil {
			return nil, &eventlog.StorageError{Op: "create folder", Path: filepath.Dir(a.Path), Err: err}
		}
	}
	l, err := boltlog.Open(ctx, a.Path, boltlog.Options{
		ReadOnly: o.ReadOnly,
		Actor:    actor,
		Logger:   o.Logger,
		OnCommit: o.OnCommit,
	})
	if err != nil {
		return nil, err // a nil Log, not a Log holding a nil *boltlog.Log
	}
	return l, nil
}
