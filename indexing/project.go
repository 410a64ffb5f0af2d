package indexing

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cos-dev/cos/state"
)

// projector brings the state's projections (the graph, the search index
// that follows it, the others) up to the log on a goroutine of its own
// while a run appends, so that projecting overlaps extracting and
// resolving instead of starting after the last append (the snapshot at
// the run's end then finds them nearly caught up). It only reads the log:
// a catch-up that fails is retried by the next kick, and the run's end
// (snapshotRun, WaitFor) reports a failure that remains.
type projector struct {
	st   *state.State
	ctx  context.Context
	kick chan struct{}
	// seq is the last seq appended (appended), what the next catch-up
	// reaches at least.
	seq  atomic.Uint64
	wg   sync.WaitGroup
	once sync.Once
}

// startProjector starts following st's log; stop ends it.
func startProjector(ctx context.Context, st *state.State) *projector {
	p := &projector{st: st, ctx: ctx, kick: make(chan struct{}, 1)}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *projector) loop() {
	defer p.wg.Done()
	for range p.kick {
		if p.ctx.Err() != nil {
			continue // drained until stop
		}
		_ = p.st.WaitFor(p.ctx, p.seq.Load())
	}
}

// appended tells the projector that the log holds seq: it catches up
// when it is idle, else after the catch-up under way (kicks coalesce).
func (p *projector) appended(seq uint64) {
	if p == nil {
		return
	}
	if seq > p.seq.Load() {
		p.seq.Store(seq)
	}
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// stop waits for the catch-up under way, if any, and ends the goroutine.
// It is idempotent.
func (p *projector) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.kick)
		p.wg.Wait()
	})
}
