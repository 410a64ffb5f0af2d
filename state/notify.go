package state

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
)

// Intervals of the change notifications (Subscribe, WatchModules).
const (
	// NotifyPollInterval is how often, while at least one Subscription is
	// open, the log's head is checked (one pread of the head file) so that
	// a commit by a process that rings no bus (`cos call`, `--nats off`)
	// reaches the subscribers within about this long.
	NotifyPollInterval = 10 * time.Millisecond
	// ModulePollInterval is how often, while a module watch is open, the
	// module file is read again.
	ModulePollInterval = 250 * time.Millisecond
	// MaxPendingEvents is how many applied events one subscriber may have
	// waiting before they are dropped and Changes.Lost is set instead.
	MaxPendingEvents = 10_000
)

// Changes is one delivery to a Subscription: the events the tailer applied
// since the previous delivery, in seq order.
type Changes struct {
	// Events are the committed events, shared with other subscribers:
	// read them, do not modify them.
	Events []eventlog.Event
	// Lost is true when the subscriber fell more than MaxPendingEvents
	// behind and events were dropped: treat everything as changed.
	Lost bool
}

// Subscription receives the events this process's projections apply —
// committed by this process or any other on the state folder — until
// Close. Its function runs on a goroutine of its own, never concurrently
// with itself, outside every lock of the state; it may call Read.
type Subscription struct {
	n  *notifier
	fn func(Changes)

	// mu guards pending, lost and closed.
	mu      sync.Mutex
	pending []eventlog.Event
	lost    bool
	closed  bool
	wake    chan struct{} // capacity 1: something is pending or closed
}

// ModuleWatch calls its function when the set of enabled modules changes,
// until Close.
type ModuleWatch struct {
	n  *notifier
	fn func(map[string]bool)
}

// notifier fans applied events out to subscriptions and polls the log head
// and the module file while anyone listens. Its goroutines are owned by
// its WaitGroup and stop on close (State.Close).
type notifier struct {
	s *State
	// mu guards everything below. It is a leaf: the tailer's follower takes
	// it under the tailer's applyMu, and nothing is called while it is held.
	mu      sync.Mutex
	subs    map[*Subscription]struct{}
	mods    map[*ModuleWatch]struct{}
	hooked  bool // the tailer follower is registered
	polling bool // the poll loop runs
	modules map[string]bool
	stop    context.CancelFunc
	ctx     context.Context
	closed  bool
	wg      sync.WaitGroup
}

// ErrClosed is returned by Subscribe and WatchModules on a closed State.
var ErrClosed = errors.New("state is closed")

func (s *State) notifierOf() *notifier {
	s.notifyOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		s.notify = &notifier{s: s, subs: map[*Subscription]struct{}{}, mods: map[*ModuleWatch]struct{}{}, ctx: ctx, stop: cancel}
	})
	return s.notify
}

// Subscribe calls fn with every batch of events the projections apply from
// now on — the events of this process's writes and, within about
// NotifyPollInterval (sooner with a bus), those of every other process on
// the state folder. fn runs on the subscription's own goroutine; batches
// that arrive while it runs are handed over together in the next call. A
// point-in-time State never advances, so fn is never called. It returns
// ErrClosed after Close.
func (s *State) Subscribe(fn func(Changes)) (*Subscription, error) {
	n := s.notifierOf()
	sub := &Subscription{n: n, fn: fn, wake: make(chan struct{}, 1)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	if !n.hooked {
		n.hooked = true
		s.tailer.OnApplied(n.applied)
	}
	n.subs[sub] = struct{}{}
	n.wg.Go(sub.run)
	n.startPollLocked()
	return sub, nil
}

// Close ends the subscription: fn is not called again once a call in
// progress returns. It is idempotent and does not wait (so fn may call it).
func (sub *Subscription) Close() {
	n := sub.n
	n.mu.Lock()
	delete(n.subs, sub)
	n.mu.Unlock()
	sub.mu.Lock()
	sub.closed = true
	sub.pending = nil
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// run delivers pending events until the subscription or the state closes.
func (sub *Subscription) run() {
	for {
		select {
		case <-sub.wake:
		case <-sub.n.ctx.Done():
			return
		}
		sub.mu.Lock()
		ch := Changes{Events: sub.pending, Lost: sub.lost}
		closed := sub.closed
		sub.pending, sub.lost = nil, false
		sub.mu.Unlock()
		if closed {
			return
		}
		if len(ch.Events) > 0 || ch.Lost {
			sub.fn(ch)
		}
	}
}

// applied is the tailer follower: it queues evs for every subscription.
// It runs under the tailer's applyMu and only takes leaf locks.
func (n *notifier) applied(evs []eventlog.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sub := range n.subs {
		sub.mu.Lock()
		if !sub.closed {
			switch {
			case sub.lost:
			case len(sub.pending)+len(evs) > MaxPendingEvents:
				sub.pending, sub.lost = nil, true
			default:
				sub.pending = append(sub.pending, evs...)
			}
		}
		sub.mu.Unlock()
		select {
		case sub.wake <- struct{}{}:
		default:
		}
	}
}

// WatchModules calls fn with every module and whether it is on (as
// ModuleEnabled says) each time that changes — within about
// ModulePollInterval of `cos module enable|disable` in any process. It does
// not call fn for the state at the time of the call (ModuleStates). It
// returns ErrClosed after Close.
func (s *State) WatchModules(fn func(map[string]bool)) (*ModuleWatch, error) {
	n := s.notifierOf()
	w := &ModuleWatch{n: n, fn: fn}
	cur := s.ModuleStates()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ErrClosed
	}
	if len(n.mods) == 0 || n.modules == nil {
		n.modules = cur
	}
	n.mods[w] = struct{}{}
	n.startPollLocked()
	return w, nil
}

// Close ends the watch. It is idempotent and does not wait.
func (w *ModuleWatch) Close() {
	w.n.mu.Lock()
	delete(w.n.mods, w)
	w.n.mu.Unlock()
}

// ModuleStates returns every module of Modules and whether it is on. An
// unreadable module file leaves every module on (as ModuleEnabled does).
func (s *State) ModuleStates() map[string]bool {
	out := make(map[string]bool, len(Modules))
	st, err := readModuleState(filepath.Join(s.opts.Dir, ModulesFile))
	for _, m := range Modules {
		on, listed := st.Modules[m]
		out[m] = err != nil || !listed || on
	}
	return out
}

// startPollLocked starts the poll loop unless it runs. Called with n.mu held.
func (n *notifier) startPollLocked() {
	if n.polling || n.closed {
		return
	}
	n.polling = true
	n.wg.Go(n.poll)
}

// poll checks the log head every NotifyPollInterval while a subscription
// is open and the module file every ModulePollInterval while a module watch
// is; it ends when neither is left, or on close.
func (n *notifier) poll() {
	tick := time.NewTicker(NotifyPollInterval)
	defer tick.Stop()
	var lastModules time.Time
	var lastWarn time.Time
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-tick.C:
		}
		n.mu.Lock()
		subs, mods := len(n.subs), len(n.mods)
		if subs == 0 && mods == 0 {
			n.polling = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		if subs > 0 {
			if err := n.s.tailer.Fresh(n.ctx); err != nil && !errors.Is(err, projections.ErrClosed) && n.ctx.Err() == nil &&
				time.Since(lastWarn) > time.Minute {
				lastWarn = time.Now()
				n.s.logger.Warn("change notifications: catching up with the log failed; retrying", "err", err)
			}
		}
		if mods > 0 && time.Since(lastModules) >= ModulePollInterval {
			lastModules = time.Now()
			n.checkModules()
		}
	}
}

// checkModules calls the module watches when the module states changed.
func (n *notifier) checkModules() {
	cur := n.s.ModuleStates()
	n.mu.Lock()
	if maps.Equal(cur, n.modules) {
		n.mu.Unlock()
		return
	}
	n.modules = cur
	watches := make([]*ModuleWatch, 0, len(n.mods))
	for w := range n.mods {
		watches = append(watches, w)
	}
	n.mu.Unlock()
	for _, w := range watches {
		w.fn(maps.Clone(cur))
	}
}

// close stops the poll loop and every subscription's goroutine and waits
// for them. Called by State.Close before the tailer closes.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.stop()
	n.wg.Wait()
}
