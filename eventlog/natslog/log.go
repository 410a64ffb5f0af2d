package natslog

import (
	"context"
	"errors"

	"github.com/cos-dev/cos/eventlog"
)

// errNotYet marks the skeleton.
var errNotYet = errors.New("natslog: not implemented yet")

// Log is the event log in one JetStream stream, shared by any number of
// handles in any number of processes and machines. It is safe for
// concurrent use.
type Log struct {
	opts Options
}

// Open connects to the NATS servers at url ("nats://host:port", or a
// comma-separated list; ignored when o.Conn is set), and opens the log in
// the JetStream stream o.Stream, creating it when missing (unless
// o.ReadOnly) with file storage, DenyDelete, DenyPurge and atomic batch
// publish allowed. It refuses a stream whose configuration is not one cos
// created (eventlog.ErrFormat), and a server without JetStream or atomic
// batches (*eventlog.StorageError). It then reads the stream to the end
// (to know every cos stream's revision and the receipts of the window).
// ctx bounds all of that. Errors: an options error, eventlog.ErrFormat,
// *eventlog.StorageError, ctx's error.
func Open(ctx context.Context, url string, o Options) (*Log, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, errNotYet
}

// Append: see state.Log.
func (l *Log) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error) {
	return nil, errNotYet
}

// Read: see state.Log.
func (l *Log) Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	return errNotYet
}

// Head: see state.Log.
func (l *Log) Head(ctx context.Context) (eventlog.Head, error) {
	return eventlog.Head{}, errNotYet
}

// LookupReceipt: see state.Log.
func (l *Log) LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error) {
	return eventlog.Receipt{}, false, errNotYet
}

// Verify: see state.Log.
func (l *Log) Verify(ctx context.Context) (uint64, error) {
	return 0, errNotYet
}

// Follow calls fn for every event from fromSeq (0 and 1 both mean the
// first), in seq order, never concurrently, and then for each new event as
// it commits, until ctx ends (Follow returns ctx's error) or fn returns an
// error (Follow returns it; eventlog.ErrStop ends Follow with nil).
func (l *Log) Follow(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error {
	return errNotYet
}

// Close: see state.Log.
func (l *Log) Close(ctx context.Context) error {
	return nil
}
