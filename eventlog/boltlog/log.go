package boltlog

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
)

// Bucket and key names; doc.go describes what each holds.
var (
	bucketMeta     = []byte("meta")
	bucketEvents   = []byte("events")
	bucketStreams  = []byte("streams")
	bucketReceipts = []byte("receipts")
	bucketByAge    = []byte("receipts_by_seq")
	bucketCounters = []byte("counters")

	keyFormat   = []byte("format")
	keyHead     = []byte("head")
	keyReceipts = []byte("receipt_count")
)

// boltTimeout bounds a wait on bbolt's own file lock. Our lock file already
// orders every cos process, so this only fires when a foreign program holds
// the file.
const boltTimeout = 30 * time.Second

// Log is the append-only event log in one bbolt file, shared by any number
// of processes. It is safe for concurrent use.
//
// The file is opened for each transaction, under the lock file, and closed
// again, because bbolt allows one read-write open at a time: a write
// transaction holds the exclusive lock, a read chunk the shared lock.
// Concurrent Append calls of one process are grouped by a single committer
// goroutine into one write transaction.
type Log struct {
	path   string
	opts   Options
	limits eventlog.Limits
	lock   fileLock
	actor  eventlog.Actor

	// headMu guards headf and headClosed. headf is the open head file; nil
	// until it exists (read-only mode) and after Close (headClosed).
	headMu     sync.Mutex
	headf      *os.File
	headClosed bool
	// headChecked is when Head last confirmed the head file against the
	// database, in Unix nanoseconds.
	headChecked atomic.Int64
	// hintWrong is set once the head file was found ahead of the database
	// or naming another event at its seq (the log file was replaced by an
	// older or another one): Head then reads the database only.
	hintWrong atomic.Bool

	// entropy, lastMS and wlock are used by the committer goroutine only
	// (and by Open before it starts). wlock is the committer's own
	// descriptor of the lock file.
	entropy *ulid.MonotonicEntropy
	lastMS  uint64
	wlock   *os.File
	// tailSeen is the last record verified or written (loadTail skips the
	// decode while it is still the head); pendingMark the last one written
	// by the transaction in progress.
	tailSeen, pendingMark tailMark
	// written is the head after this handle's last commit: a later
	// transaction refuses a file that does not hold it (behind). Only the
	// committer touches it.
	written eventlog.Head

	// committer groups concurrent Append calls into one write
	// transaction each batch; nil in read-only mode.
	committer *eventlog.Committer[*pending]

	// stats are counters for Stats.
	stats struct {
		transactions, events, requests atomic.Uint64
	}
}

var _ eventlog.Log = (*Log)(nil)

// pending is one Append call waiting for the committer.
type pending struct {
	*eventlog.Handoff
	items []item
	bytes int // of the items' events
}

type item struct {
	index int // into pending.Results
	prep  eventlog.Prepared
}

// Open opens (creating when needed, unless opts.ReadOnly) the log at path.
// It takes the exclusive lock once to create the buckets, check the format
// version and rewrite the head file. ctx bounds that initialisation: the
// wait for the lock file (polled while ctx can end, instead of blocking in
// the kernel) and for bbolt's own lock (its timeout is cut to ctx's
// deadline). Errors: eventlog.ErrFormat, *eventlog.StorageError, an
// options error, ctx's error.
func Open(ctx context.Context, path string, opts Options) (*Log, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	l := &Log{
		path:    path,
		opts:    opts,
		limits:  eventlog.Limits{MaxEventBytes: opts.MaxEventBytes},
		lock:    fileLock{path: path + ".lock"},
		actor:   opts.Actor,
		entropy: ulid.Monotonic(rand.Reader, 0),
	}
	if l.actor.PID == 0 {
		l.actor.PID = os.Getpid()
	}
	if l.actor.Host == "" {
		l.actor.Host, _ = os.Hostname()
	}
	if opts.ReadOnly {
		if f, err := os.Open(path + ".head"); err == nil {
			l.headf = f
		}
		if _, err := os.Stat(path); err == nil {
			// A damaged file still opens read-only, so that Salvage can
			// read what is left; every other call reports the damage.
			if err := l.checkFormatReadOnly(ctx); err != nil && !errors.Is(err, ErrDamaged) {
				l.closeHead()
				return nil, err
			}
		}
		return l, nil
	}
	hf, err := os.OpenFile(path+".head", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &eventlog.StorageError{Op: "open head file", Path: path + ".head", Err: err}
	}
	l.headf = hf
	if l.wlock, err = l.lock.open(); err != nil {
		l.closeHead()
		return nil, err
	}
	if err := l.initialize(ctx); err != nil {
		l.closeHead()
		l.wlock.Close()
		return nil, err
	}
	l.committer = eventlog.NewCommitter(eventlog.CommitterOptions[*pending]{
		Commit:      l.commit,
		Weigh:       func(p *pending) (int, int) { return len(p.items), p.bytes },
		MaxRequests: opts.MaxBatchRequests,
		MaxBytes:    opts.MaxBatchBytes,
		Stopped:     func() { _ = l.wlock.Close() },
	})
	return l, nil
}

// initialize creates the buckets, checks the format and rewrites the head
// file from the database.
func (l *Log) initialize(ctx context.Context) error {
	release, err := l.lock.lockWait(ctx, l.wlock, true)
	if err != nil {
		return err
	}
	defer release()
	timeout := boltTimeout
	if d, ok := ctx.Deadline(); ok {
		if timeout = min(timeout, time.Until(d)); timeout <= 0 {
			return context.DeadlineExceeded
		}
	}
	var head eventlog.Head
	var txErr error
	err = withDB("open", l.path, bolt.Options{Timeout: timeout}, false, func(db *bolt.DB) error {
		txErr = db.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if meta == nil {
				if k, _ := tx.Cursor().First(); k != nil {
					return fmt.Errorf("%w: %s holds bucket %q but no meta bucket", eventlog.ErrFormat, l.path, k)
				}
				var err error
				if meta, err = tx.CreateBucket(bucketMeta); err != nil {
					return err
				}
				if err := meta.Put(keyFormat, []byte{FormatVersion}); err != nil {
					return err
				}
			}
			if err := checkFormat(meta, l.path); err != nil {
				return err
			}
			for _, name := range [][]byte{bucketEvents, bucketStreams, bucketReceipts, bucketByAge, bucketCounters} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			head = readMetaHead(meta)
			return nil
		})
		return nil
	})
	if err != nil {
		return err
	}
	if err := txErr; err != nil {
		if errors.Is(err, eventlog.ErrFormat) {
			return err
		}
		return &eventlog.StorageError{Op: "initialize", Path: l.path, Err: err}
	}
	if err := writeHeadFile(l.headf, head); err != nil {
		return &eventlog.StorageError{Op: "write head file", Path: l.path + ".head", Err: err}
	}
	return nil
}

func checkFormat(meta *bolt.Bucket, path string) error {
	v := meta.Get(keyFormat)
	if len(v) != 1 || v[0] != FormatVersion {
		return fmt.Errorf("%w: %s has format %v, this build reads format %d", eventlog.ErrFormat, path, v, FormatVersion)
	}
	return nil
}

func (l *Log) checkFormatReadOnly(ctx context.Context) error {
	return l.view(ctx, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return fmt.Errorf("%w: %s has no meta bucket", eventlog.ErrFormat, l.path)
		}
		return checkFormat(meta, l.path)
	})
}

// Stats counts what this Log has committed since Open.
type Stats struct {
	// Transactions is the number of write transactions committed; Requests
	// and Events what they held. Requests/Transactions is the mean group
	// commit size.
	Transactions, Requests, Events uint64
}

// Stats returns the commit counters of this Log.
func (l *Log) Stats() Stats {
	return Stats{
		Transactions: l.stats.transactions.Load(),
		Requests:     l.stats.requests.Load(),
		Events:       l.stats.events.Load(),
	}
}

// Path returns the database file's path.
func (l *Log) Path() string { return l.path }

// Close stops accepting appends, commits what is already queued, and waits
// for the committer to exit. It is idempotent, and safe to call from several
// goroutines. When ctx ends before the committer has exited, Close returns
// ctx's error; the committer still finishes the queue on its own, and a
// later Close waits for it again. Read, Head, Verify and LookupReceipt keep
// working on a closed Log (they open the file per call); Append returns
// eventlog.ErrClosed.
func (l *Log) Close(ctx context.Context) error {
	if l.committer != nil {
		if err := l.committer.Close(ctx); err != nil {
			return err
		}
	}
	l.closeHead()
	return nil
}

// closeHead closes the head file for good: Head falls back to the
// database from then on.
func (l *Log) closeHead() {
	l.headMu.Lock()
	defer l.headMu.Unlock()
	l.headClosed = true
	if l.headf != nil {
		_ = l.headf.Close()
		l.headf = nil
	}
}

// Head returns the seq and hash of the last committed event, {0, zeros} for
// an empty log. It reads the head file (a few microseconds) and falls back
// to the database when that file is missing or torn; ctx bounds that
// fallback, and Head returns ctx's error when ctx has already ended.
func (l *Log) Head(ctx context.Context) (eventlog.Head, error) {
	if err := ctx.Err(); err != nil {
		return eventlog.Head{}, err
	}
	l.headMu.Lock()
	if l.headf == nil && l.opts.ReadOnly && !l.headClosed {
		if f, err := os.Open(l.path + ".head"); err == nil {
			l.headf = f
		}
	}
	f := l.headf
	l.headMu.Unlock()
	if f != nil && !l.hintWrong.Load() {
		for range 3 {
			h, err := readHeadFile(f)
			if err != nil {
				continue
			}
			// The hint lags when a writer died between its commit and its
			// rewrite of the head file, and is ahead of a log file put
			// back by hand (an older copy: nothing rewrote the hint);
			// confirm it with the database at most once per headRecheck
			// (the first Head of a process always), so that lasts no
			// longer.
			now := time.Now().UnixNano()
			if last := l.headChecked.Load(); now-last < int64(headRecheck) || !l.headChecked.CompareAndSwap(last, now) {
				return h, nil
			}
			db, err := l.headFromDB(ctx)
			if err != nil || db == h {
				return h, nil
			}
			if db.Seq <= h.Seq {
				l.hintWrong.Store(true)
			}
			return db, nil
		}
	}
	return l.headFromDB(ctx)
}

// headRecheck is how often Head confirms the head file against the
// database.
const headRecheck = time.Second

func (l *Log) headFromDB(ctx context.Context) (eventlog.Head, error) {
	h := eventlog.Head{Hash: eventlog.ZeroHash}
	err := l.view(ctx, func(tx *bolt.Tx) error {
		if meta := tx.Bucket(bucketMeta); meta != nil {
			h = readMetaHead(meta)
		}
		return nil
	})
	return h, err
}

func readMetaHead(meta *bolt.Bucket) eventlog.Head {
	v := meta.Get(keyHead)
	if len(v) != 40 {
		return eventlog.Head{Hash: eventlog.ZeroHash}
	}
	return eventlog.Head{Seq: binary.BigEndian.Uint64(v[:8]), Hash: fmt.Sprintf("%x", v[8:40])}
}

// view runs fn in a read transaction of a read-only open of the file, under
// the shared lock. A missing file is an empty log: fn is not called.
func (l *Log) view(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	release, err := l.lock.lock(ctx, false)
	if err != nil {
		return err
	}
	defer release()
	if _, err := os.Stat(l.path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return withDB("open read-only", l.path, bolt.Options{ReadOnly: true, Timeout: boltTimeout}, false, func(db *bolt.DB) error {
		return db.View(fn)
	})
}

// viewLenient is view for Salvage: it does not refuse a truncated file but
// maps every page its meta page names (those past the end of the file
// fault, and the fault is a panic fn may recover with guarded). A missing
// file is an empty log.
func (l *Log) viewLenient(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	release, err := l.lock.lock(ctx, false)
	if err != nil {
		return err
	}
	defer release()
	if _, err := os.Stat(l.path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	o := bolt.Options{ReadOnly: true, Timeout: boltTimeout}
	if need, err := fileHighWater(l.path); err == nil && need < 1<<40 {
		o.InitialMmapSize = int(need)
	}
	return withDB("open read-only", l.path, o, true, func(db *bolt.DB) error {
		return db.View(fn)
	})
}

// Append appends each request atomically and independently: it returns one
// Result per request, in order, each a Receipt or an error of package
// eventlog (ErrStaleRevision, ErrRequestReuse, ErrRequestID,
// ErrInvalidEvent, ErrIntegrity, ErrCommitUnknown, *StorageError). A
// request that fails its checks (eventlog.Prepare) writes nothing and does
// not fail its neighbours.
//
// The error result is non-nil only when no request was attempted:
// eventlog.ErrClosed, eventlog.ErrReadOnly, or ctx ending before the
// committer took the call. When ctx ends after that, every request of the
// call reports eventlog.ErrCommitUnknown.
func (l *Log) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Result, error) {
	if l.opts.ReadOnly {
		return nil, eventlog.ErrReadOnly
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &pending{Handoff: eventlog.NewHandoff(len(reqs))}
	for i, r := range reqs {
		prep, err := eventlog.Prepare(r, l.limits)
		if err != nil {
			p.Results[i].Err = err
			continue
		}
		p.items = append(p.items, item{index: i, prep: prep})
		p.bytes += prep.Bytes
	}
	if len(p.items) == 0 {
		return p.Results, nil
	}
	p.Hand()
	if err := l.committer.Queue(p); err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// AppendOne appends one request and returns its receipt or its error.
func (l *Log) AppendOne(ctx context.Context, req eventlog.AppendRequest) (eventlog.Receipt, error) {
	res, err := l.Append(ctx, req)
	if err != nil {
		return eventlog.Receipt{}, err
	}
	return res[0].Receipt, res[0].Err
}

// newID returns a ULID for an event committed at now, monotonic within the
// process even if the clock steps back.
func (l *Log) newID(now time.Time) string {
	ms := ulid.Timestamp(now)
	if ms < l.lastMS {
		ms = l.lastMS
	}
	l.lastMS = ms
	id, err := ulid.New(ms, l.entropy)
	if err != nil { // entropy overflow within one millisecond: move on one
		l.lastMS++
		id = ulid.MustNew(l.lastMS, l.entropy)
	}
	return id.String()
}
