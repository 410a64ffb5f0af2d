package state

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// collector gathers what a Subscription delivers.
type collector struct {
	mu   sync.Mutex
	seqs []uint64
	lost int
	got  chan struct{}
}

func newCollector() *collector { return &collector{got: make(chan struct{}, 1)} }

func (c *collector) fn(ch Changes) {
	c.mu.Lock()
	for _, ev := range ch.Events {
		c.seqs = append(c.seqs, ev.Seq)
	}
	if ch.Lost {
		c.lost++
	}
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default:
	}
}

// waitSeq waits until the collector has seen seq.
func (c *collector) waitSeq(tb testing.TB, seq uint64) {
	tb.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		n := len(c.seqs)
		last := uint64(0)
		if n > 0 {
			last = c.seqs[n-1]
		}
		c.mu.Unlock()
		if last >= seq {
			return
		}
		select {
		case <-c.got:
		case <-deadline:
			tb.Fatalf("seq %d never delivered (last %d)", seq, last)
		}
	}
}

// A commit through another handle on the folder (another process's log,
// no bus) reaches a subscriber without any read on the subscriber's side,
// and every event arrives once, in order.
func TestSubscribe_SeesCommitsOfAnotherHandle(t *testing.T) {
	dir := t.TempDir()
	a := openState(t, dir, nil)
	b := openState(t, dir, nil)
	c := newCollector()
	sub, err := a.Subscribe(c.fn)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var last uint64
	start := time.Now()
	for i := range 20 {
		last = upsert(t, b, "code:function:a.go::f"+string(rune('a'+i)))
	}
	c.waitSeq(t, last)
	t.Logf("20 commits by another handle delivered in %v", time.Since(start))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, seq := range c.seqs {
		if seq != uint64(i+1) {
			t.Fatalf("delivered seqs %v, want 1..%d once each in order", c.seqs, last)
		}
	}
}

// Close stops deliveries; a closed State refuses new subscriptions.
func TestSubscribe_CloseStopsDeliveries(t *testing.T) {
	dir := t.TempDir()
	a := openState(t, dir, nil)
	c := newCollector()
	sub, err := a.Subscribe(c.fn)
	if err != nil {
		t.Fatal(err)
	}
	c.waitSeq(t, upsert(t, a, "code:function:a.go::x"))
	sub.Close()
	sub.Close() // idempotent
	upsert(t, a, "code:function:a.go::y")
	time.Sleep(50 * time.Millisecond)
	c.mu.Lock()
	if len(c.seqs) != 1 {
		t.Errorf("delivered %v after Close, want only seq 1", c.seqs)
	}
	c.mu.Unlock()

	s, err := Open(t.Context(), Options{Dir: t.TempDir(), NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Subscribe(c.fn); err != ErrClosed {
		t.Errorf("Subscribe after Close = %v, want ErrClosed", err)
	}
	if _, err := s.WatchModules(func(map[string]bool) {}); err != ErrClosed {
		t.Errorf("WatchModules after Close = %v, want ErrClosed", err)
	}
}

// A subscriber that falls more than MaxPendingEvents behind gets Lost once
// instead of an unbounded queue.
func TestSubscribe_SlowSubscriberGetsLost(t *testing.T) {
	a := openState(t, "", nil)
	release := make(chan struct{})
	c := newCollector()
	first := true
	sub, err := a.Subscribe(func(ch Changes) {
		if first {
			first = false
			<-release
		}
		c.fn(ch)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	upsert(t, a, "code:function:a.go::first")
	time.Sleep(30 * time.Millisecond) // the subscriber is now blocked in its first call
	n := a.notifierOf()
	batch := make([]eventlog.Event, MaxPendingEvents/2+1)
	n.applied(batch)
	n.applied(batch) // over the limit: dropped, Lost set
	close(release)
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		lost := c.lost
		c.mu.Unlock()
		if lost == 1 {
			break
		}
		select {
		case <-c.got:
		case <-deadline:
			t.Fatal("Lost never delivered")
		}
	}
}

// A module switched in the folder (as `cos module disable` in another
// process does) reaches WatchModules.
func TestWatchModules_SeesASwitch(t *testing.T) {
	dir := t.TempDir()
	a := openState(t, dir, nil)
	got := make(chan map[string]bool, 4)
	w, err := a.WatchModules(func(m map[string]bool) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := SetModule(dir, "tasks", false); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m["tasks"] || !m["graph"] {
			t.Errorf("modules after disabling tasks: %v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no module change seen")
	}
	// An unreadable file leaves every module on (ModuleEnabled's rule).
	if err := os.WriteFile(filepath.Join(dir, ModulesFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if !m["tasks"] {
			t.Errorf("modules with a broken file: %v, want every module on", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no module change seen after the file broke")
	}
}
