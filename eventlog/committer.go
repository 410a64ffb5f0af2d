package eventlog

import (
	"context"
	"runtime"
	"sync"
)

// Queued is what a Committer queues: one Append call, its Handoff
// embedded (Take claims it for the committer).
type Queued interface {
	Take() bool
}

// CommitterOptions configure NewCommitter.
type CommitterOptions[P Queued] struct {
	// Commit commits one batch of calls (in queue order, every one taken)
	// and settles each (Handoff.Settle). Required. It runs on the
	// committer goroutine only, one batch at a time.
	Commit func(batch []P)
	// Weigh, when set, returns the requests and bytes of a call, and a
	// batch then holds at most MaxRequests requests and MaxBytes bytes
	// (but always at least one call). Nil: a batch takes every call
	// queued.
	Weigh func(P) (requests, bytes int)
	// MaxRequests and MaxBytes bound a batch when Weigh is set.
	MaxRequests, MaxBytes int
	// Stopped, when set, runs on the committer goroutine once it has
	// committed the last batch after Close, before Close returns.
	Stopped func()
}

// Committer is a log's group committer (boltlog and natslog each run
// one): Append calls queue their Handoff, and one goroutine takes the
// calls queued in batches — yielding first so that the callers the last
// commit released can queue their next call into the same batch — and
// hands each batch to Commit, until Close. Its methods are safe for
// concurrent use.
type Committer[P Queued] struct {
	o CommitterOptions[P]

	// mu guards queue and closed. Commit runs without it.
	mu     sync.Mutex
	queue  []P
	closed bool

	wake chan struct{} // capacity 1: there is work, or Close began
	done chan struct{} // closed when the committer goroutine has exited
}

// NewCommitter starts the committer goroutine of o.Commit. Close stops it.
func NewCommitter[P Queued](o CommitterOptions[P]) *Committer[P] {
	c := &Committer[P]{o: o, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go c.run()
	return c
}

// Queue queues call p for the committer; ErrClosed, queuing nothing, once
// Close has begun. The caller then waits on p's Handoff.
func (c *Committer[P]) Queue(p P) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.queue = append(c.queue, p)
	c.mu.Unlock()
	c.signal()
	return nil
}

func (c *Committer[P]) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Close stops accepting calls (Queue then returns ErrClosed), and waits
// until the calls already queued are committed and the goroutine (with
// Stopped) has exited. It is idempotent and safe to call from several
// goroutines. When ctx ends first it returns ctx's error; the committer
// still finishes the queue on its own, and a later Close waits again.
func (c *Committer[P]) Close(ctx context.Context) error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if !already {
		c.signal()
	}
	select {
	case <-c.done:
		return nil
	default:
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run drains the queue in batches until Close.
func (c *Committer[P]) run() {
	defer close(c.done)
	if c.o.Stopped != nil {
		defer c.o.Stopped()
	}
	for {
		<-c.wake
		for {
			// Let the callers the last commit released queue their next
			// call first, so group commit takes them in one batch.
			runtime.Gosched()
			batch := c.take()
			if len(batch) == 0 {
				break
			}
			c.o.Commit(batch)
		}
		c.mu.Lock()
		stop := c.closed && len(c.queue) == 0
		c.mu.Unlock()
		if stop {
			return
		}
	}
}

// take removes from the queue the calls of the next batch, skipping those
// whose callers withdrew them.
func (c *Committer[P]) take() []P {
	c.mu.Lock()
	defer c.mu.Unlock()
	var batch []P
	n, size, i := 0, 0, 0
	for ; i < len(c.queue); i++ {
		p := c.queue[i]
		var reqs, bytes int
		if c.o.Weigh != nil {
			reqs, bytes = c.o.Weigh(p)
			if len(batch) > 0 && (n+reqs > c.o.MaxRequests || size+bytes > c.o.MaxBytes) {
				break
			}
		}
		if !p.Take() {
			continue // its caller gave up before we took it
		}
		batch = append(batch, p)
		n += reqs
		size += bytes
	}
	rest := copy(c.queue, c.queue[i:])
	clear(c.queue[rest:])
	c.queue = c.queue[:rest]
	return batch
}
