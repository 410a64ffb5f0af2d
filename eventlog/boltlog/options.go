package boltlog

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// Defaults of Options. The limits every backend shares (the event size,
// the receipt window, request ids, stream names) are package eventlog's.
const (
	// DefaultMaxBatchRequests bounds one group-commit transaction.
	DefaultMaxBatchRequests = 4096
	// DefaultMaxBatchBytes bounds the data of one group-commit transaction.
	DefaultMaxBatchBytes = 64 << 20
	// DefaultReadChunk is how many events Read takes per open of the file;
	// the file is closed (and the shared lock released) between chunks so
	// readers never hold writers back for long.
	DefaultReadChunk = 2048
)

// Options configure a Log. The zero value is valid: every zero field takes
// its default.
type Options struct {
	// ReadOnly opens the log for Read, Head and Verify only; Append returns
	// eventlog.ErrReadOnly and the file is never created or written.
	ReadOnly bool
	// MaxEventBytes is the largest compact JSON data of one event, in
	// bytes. Zero means eventlog.DefaultMaxEventBytes.
	MaxEventBytes int
	// ReceiptMaxCount and ReceiptMaxAge bound the request-id receipts kept:
	// a receipt is pruned once more than ReceiptMaxCount newer ones exist or
	// once it is older than ReceiptMaxAge. A retry after that writes again.
	// Zero means the default (eventlog.DefaultReceiptMaxCount,
	// eventlog.DefaultReceiptMaxAge).
	ReceiptMaxCount int
	ReceiptMaxAge   time.Duration
	// MaxBatchRequests and MaxBatchBytes bound one group-commit transaction;
	// zero means the default.
	MaxBatchRequests int
	MaxBatchBytes    int
	// ReadChunk is the number of events read per open of the file; zero
	// means DefaultReadChunk.
	ReadChunk int
	// Actor is recorded on every event this Log appends. Zero fields are
	// filled with the process id and host name.
	Actor eventlog.Actor
	// OnCommit, when set, is called by the committer goroutine after each
	// durable commit with the events it wrote, in seq order. It must not
	// block for long and must not call Append.
	OnCommit func(events []eventlog.Event)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Now returns the commit time; nil means time.Now. For tests.
	Now func() time.Time
}

// Validate reports a field out of range.
func (o Options) Validate() error {
	switch {
	case o.MaxEventBytes < 0:
		return fmt.Errorf("boltlog options: MaxEventBytes %d is negative", o.MaxEventBytes)
	case o.ReceiptMaxCount < 0:
		return fmt.Errorf("boltlog options: ReceiptMaxCount %d is negative", o.ReceiptMaxCount)
	case o.ReceiptMaxAge < 0:
		return fmt.Errorf("boltlog options: ReceiptMaxAge %s is negative", o.ReceiptMaxAge)
	case o.MaxBatchRequests < 0 || o.MaxBatchBytes < 0 || o.ReadChunk < 0:
		return fmt.Errorf("boltlog options: batch and chunk sizes must not be negative")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxEventBytes == 0 {
		o.MaxEventBytes = eventlog.DefaultMaxEventBytes
	}
	if o.ReceiptMaxCount == 0 {
		o.ReceiptMaxCount = eventlog.DefaultReceiptMaxCount
	}
	if o.ReceiptMaxAge == 0 {
		o.ReceiptMaxAge = eventlog.DefaultReceiptMaxAge
	}
	if o.MaxBatchRequests == 0 {
		o.MaxBatchRequests = DefaultMaxBatchRequests
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.ReadChunk == 0 {
		o.ReadChunk = DefaultReadChunk
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
