package state

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/search"
)

// Point-in-time reads of a live State (a tool's `at` argument): Past
// returns a frozen, read-only State holding the projections as they were
// at one seq — what `cos call --at` opens — built once from the newest
// snapshot at or before that seq plus the replay of the log up to it, and
// cached by seq. Fuzzy name lookups in a past view search the live search
// index and keep only the nodes the past graph holds: uids and paths
// resolve exactly, but a name only a node deleted since carried is not
// found by fuzzy matching (`cos call --at` indexes the past graph anew,
// which costs about 10 s per 100,000 nodes).
//
// # Caveats
//
// The cache holds at most Options.PastViews views (DefaultPastViews when
// zero), least recently used first out. A view in use is never closed: it
// is evicted from the cache at once but closed when its last user releases
// it, so the views calls are reading right now may exceed the cache bound,
// up to twice it counting those being built; past that a call at a new
// point in time waits until one is released (or its ctx ends: ErrPastBusy).
// Close closes every idle view and each busy one at its release.

// DefaultPastViews is how many point-in-time views a State keeps cached
// when Options.PastViews is zero. Each holds a copy of the projections (a
// 100,000-node graph is about 100 MB of heap).
const DefaultPastViews = 4

// ErrPastClosed is returned by Past when the State is closed (or closes
// while the view is being built).
var ErrPastClosed = errors.New("the state is closed; no past view can be opened")

// ErrPastBusy is returned by Past when as many views as a State may hold
// at once (twice its cache bound: cached, being read or being built) are
// all in use and ctx ended before one was released: another one cannot be
// built without going past the memory they are allowed. Past waits for
// room first; the error is transient.
var ErrPastBusy = errors.New("too many point-in-time views are in use at once")

// SeqAt returns the seq of the last event within until (seq ≤ until.Seq
// and commit time ≤ until.Time; a zero field is no bound), and the log's
// head seq. A bound past the head gives the head; a time before the first
// event gives 0, the empty state. A time is found by a binary search over
// the log (commit times follow seq order): about log2(head) point reads.
// Errors: the log's (unreadable, damaged), ctx's.
func (s *State) SeqAt(ctx context.Context, until projections.Until) (seq, head uint64, err error) {
	h, err := s.log.Head(ctx)
	if err != nil {
		return 0, 0, err
	}
	if s.ReadOnly() {
		// A point-in-time State ends at its own position.
		h.Seq = s.Position().Seq
	}
	seq = h.Seq
	if until.Seq != 0 && until.Seq < seq {
		seq = until.Seq
	}
	if until.Time.IsZero() || seq == 0 {
		return seq, h.Seq, nil
	}
	// The last seq in [1, seq] whose event time is ≤ until.Time: lo is
	// known to qualify (0 always does), hi+1 known not to.
	lo, hi := uint64(0), seq
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		t, err := s.eventTime(ctx, mid)
		if err != nil {
			return 0, 0, err
		}
		if t.After(until.Time) {
			hi = mid - 1
		} else {
			lo = mid
		}
	}
	return lo, h.Seq, nil
}

// eventTime returns the commit time of the event at seq.
func (s *State) eventTime(ctx context.Context, seq uint64) (time.Time, error) {
	var t time.Time
	found := false
	err := s.log.Read(ctx, seq, func(ev eventlog.Event) error {
		t, found = ev.Time, ev.Seq == seq
		return eventlog.ErrStop
	})
	if err == nil && !found {
		err = fmt.Errorf("read the event at seq %d: the log has none", seq)
	}
	return t, err
}

// Past is a borrowed point-in-time view: State is a frozen, read-only
// State at one seq (ReadOnly true, Append fails with ErrReadOnly, Read
// never catches up). Release it when done; it stays valid until then even
// if the cache evicts it or the parent State closes meanwhile.
type Past struct {
	e        *pastEntry
	c        *pastCache
	released atomic.Bool
}

// State returns the point-in-time State. Do not Close it (Close would
// close the parent's search index): Release the Past.
func (p *Past) State() *State { return p.e.st }

// Seq returns the seq the view reflects (its View.Pos.Seq).
func (p *Past) Seq() uint64 { return p.e.seq }

// Release gives the view back to the cache. It is idempotent.
func (p *Past) Release() {
	if p.released.CompareAndSwap(false, true) {
		p.c.release(p.e)
	}
}

// Past returns the state at seq (as SeqAt resolved it: at most the head),
// from the cache or built now: concurrent first calls at one seq build it
// once and all wait for that build. A caller whose ctx ends while it
// waits gets ctx's error; the build goes on for the others and is cached.
// Errors: ErrPastClosed, the build's (the log unreadable or damaged below
// seq), ctx's.
func (s *State) Past(ctx context.Context, seq uint64) (*Past, error) {
	c := &s.past
	var e *pastEntry
	for {
		var (
			idle []*pastEntry
			room <-chan struct{}
			err  error
		)
		e, idle, room, err = c.acquire(s, seq)
		c.closeEntries(idle)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrPastBusy) {
			return nil, err
		}
		// Every view alive is in use: wait until one is released or built.
		select {
		case <-room:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waited for one to be released: %v)", ErrPastBusy, ctx.Err())
		}
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		c.release(e)
		return nil, ctx.Err()
	}
	if e.err != nil {
		c.release(e)
		return nil, e.err
	}
	return &Past{e: e, c: c}, nil
}

// PastBuilds returns how many point-in-time views this State has built
// (cache misses), for tests and health.
func (s *State) PastBuilds() uint64 { return s.past.builds.Load() }

// PastCached returns how many point-in-time views are open now: cached,
// or evicted but still read by a call.
func (s *State) PastCached() int {
	s.past.mu.Lock()
	defer s.past.mu.Unlock()
	return s.past.open
}

// pastCache is a State's cache of point-in-time views (the zero value is
// ready; maps are made on first use). Its mutex is a leaf: never held
// while a view is built, read or closed.
type pastCache struct {
	// mu guards every field below it.
	mu sync.Mutex
	// entries are the cached views by seq, building or built.
	entries map[uint64]*pastEntry
	// tick orders uses, for least-recently-used eviction.
	tick uint64
	// open counts built views not yet closed (cached or still in use),
	// building the views being built; together at most pastAlive.
	open     int
	building int
	closed   bool
	// room is closed (and replaced) whenever a view may have become free
	// to evict: a release, a build done, a view closed.
	room chan struct{}
	// stop cancels the builds in flight (Close); builds waits for them.
	stop   context.CancelFunc
	ctx    context.Context
	builds atomic.Uint64
	wg     sync.WaitGroup
}

// pastEntry is one view: building until ready is closed, then st or err.
type pastEntry struct {
	seq   uint64
	ready chan struct{}
	st    *State
	err   error
	// refs counts the callers holding it (waiting or reading), under
	// pastCache.mu; used is the tick of its last acquire; evicted is set
	// when it left the cache, so the last release closes it.
	refs    int
	used    uint64
	evicted bool
}

// acquire returns the entry for seq with a reference taken, starting its
// build when there is none. Before a build would take the views alive past
// pastAlive it evicts the cached views nobody reads (returned for the caller
// to close outside the lock); when the views in use still fill the bound it
// refuses with ErrPastBusy.
func (c *pastCache) acquire(s *State, seq uint64) (*pastEntry, []*pastEntry, <-chan struct{}, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, nil, ErrPastClosed
	}
	if c.room == nil {
		c.room = make(chan struct{})
	}
	if c.entries == nil {
		c.entries = map[uint64]*pastEntry{}
		c.ctx, c.stop = context.WithCancel(context.Background())
	}
	c.tick++
	if e, ok := c.entries[seq]; ok {
		e.refs++
		e.used = c.tick
		return e, nil, nil, nil
	}
	var idle []*pastEntry
	if c.open+c.building >= s.pastAlive() {
		// Make room from the cached views nobody reads; the ones in use
		// stay cached for the calls that share them.
		for k, e := range c.entries {
			if e.st != nil && e.refs == 0 {
				delete(c.entries, k)
				e.evicted = true
				idle = append(idle, e)
			}
		}
		if c.open-len(idle)+c.building >= s.pastAlive() {
			return nil, idle, c.room, ErrPastBusy
		}
	}
	e := &pastEntry{seq: seq, ready: make(chan struct{}), refs: 1, used: c.tick}
	c.entries[seq] = e
	c.building++
	c.builds.Add(1)
	c.wg.Add(1)
	go c.build(s, e)
	return e, idle, nil, nil
}

// freedLocked wakes the callers waiting for room. Called with mu held.
func (c *pastCache) freedLocked() {
	if c.room != nil {
		close(c.room)
		c.room = make(chan struct{})
	}
}

// build opens the view of e (on the cache's own context: a caller that
// gives up does not fail the others waiting) and makes room for it.
func (c *pastCache) build(s *State, e *pastEntry) {
	defer c.wg.Done()
	st, err := s.openPast(c.ctx, e.seq)
	c.mu.Lock()
	c.building--
	c.freedLocked()
	e.st, e.err = st, err
	if err != nil {
		// A failure is not cached: the next call tries again.
		if c.entries[e.seq] == e {
			delete(c.entries, e.seq)
		}
		e.evicted = true
	} else {
		c.open++
		if c.closed {
			// Close ran while this was built: the last release closes it.
			e.evicted = true
		}
	}
	idle := c.evictLocked(s.pastLimit())
	c.mu.Unlock()
	// Closed before the waiters run, so that when they are done the
	// cache is within its bound.
	c.closeEntries(idle)
	close(e.ready)
}

// release drops one reference to e; the last one closes an evicted view.
func (c *pastCache) release(e *pastEntry) {
	c.mu.Lock()
	e.refs--
	if e.refs == 0 {
		c.freedLocked()
	}
	var done []*pastEntry
	if e.refs == 0 && e.evicted && e.st != nil {
		done = append(done, e)
	}
	c.mu.Unlock()
	c.closeEntries(done)
}

// evictLocked removes least recently used built views until at most max
// are cached and returns those nobody reads (the caller closes them
// outside the lock); busy ones are marked to close at their last release.
func (c *pastCache) evictLocked(max int) []*pastEntry {
	var idle []*pastEntry
	for {
		built := 0
		var lru *pastEntry
		for _, e := range c.entries {
			if e.st == nil {
				continue // building (or failed): not a view yet
			}
			built++
			if lru == nil || e.used < lru.used {
				lru = e
			}
		}
		if built <= max {
			return idle
		}
		delete(c.entries, lru.seq)
		lru.evicted = true
		if lru.refs == 0 {
			idle = append(idle, lru)
		}
	}
}

// closeEntries closes the views of entries and counts them closed.
func (c *pastCache) closeEntries(es []*pastEntry) {
	if len(es) == 0 {
		return
	}
	closePast(es)
	c.mu.Lock()
	c.open -= len(es)
	c.freedLocked()
	c.mu.Unlock()
}

// closePast closes the views of es.
func closePast(es []*pastEntry) {
	for _, e := range es {
		e.st.closeShared()
	}
}

// closeShared closes a point-in-time State made by openPast: only its
// tailer is its own; the log and the search index are the parent's.
func (s *State) closeShared() {
	s.closeOnce.Do(func() {
		if s.tailer != nil {
			s.closeErr = s.tailer.Close()
		}
	})
}

// closeAll stops the builds in flight, waits for them, and closes every
// idle view; views in use close at their last release. Called by Close
// before the log closes.
func (c *pastCache) closeAll() {
	c.mu.Lock()
	c.closed = true
	c.freedLocked() // waiters for room learn the state is closed
	stop := c.stop
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	c.wg.Wait()
	c.mu.Lock()
	var idle []*pastEntry
	for seq, e := range c.entries {
		delete(c.entries, seq)
		e.evicted = true
		if e.refs == 0 && e.st != nil {
			idle = append(idle, e)
		}
	}
	c.mu.Unlock()
	c.closeEntries(idle)
}

// pastAlive bounds the views open or being built at once, cached or in
// use: twice the cache bound, so that a burst of calls at many points in
// time cannot hold more memory than that many copies of the projections.
func (s *State) pastAlive() int { return 2 * s.pastLimit() }

// pastLimit is the cache bound in views.
func (s *State) pastLimit() int {
	if s.opts.PastViews > 0 {
		return s.opts.PastViews
	}
	return DefaultPastViews
}

// pastEmptyUntil bounds a view at seq 0: every event carries a commit
// time after it, so none is applied and no snapshot qualifies.
var pastEmptyUntil = projections.Until{Time: time.Unix(0, 0).UTC()}

// openPast opens a frozen State at seq over s's log, as Open does with
// Options.At (`cos call --at`): the projections restored from the newest
// snapshot at or before seq and caught up to it. It shares s's log, search
// index, module gate and role registry, and closes none of them
// (closeShared).
func (s *State) openPast(ctx context.Context, seq uint64) (st *State, err error) {
	until := projections.Until{Seq: seq}
	if seq == 0 {
		until = pastEmptyUntil
	}
	opts := s.opts
	opts.At = &until
	opts.Logger = s.logger
	p := &State{opts: opts, log: sharedLog{s.log}, logLocation: s.logLocation, roles: s.roles,
		modules: s.modules, started: s.started, logger: s.logger, chainDone: make(chan struct{})}
	close(p.chainDone)
	defer func() {
		if err != nil {
			p.closeShared()
		}
	}()
	set := NewProjectionSet()
	p.graph, p.board, p.series, p.bundles = set.Graph, set.Board, set.Series, set.Bundles
	topts := projections.TailerOptions{StateDir: s.opts.Dir, Logger: s.logger, NoBackgroundSnapshots: true}
	if p.tailer, err = projections.OpenAt(ctx, p.log, set.List(), until, topts); err != nil {
		return nil, fmt.Errorf("open the state at seq %d: %w", seq, err)
	}
	if got := p.tailer.Position().Seq; got != seq {
		// The log ended early (truncated under us): not the state asked for.
		return nil, fmt.Errorf("open the state at seq %d: the log holds events up to seq %d only", seq, got)
	}
	// The live search index serves as the view's: the resolver confirms
	// every hit against the past graph, so an answer never names a node
	// the graph did not hold at seq. Indexing the past graph anew (what
	// `cos call --at` does) costs ~10 s per 100,000 nodes.
	p.index = s.index
	if p.resolver, err = search.NewResolver(p.graph, p.index, search.ResolverOptions{}); err != nil {
		return nil, err
	}
	return p, nil
}

// sharedLog is the parent's log as a point-in-time State holds it: Close
// is a no-op, since the parent owns it.
type sharedLog struct{ Log }

func (sharedLog) Close(context.Context) error { return nil }
