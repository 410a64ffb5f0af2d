package projections

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// Source is what the Tailer needs of the event log; every state.Log
// satisfies it.
type Source interface {
	// Read calls fn for every event from fromSeq to the end of the log, in
	// seq order; fn may return eventlog.ErrStop to end early.
	Read(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
	// Head returns the last committed position, cheaply (no database open).
	Head(ctx context.Context) (eventlog.Head, error)
}

// Position is the last event a Tailer applied: its seq, hash and commit
// time. The zero Position is "nothing applied".
type Position struct {
	Seq  uint64    `json:"seq"`
	Hash string    `json:"hash,omitempty"`
	Time time.Time `json:"time"`
}

// Tailer keeps a set of projections at the head of the log
// (docs/architecture.md, read path and lock order).
//
// # Reads
//
// A tool call runs Fresh, then reads the projections inside View. Fresh
// compares the position with the log's Head (a few µs, no database open)
// and catches up only when behind, so a read reflects every event committed
// by any process before Fresh began.
//
// # Writes
//
// Events reach the projections only from the log, three ways, all
// serialised: CatchUp reads the log from the position on; Ring (a bus
// doorbell naming a seq) catches up when that seq is not applied yet; Start
// restores the newest valid snapshot (checked against the log) and catches
// up. An event a projection rejects is logged and skipped for that
// projection; it never stops the tailer. VerifyPosition checks the position
// against the log's record at its seq.
//
// # Followers
//
// OnApplied registers a function called with every batch applied after
// registration, in seq order, never concurrently, after the write lock is
// released and before the CatchUp, Fresh or Ring that applied the batch
// returns. It may call View and Position but not CatchUp, Fresh, Ring or
// Snapshot (they would deadlock), and it may keep the slice.
//
// # Lock order
//
// applyMu (serialises appliers and followers) before mu (the projections'
// RWMutex). Snapshot marshalling holds mu's read lock only.
type Tailer struct {
	src    Source
	projs  []Projection
	opts   TailerOptions
	log    *slog.Logger
	frozen bool // a point-in-time view: never advances

	// applyMu serialises CatchUp, Ring and the followers' calls; it guards
	// hooks and the batch being built.
	applyMu sync.Mutex
	hooks   []func([]eventlog.Event)
	// overlay, when set, is called under the write lock after each batch
	// (SetOverlay).
	overlay func([]eventlog.Event)

	// mu guards the projections and pos: held for writing while a batch is
	// applied, for reading by View and snapshot marshalling.
	mu  sync.RWMutex
	pos Position
	// posNow is pos, stored under the write lock whenever pos changes, for
	// Position: a second read lock taken inside View (a health answer
	// asking for the position) would wait behind a writer queued between
	// the two, which waits for the first: a deadlock of the whole process.
	posNow atomic.Pointer[Position]

	// published is the seq through which followers have been called; Fresh
	// compares it with the head so a read waits for the followers too.
	published atomic.Uint64
	// snapSeq is the seq of the last snapshot written or loaded.
	snapSeq atomic.Uint64

	started atomic.Bool
	closed  atomic.Bool
	kick    chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// afterSnapshot, when set (by tests, before Start), is called by the
	// background loop after each snapshot it writes.
	afterSnapshot func(Position)
}

// NewTailer returns a tailer over src for projs (which must be empty and
// have distinct names). It does no I/O: register followers with OnApplied,
// then call Start.
func NewTailer(src Source, projs []Projection, opts TailerOptions) (*Tailer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(projs))
	for _, p := range projs {
		if seen[p.Name()] {
			return nil, fmt.Errorf("tailer: two projections named %q", p.Name())
		}
		seen[p.Name()] = true
	}
	opts = opts.withDefaults()
	return &Tailer{src: src, projs: projs, opts: opts, log: opts.Logger, kick: make(chan struct{}, 1)}, nil
}

// Start restores the newest valid snapshot (unless disabled), catches up
// with the log and starts the background snapshot loop (unless disabled). A
// corrupt or foreign snapshot is skipped with a log line. Call it once.
func (t *Tailer) Start(ctx context.Context) error {
	if t.closed.Load() {
		return ErrClosed
	}
	if !t.started.CompareAndSwap(false, true) {
		return errors.New("tailer: Start called twice")
	}
	if t.opts.StateDir != "" && !t.opts.NoSnapshotLoad {
		if err := t.restore(ctx, Until{}); err != nil {
			return err
		}
	}
	if _, err := t.CatchUp(ctx); err != nil {
		return err
	}
	if t.opts.StateDir != "" && !t.opts.NoBackgroundSnapshots {
		bg, cancel := context.WithCancel(context.Background())
		t.cancel = cancel
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.snapshotLoop(bg)
		}()
	}
	return nil
}

// restore loads the newest snapshot covering at most until.
func (t *Tailer) restore(ctx context.Context, until Until) error {
	t.applyMu.Lock()
	defer t.applyMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	pos, err := loadSnapshot(ctx, t.snapshotDir(), t.src, t.projs, until, t.log)
	switch {
	case errors.Is(err, ErrNoSnapshot):
		return nil
	case err != nil:
		return err
	}
	t.setPos(pos)
	t.published.Store(pos.Seq)
	t.snapSeq.Store(pos.Seq)
	t.log.Info("restored snapshot", "seq", pos.Seq)
	return nil
}

// Close stops the background snapshot loop and waits for it. It is
// idempotent; reads through View still work afterwards, CatchUp, Fresh and
// Ring return ErrClosed.
func (t *Tailer) Close() error {
	if !t.closed.CompareAndSwap(false, true) {
		return nil
	}
	if t.cancel != nil {
		t.cancel()
	}
	t.wg.Wait()
	return nil
}

// OnApplied registers fn as a follower (see the type's doc) and returns the
// position at registration: fn sees every event after it. A follower whose
// own checkpoint is behind that position fills the gap itself (from the log,
// or from the projections under View).
func (t *Tailer) OnApplied(fn func(evs []eventlog.Event)) Position {
	t.applyMu.Lock()
	defer t.applyMu.Unlock()
	t.hooks = append(t.hooks, fn)
	return t.Position()
}

// SetOverlay registers fn, called under the write lock after each batch of
// log events is applied and before any reader sees it: a process that
// keeps changes of its own over the projections (a worktree's files, never
// logged) applies them again there when the log replaced them. fn must not
// call the tailer. Call it once, before Start; a tailer with an overlay
// must not write snapshots (they would hold the overlay).
func (t *Tailer) SetOverlay(fn func(evs []eventlog.Event)) { t.overlay = fn }

// Mutate runs fn with the projections locked for writing, serialised with
// the appliers: the way an overlay changes them outside the log. The
// position does not move.
func (t *Tailer) Mutate(fn func()) {
	t.applyMu.Lock()
	defer t.applyMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	fn()
}

// Position returns the last applied event. It takes no lock, so it may be
// called inside View.
func (t *Tailer) Position() Position {
	if p := t.posNow.Load(); p != nil {
		return *p
	}
	return Position{}
}

// setPos sets pos. The caller holds mu for writing.
func (t *Tailer) setPos(pos Position) {
	t.pos = pos
	t.posNow.Store(&pos)
}

// View runs fn under the read lock with the position the projections
// reflect. fn must only read, and must not call the tailer's other methods
// but Position, which takes no lock (a second read lock would deadlock
// against a queued writer).
func (t *Tailer) View(fn func(pos Position)) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	fn(t.pos)
}

// Projections returns the projections, in the order given to NewTailer. Read
// them only inside View.
func (t *Tailer) Projections() []Projection { return t.projs }

// Fresh makes the projections reflect every event committed before the call:
// it reads the log head and catches up only when behind. A point-in-time
// view is always fresh.
func (t *Tailer) Fresh(ctx context.Context) error {
	if t.frozen {
		return nil
	}
	if t.closed.Load() {
		return ErrClosed
	}
	h, err := t.src.Head(ctx)
	if err != nil {
		return fmt.Errorf("read log head: %w", err)
	}
	if t.published.Load() >= h.Seq {
		return nil
	}
	_, err = t.CatchUp(ctx)
	return err
}

// CatchUp applies every event of the log after the position, in batches of
// BatchSize, and returns the new position's seq. Events read before an error
// are applied. A point-in-time view does not move.
func (t *Tailer) CatchUp(ctx context.Context) (uint64, error) {
	if t.frozen {
		return t.Position().Seq, nil
	}
	if t.closed.Load() {
		return 0, ErrClosed
	}
	t.applyMu.Lock()
	defer t.applyMu.Unlock()
	return t.catchUpLocked(ctx, Until{})
}

// Ring is the bus's doorbell: a message announced that the log reached
// seq. When the projections are behind seq, Ring catches up from the log,
// which is the only source of the events it applies; a bus message's body
// is never applied, so a message forged or garbled by anyone who can
// publish on the bus changes nothing. A seq the log does not have (a forged
// or foreign message) is logged and ignored: nothing past the log's head is
// applied. A seq already applied costs an atomic load.
func (t *Tailer) Ring(ctx context.Context, seq uint64) error {
	if t.frozen {
		return nil
	}
	if t.closed.Load() {
		return ErrClosed
	}
	if seq <= t.published.Load() {
		return nil
	}
	t.applyMu.Lock()
	defer t.applyMu.Unlock()
	if seq <= t.pos.Seq { // pos only changes under applyMu, which we hold
		return nil
	}
	got, err := t.catchUpLocked(ctx, Until{})
	if err != nil {
		return err
	}
	if got < seq {
		t.log.Warn("a bus message announced an event the log does not have; ignored", "seq", seq, "log_head", got)
	}
	return nil
}

// PositionCheck is the result of VerifyPosition: whether the event the
// projections were last built from is the log's event at that seq.
type PositionCheck struct {
	// Seq is the position checked; Hash is the hash of the event the
	// projections applied there.
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash,omitempty"`
	// LogHash is the hash of the log's record at Seq; empty when the log
	// has none (or Seq is 0).
	LogHash string `json:"log_hash,omitempty"`
	// Verified is true when Hash equals LogHash (or Seq is 0: nothing
	// applied).
	Verified bool `json:"verified"`
	// Problem says why Verified is false, in words; empty otherwise.
	Problem string `json:"problem,omitempty"`
}

// VerifyPosition reads the log's record at pos.Seq and reports whether its
// hash is pos.Hash. pos is a position this tailer handed out (View's
// argument); VerifyPosition takes no tailer lock, so it may be called inside
// View (the log's own lock is innermost). It never fails: a record it
// cannot read is reported as not verified, with the reason.
func (t *Tailer) VerifyPosition(ctx context.Context, pos Position) PositionCheck {
	pc := PositionCheck{Seq: pos.Seq, Hash: pos.Hash}
	if pos.Seq == 0 {
		pc.Verified = true
		return pc
	}
	err := t.src.Read(ctx, pos.Seq, func(ev eventlog.Event) error {
		if ev.Seq == pos.Seq {
			pc.LogHash = ev.Hash
		}
		return eventlog.ErrStop
	})
	switch {
	case err != nil:
		pc.Problem = fmt.Sprintf("the log's event at seq %d could not be read: %v", pos.Seq, err)
	case pc.LogHash == "":
		pc.Problem = fmt.Sprintf("the projections reflect seq %d but the log has no event there (was the log replaced?); restart the server to rebuild them from the log", pos.Seq)
	case pc.LogHash != pos.Hash:
		pc.Problem = fmt.Sprintf("the projections were built from an event at seq %d that is not the log's (hash %s, the log's %s); restart the server to rebuild them from the log", pos.Seq, short(pos.Hash), short(pc.LogHash))
	default:
		pc.Verified = true
	}
	return pc
}

// short returns the first 12 characters of a hash, for messages.
func short(h string) string { return h[:min(len(h), 12)] }

// catchUpLocked reads the log from the position on, up to until, applying
// batches. Reading (and decoding records) runs in a goroutine one or two
// batches ahead of applying, so the two overlap on a long catch-up; the
// goroutine always ends before catchUpLocked returns, and every batch it
// read is applied. The caller holds applyMu.
func (t *Tailer) catchUpLocked(ctx context.Context, until Until) (uint64, error) {
	from := t.pos.Seq + 1
	batches := make(chan []eventlog.Event, 2)
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(batches)
		next := from
		batch := make([]eventlog.Event, 0, t.opts.BatchSize)
		readErr = t.src.Read(ctx, from, func(ev eventlog.Event) error {
			if until.excludes(ev) {
				return eventlog.ErrStop
			}
			if ev.Seq != next {
				return fmt.Errorf("%w: want seq %d, the log gave %d", ErrSeqGap, next, ev.Seq)
			}
			next++
			batch = append(batch, ev)
			if len(batch) == t.opts.BatchSize {
				batches <- batch // the consumer drains until close
				batch = make([]eventlog.Event, 0, t.opts.BatchSize)
			}
			return nil
		})
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	for batch := range batches {
		t.applyBatch(batch)
	}
	wg.Wait()
	if readErr != nil {
		return t.pos.Seq, fmt.Errorf("catch up from seq %d: %w", t.pos.Seq+1, readErr)
	}
	return t.pos.Seq, nil
}

// applyBatch folds evs (consecutive, starting at pos+1) into every
// projection under the write lock, then calls the followers. The caller
// holds applyMu.
func (t *Tailer) applyBatch(evs []eventlog.Event) {
	t.mu.Lock()
	for _, ev := range evs {
		for _, p := range t.projs {
			if err := p.Apply(ev); err != nil {
				t.log.Warn("projection skipped an event", "projection", p.Name(), "seq", ev.Seq, "type", ev.Type, "err", err)
			}
		}
	}
	last := evs[len(evs)-1]
	t.setPos(Position{Seq: last.Seq, Hash: last.Hash, Time: last.Time})
	if t.overlay != nil {
		t.overlay(evs)
	}
	t.mu.Unlock()
	for _, h := range t.hooks {
		h(evs)
	}
	t.published.Store(last.Seq)
	if !t.frozen && last.Seq-t.snapSeq.Load() >= t.opts.SnapshotEvery {
		select {
		case t.kick <- struct{}{}:
		default:
		}
	}
}

// StateHash returns the SHA-256 over every projection's name and StateHash,
// in projection order, with the position it reflects: equal in every process
// that applied the same events.
func (t *Tailer) StateHash() ([32]byte, Position) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	h := sha256.New()
	for _, p := range t.projs {
		sum := p.StateHash()
		h.Write([]byte(p.Name()))
		h.Write([]byte{0})
		h.Write(sum[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out, t.pos
}

func (t *Tailer) snapshotDir() string {
	return filepath.Join(t.opts.StateDir, SnapshotDirName)
}

// Snapshot writes a snapshot of the current state now and prunes old ones.
// It holds the read lock while the projections marshal, so it captures a
// consistent state at one seq while appliers wait; the file is written after
// the lock is released. It does nothing (and returns the position) when no
// event was applied yet or StateDir is empty.
func (t *Tailer) Snapshot(ctx context.Context) (Position, error) {
	if t.opts.StateDir == "" {
		return t.Position(), nil
	}
	t.mu.RLock()
	pos := t.pos
	var sections [][]byte
	var err error
	if pos.Seq > 0 {
		sections, err = marshalAll(t.projs)
	}
	t.mu.RUnlock()
	if err != nil || pos.Seq == 0 {
		return pos, err
	}
	if err := ctx.Err(); err != nil {
		return pos, err
	}
	names := make([]string, len(t.projs))
	for i, p := range t.projs {
		names[i] = p.Name()
	}
	path, err := writeSnapshotFile(t.snapshotDir(), pos.Seq, encodeSnapshot(pos, names, sections))
	if err != nil {
		return pos, err
	}
	t.snapSeq.Store(pos.Seq)
	t.log.Info("wrote snapshot", "path", path, "seq", pos.Seq)
	pruneSnapshots(t.snapshotDir(), t.opts.SnapshotKeep, t.log)
	return pos, nil
}

// snapshotLoop writes a snapshot when kicked (SnapshotEvery events applied)
// or on each SnapshotInterval tick when the position moved.
func (t *Tailer) snapshotLoop(ctx context.Context) {
	tick := time.NewTicker(t.opts.SnapshotInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.kick:
		case <-tick.C:
		}
		if t.Position().Seq == t.snapSeq.Load() {
			continue
		}
		pos, err := t.Snapshot(ctx)
		if err != nil {
			if ctx.Err() == nil {
				t.log.Warn("background snapshot failed", "err", err)
			}
			continue
		}
		if t.afterSnapshot != nil {
			t.afterSnapshot(pos)
		}
	}
}
