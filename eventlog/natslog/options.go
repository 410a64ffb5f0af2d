package natslog

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
)

// Defaults of Options.
const (
	// DefaultStream is the JetStream stream name when Options.Stream is
	// empty.
	DefaultStream = "COS"
	// DefaultReplicas is the replica count of a stream cos creates when
	// Options.Replicas is zero. Three is recommended for a cluster; a
	// stream of one replica is reported unless said to be intended
	// (Options.SingleReplica, Durability).
	DefaultReplicas = 1
	// DefaultReceiptWindow is how long a request-id receipt is kept when
	// Options.ReceiptWindow is zero: eventlog.DefaultReceiptMaxAge.
	DefaultReceiptWindow = eventlog.DefaultReceiptMaxAge
	// DefaultPublishTimeout bounds the wait for one publish acknowledgement
	// when Options.PublishTimeout is zero. A publish that is not
	// acknowledged in time is reported as eventlog.ErrCommitUnknown.
	DefaultPublishTimeout = 10 * time.Second
	// DefaultMaxBatchEvents bounds the events of one atomic batch (one
	// group commit) when Options.MaxBatchEvents is zero. The server allows
	// at most 1,000 messages in a batch.
	DefaultMaxBatchEvents = 1000
	// DefaultMaxBatchBytes bounds the encoded events of one atomic batch
	// when Options.MaxBatchBytes is zero.
	DefaultMaxBatchBytes = 8 << 20
)

// maxServerBatch is the most messages nats-server v2.15 accepts in one
// atomic batch (its default max_batch_size).
const maxServerBatch = 1000

// Options configure a Log. The zero value is valid: every zero field takes
// its default.
type Options struct {
	// Stream is the JetStream stream name; empty means DefaultStream. The
	// subjects of its events are cos.<ns>.log.<encoded cos stream>, ns
	// being Stream in lower case.
	Stream string
	// Replicas is the replica count when Open creates the stream; zero
	// means DefaultReplicas. An existing stream keeps its own.
	Replicas int
	// ReadOnly opens the log for Read, Head, Follow, LookupReceipt and
	// Verify: Append returns eventlog.ErrReadOnly. A missing stream is
	// ErrNoStream, as without Create (it is never created).
	ReadOnly bool
	// Create creates the stream (StreamConfig, with Replicas) when it is
	// missing. Without it Open refuses a missing stream with ErrNoStream:
	// creating a log is an explicit step (`cos log init`, `cos migrate
	// --to`), never a side effect of an open, so that a stream that was
	// deleted, or a cluster rebuilt with empty disks, is not silently
	// replaced by an empty log. Ignored with ReadOnly.
	Create bool
	// SingleReplica says one replica is intended (a single server, a
	// test, a log that may be lost): Open does not warn about a stream of
	// one replica (Durability), and when it creates the stream it gives
	// it one replica (Replicas must be 0 or 1) and records the intent in
	// the stream's metadata (MetadataSingleReplica) so that every handle,
	// on any machine, knows. Without it, and without that metadata, Open
	// of a one-replica stream logs a warning.
	SingleReplica bool
	// Actor is recorded on every event this Log appends. Zero fields are
	// filled with the process id and host name.
	Actor eventlog.Actor
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// OnCommit, when set, is called after each commit of this handle with
	// the events it wrote, in seq order. It must not block for long and
	// must not call Append.
	OnCommit func([]eventlog.Event)
	// ReceiptWindow is how long a request id is remembered: a retry with
	// the same id within it replays the original receipt. Zero means
	// DefaultReceiptWindow. It is independent of the stream's Duplicates
	// window (Nats-Msg-Id), which is only a second line of defence.
	ReceiptWindow time.Duration
	// ReceiptMaxCount bounds the receipts kept in memory; zero means
	// eventlog.DefaultReceiptMaxCount.
	ReceiptMaxCount int
	// MaxEventBytes is the largest compact JSON data of one event, in
	// bytes; zero means eventlog.DefaultMaxEventBytes. The server's
	// max_payload must allow it (an event is its data plus ~1 KiB).
	MaxEventBytes int
	// MaxBatchEvents and MaxBatchBytes bound one group commit (one atomic
	// batch publish); zero means the default. MaxBatchEvents is at most
	// 1,000, the server's limit.
	MaxBatchEvents int
	MaxBatchBytes  int
	// PublishTimeout bounds the wait for the server's acknowledgement of
	// one commit; zero means DefaultPublishTimeout.
	PublishTimeout time.Duration
	// PingInterval is how often the connection Open dials pings its
	// server, and MaxPingsOut how many pings may go unanswered: a server
	// that misses MaxPingsOut+1 in a row is left for the next server of
	// the URL list (conn.go). Zero means DefaultPingInterval (2 s) and
	// DefaultMaxPingsOut (2): a hung server is left within 4–6 s.
	PingInterval time.Duration
	MaxPingsOut  int
	// StallReconnect is how many calls in a row must fail for want of an
	// answer (unavailable, a publish not acknowledged in time), over at
	// least 5 s with no success between, before the handle reconnects to
	// another server of the list although its server answers pings (a
	// node cut off from its cluster). Zero means DefaultStallReconnect;
	// negative never reconnects for that.
	StallReconnect int
	// ReconnectWait is the pause before a server that was just tried is
	// dialled again; zero means DefaultReconnectWait (250 ms). Other
	// servers of the list are tried at once.
	ReconnectWait time.Duration
	// Conn, when set, is used instead of dialling the URL given to Open.
	// The Log does not close it, and its ping and reconnect settings are
	// the caller's: the four options above do not apply to it, and a
	// publish in flight when it drops waits out PublishTimeout.
	Conn *nats.Conn
	// Checkpoint is the path of a file (in the state folder) where the
	// handle keeps what it read of the stream — revisions, counters,
	// receipts — with the seq and hash it read to (checkpoint.go): Open
	// reads the stream only past it, and Close rewrites it. Empty means
	// none: Open reads the whole stream. Its folder must exist.
	Checkpoint string
	// Now returns the commit time; nil means time.Now. For tests.
	Now func() time.Time
}

// Validate reports a field out of range.
func (o Options) Validate() error {
	switch {
	case o.Stream != "" && !validStreamName(o.Stream):
		return fmt.Errorf("natslog options: stream name %q must be 1-32 letters, digits, '_' or '-'", o.Stream)
	case o.Replicas < 0 || o.Replicas > 5:
		return fmt.Errorf("natslog options: Replicas %d must be between 1 and 5", o.Replicas)
	case o.SingleReplica && o.Replicas > 1:
		return fmt.Errorf("natslog options: SingleReplica with Replicas %d: a single replica is one", o.Replicas)
	case o.ReceiptWindow < 0:
		return fmt.Errorf("natslog options: ReceiptWindow %s is negative", o.ReceiptWindow)
	case o.ReceiptMaxCount < 0:
		return fmt.Errorf("natslog options: ReceiptMaxCount %d is negative", o.ReceiptMaxCount)
	case o.MaxEventBytes < 0:
		return fmt.Errorf("natslog options: MaxEventBytes %d is negative", o.MaxEventBytes)
	case o.MaxBatchEvents < 0 || o.MaxBatchEvents > maxServerBatch:
		return fmt.Errorf("natslog options: MaxBatchEvents %d must be between 1 and %d", o.MaxBatchEvents, maxServerBatch)
	case o.MaxBatchBytes < 0:
		return fmt.Errorf("natslog options: MaxBatchBytes %d is negative", o.MaxBatchBytes)
	case o.PublishTimeout < 0:
		return fmt.Errorf("natslog options: PublishTimeout %s is negative", o.PublishTimeout)
	case o.PingInterval < 0:
		return fmt.Errorf("natslog options: PingInterval %s is negative", o.PingInterval)
	case o.MaxPingsOut < 0:
		return fmt.Errorf("natslog options: MaxPingsOut %d is negative", o.MaxPingsOut)
	case o.ReconnectWait < 0:
		return fmt.Errorf("natslog options: ReconnectWait %s is negative", o.ReconnectWait)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if o.Replicas == 0 || o.SingleReplica {
		o.Replicas = DefaultReplicas
	}
	if o.ReceiptWindow == 0 {
		o.ReceiptWindow = DefaultReceiptWindow
	}
	if o.ReceiptMaxCount == 0 {
		o.ReceiptMaxCount = eventlog.DefaultReceiptMaxCount
	}
	if o.MaxEventBytes == 0 {
		o.MaxEventBytes = eventlog.DefaultMaxEventBytes
	}
	if o.MaxBatchEvents == 0 {
		o.MaxBatchEvents = DefaultMaxBatchEvents
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.PublishTimeout == 0 {
		o.PublishTimeout = DefaultPublishTimeout
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.MaxPingsOut == 0 {
		o.MaxPingsOut = DefaultMaxPingsOut
	}
	if o.StallReconnect == 0 {
		o.StallReconnect = DefaultStallReconnect
	}
	if o.ReconnectWait == 0 {
		o.ReconnectWait = DefaultReconnectWait
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// validStreamName reports whether s is a JetStream stream name cos accepts:
// 1–32 ASCII letters, digits, '_' or '-'.
func validStreamName(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
