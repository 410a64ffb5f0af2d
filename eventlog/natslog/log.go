package natslog

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/oklog/ulid/v2"
)

// FormatVersion is the message format this package writes (doc.go). A
// stream cos creates carries it in its metadata under MetadataFormat.
const FormatVersion = "1"

// MetadataFormat is the stream metadata key that marks a JetStream stream
// as a cos event log, with FormatVersion as its value.
const MetadataFormat = "cos_log_format"

// duplicateWindow is the Nats-Msg-Id window of a stream cos creates. Cos
// does not rely on it: receipts live in the log itself.
const duplicateWindow = 2 * time.Minute

// Log is the event log in one JetStream stream, shared by any number of
// handles in any number of processes and machines. It is safe for
// concurrent use.
//
// Lock order: the committer's queue lock is never held while taking smu
// (the committer takes a batch under it, releases it, then decides under
// smu).
type Log struct {
	opts   Options
	limits eventlog.Limits
	actor  eventlog.Actor
	where  string // the store address, for errors
	nc     *nats.Conn
	ownNC  bool
	// conn follows the connection's drops and stalls (conn.go).
	conn *connWatch
	// replicas is the stream's replica count as Open read it; rounds are
	// pipelined only on one replica.
	replicas int
	// created is when the stream Open found was created (nil when it had
	// none): a stream of the same name created at another time is another
	// log (streamLastSeq).
	created atomic.Pointer[time.Time]
	// caughtUp is when the committer last asked the stream for its last
	// sequence (catchUpLocked); a round after identityCheckEvery without
	// one asks first. Guarded by smu.
	caughtUp time.Time
	js       jetstream.JetStream

	// smu guards m, stream, entropy, lastMS and checkpointSeq. stream is
	// nil while the stream of a read-only log does not exist.
	smu     sync.Mutex
	m       *model
	stream  jetstream.Stream
	entropy *ulid.MonotonicEntropy
	lastMS  uint64
	// checkpointSeq is the seq of the checkpoint last loaded or written
	// (checkpoint.go); startSeq the seq of the one Open loaded, 0 for none.
	checkpointSeq, startSeq uint64

	// committer groups concurrent Append calls into one round each
	// batch; nil in read-only mode.
	committer *eventlog.Committer[*pending]

	// closing is set once Close has begun; readers then return
	// eventlog.ErrClosed.
	closing atomic.Bool
	// known is the model's head, for Head without taking smu.
	known    atomic.Pointer[eventlog.Head]
	connOnce sync.Once

	// chooser picks the commit of large one-event rounds (chooser.go);
	// used under smu.
	chooser chooser

	stats struct {
		batches, events, requests, retries atomic.Uint64
	}
}

var _ eventlog.Log = (*Log)(nil)

// Open connects to the NATS servers at url ("nats://host:port", or a
// comma-separated list; ignored when o.Conn is set), and opens the log in
// the JetStream stream o.Stream. A missing stream is created with
// StreamConfig (file storage, DenyDelete, DenyPurge, atomic batch publish
// allowed) only when o.Create is set (and not o.ReadOnly); otherwise Open
// refuses it with ErrNoStream, a read-only open too: a missing stream is
// never read as an empty log, which `cos log head` would show as 0 events
// and `cos watch` would wait on forever. It refuses a stream that is not
// a cos log (eventlog.ErrFormat: no MetadataFormat, or a configuration that could
// drop, rewrite or reorder events), and a server without JetStream or
// without atomic batch publish (*eventlog.StorageError). It then reads the
// stream to its end, verifying the hash chain as it goes, to learn every
// cos stream's revision and the receipts of the window — from the seq of
// o.Checkpoint's file when it holds a usable checkpoint (checkpoint.go),
// which Close (and an Open that read 10,000 events or more) writes. ctx
// bounds all of that. Errors: an options error, ErrNoStream, eventlog.ErrFormat,
// *eventlog.StorageError, ctx's error.
func Open(ctx context.Context, url string, o Options) (*Log, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	l := &Log{
		opts:    o,
		limits:  eventlog.Limits{MaxEventBytes: o.MaxEventBytes},
		actor:   o.Actor,
		nc:      o.Conn,
		entropy: ulid.Monotonic(rand.Reader, 0),
	}
	if l.actor.PID == 0 {
		l.actor.PID = os.Getpid()
	}
	if l.actor.Host == "" {
		l.actor.Host, _ = os.Hostname()
	}
	l.m = newModel(o)
	l.conn = newConnWatch(o)
	l.where = url + "/" + o.Stream
	if l.nc == nil {
		timeout := 5 * time.Second
		if d, ok := ctx.Deadline(); ok {
			timeout = min(timeout, max(time.Until(d), time.Millisecond))
		}
		creds, err := credentialOptions()
		if err != nil {
			return nil, storeError("connect", l.where, err)
		}
		nc, err := nats.Connect(url, append(l.conn.dialOptions(o, timeout), creds...)...)
		if err != nil {
			return nil, storeError("connect", l.where, err)
		}
		l.nc, l.ownNC = nc, true
		l.conn.watch(nc)
	} else {
		l.where = l.nc.ConnectedUrlRedacted() + "/" + o.Stream
	}
	fail := func(err error) (*Log, error) {
		l.closeConn()
		return nil, err
	}
	js, err := jetstream.New(l.nc, jetstream.WithPublishAsyncTimeout(o.PublishTimeout))
	if err != nil {
		return fail(&eventlog.StorageError{Op: "open", Path: l.where, Err: err})
	}
	l.js = js
	if err := l.openStream(ctx); err != nil {
		return fail(err)
	}
	l.warnDurability()
	l.smu.Lock()
	l.checkpointSeq = l.loadCheckpoint(ctx)
	l.startSeq = l.checkpointSeq
	err = l.catchUpLocked(ctx)
	if err == nil && l.m.head.Seq-l.checkpointSeq >= checkpointEvery {
		l.saveCheckpoint()
	}
	l.smu.Unlock()
	if err != nil && !errors.Is(err, eventlog.ErrIntegrity) {
		return fail(err)
	}
	if o.ReadOnly {
		return l, nil
	}
	l.committer = eventlog.NewCommitter(eventlog.CommitterOptions[*pending]{Commit: l.commit})
	return l, nil
}

// StreamConfig is the configuration Open gives a stream it creates: the
// subjects cos.<ns>.log.> (ns: name in lower case), file storage, replicas
// copies, no limits (nothing is ever dropped), DenyDelete and DenyPurge,
// atomic batch publish, a two-minute Nats-Msg-Id window, and
// MetadataFormat. Operators who create the stream themselves (to place it,
// or to change the Nats-Msg-Id window) start from it.
func StreamConfig(name string, replicas int) jetstream.StreamConfig {
	if replicas <= 0 {
		replicas = DefaultReplicas
	}
	return jetstream.StreamConfig{
		Name:               name,
		Description:        "cos event log",
		Subjects:           []string{subjectFilter(name)},
		Retention:          jetstream.LimitsPolicy,
		MaxConsumers:       -1,
		MaxMsgs:            -1,
		MaxBytes:           -1,
		MaxMsgsPerSubject:  -1,
		Discard:            jetstream.DiscardNew,
		Storage:            jetstream.FileStorage,
		Replicas:           replicas,
		Duplicates:         duplicateWindow,
		DenyDelete:         true,
		DenyPurge:          true,
		AllowAtomicPublish: true,
		Metadata:           map[string]string{MetadataFormat: FormatVersion},
	}
}

// checkConfig returns an eventlog.ErrFormat naming the first setting of
// cfg that makes it not a cos log.
func checkConfig(cfg jetstream.StreamConfig, name string) error {
	bad := func(what string) error {
		return fmt.Errorf("%w: JetStream stream %q is not a cos event log: %s", eventlog.ErrFormat, name, what)
	}
	switch v, ok := cfg.Metadata[MetadataFormat]; {
	case !ok:
		return bad("it lacks the " + MetadataFormat + " metadata cos sets on the streams it creates")
	case v != FormatVersion:
		return fmt.Errorf("%w: JetStream stream %q has cos log format %q, this build reads format %s", eventlog.ErrFormat, name, v, FormatVersion)
	case !slices.Equal(cfg.Subjects, []string{subjectFilter(name)}):
		return bad(fmt.Sprintf("its subjects are %q, want [%q]", cfg.Subjects, subjectFilter(name)))
	case cfg.Storage != jetstream.FileStorage:
		return bad("it is not stored in files")
	case cfg.Retention != jetstream.LimitsPolicy:
		return bad("its retention is not limits (events would be removed once consumed)")
	case !cfg.DenyDelete || !cfg.DenyPurge:
		return bad("it allows deleting or purging messages")
	case cfg.MaxMsgs > 0 || cfg.MaxBytes > 0 || cfg.MaxAge > 0 || cfg.MaxMsgsPerSubject > 0:
		return bad("it has a message, byte, age or per-subject limit (old events would be dropped)")
	case cfg.AllowRollup || cfg.AllowMsgTTL || cfg.AllowMsgCounter || cfg.AllowMsgSchedules:
		return bad("it allows rollups, message TTLs, counters or schedules")
	case cfg.Mirror != nil || len(cfg.Sources) > 0 || cfg.SubjectTransform != nil || cfg.RePublish != nil:
		return bad("it mirrors, sources, transforms or republishes messages")
	case cfg.Sealed:
		return bad("it is sealed")
	case !cfg.AllowAtomicPublish:
		return bad("it does not allow atomic batch publish")
	}
	return nil
}

// openStream looks up the stream, creating it when missing and
// Options.Create is set.
func (l *Log) openStream(ctx context.Context) error {
	name := l.opts.Stream
	s, err := l.js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if l.opts.ReadOnly || !l.opts.Create {
			return noStream(l.where, name)
		}
		cfg := StreamConfig(name, l.opts.Replicas)
		if l.opts.SingleReplica {
			cfg.Metadata[MetadataSingleReplica] = SingleReplicaIntended
		}
		s, err = l.js.CreateStream(ctx, cfg)
		var apiErr *jetstream.APIError
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another process created it first
			s, err = l.js.Stream(ctx, name)
		} else if errors.As(err, &apiErr) && apiErr.ErrorCode == jsSubjectOverlap {
			return &eventlog.StorageError{Op: "create stream", Path: l.where, Err: fmt.Errorf(
				"another stream already holds the subjects %s (stream names that differ only in case share them): name that stream, or a name no other stream lowercases to", subjectFilter(name))}
		} else if err == nil && !s.CachedInfo().Config.AllowAtomicPublish {
			return &eventlog.StorageError{Op: "create stream", Path: l.where, Err: errors.New("the NATS server does not support atomic batch publish (nats-server 2.12 or newer is needed)")}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return storeError("open stream", l.where, err)
	}
	if err := checkConfig(s.CachedInfo().Config, name); err != nil {
		return err
	}
	l.stream = s
	l.replicas = s.CachedInfo().Config.Replicas
	created := s.CachedInfo().Created
	l.created.Store(&created)
	return nil
}

// Stats counts what this Log has committed since Open.
type Stats struct {
	// Batches is the number of publishes (atomic batches or single
	// messages) that committed; Requests and Events what they held.
	// Requests/Batches is the mean group commit size. Retries counts the
	// rounds decided again because another handle had written first.
	Batches, Requests, Events, Retries uint64
}

// Stats returns the commit counters of this Log.
func (l *Log) Stats() Stats {
	return Stats{
		Batches:  l.stats.batches.Load(),
		Requests: l.stats.requests.Load(),
		Events:   l.stats.events.Load(),
		Retries:  l.stats.retries.Load(),
	}
}

// Close stops accepting appends (Append then returns eventlog.ErrClosed),
// waits for the appends already accepted to commit, and closes the
// connection when Open dialled it. It is idempotent and safe to call from
// several goroutines. When ctx ends first it returns ctx's error; the
// accepted appends still commit, and a later Close waits for them again.
// Read, Head, Follow, LookupReceipt and Verify return eventlog.ErrClosed
// once Close has returned nil.
func (l *Log) Close(ctx context.Context) error {
	if l.committer != nil {
		if err := l.committer.Close(ctx); err != nil {
			return err
		}
	}
	if !l.closing.Load() {
		l.smu.Lock()
		l.saveCheckpoint()
		l.smu.Unlock()
	}
	l.closing.Store(true)
	l.closeConn()
	return nil
}

func (l *Log) closeConn() {
	l.connOnce.Do(func() {
		if l.ownNC && l.nc != nil {
			l.nc.Close()
		}
	})
}

// usable returns the error a read call answers before doing anything.
func (l *Log) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.closing.Load() {
		return eventlog.ErrClosed
	}
	return nil
}
