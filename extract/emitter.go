package extract

import (
	"sync/atomic"
	"time"

	"github.com/cos-dev/cos/graph"
)

// emitter hands the batches of the emit phase to Run's EmitFunc on a
// goroutine of its own, one call at a time and in order, so that resolving
// the files of the next batch overlaps with appending this one. At most one
// batch waits while another is in emit.
type emitter struct {
	r  *runner
	em *emitState
	// keeping is set when the run was cancelled while Go packages were
	// checked: the batches of the files finished are emitted although the
	// context has ended (keepFinished).
	keeping bool
	ch      chan []graph.FileExtracted
	done    chan struct{}
	failed  atomic.Bool
	// err is the first failure: emit's error (wrapping ErrEmit) or the
	// context's. Read after close.
	err error
	// wait is how long the producer was blocked handing batches over or
	// waiting for the last ones, for Stats.Phases.
	wait time.Duration
}

func (r *runner) startEmitter(em *emitState, keeping bool) *emitter {
	e := &emitter{r: r, em: em, keeping: keeping, ch: make(chan []graph.FileExtracted, 1), done: make(chan struct{})}
	go e.loop()
	return e
}

// loop emits the batches put until close. Once one fails, the rest are
// dropped; a batch put after the context ended is not emitted (unless
// keeping). A batch emit accepts marks its files committed in em.
func (e *emitter) loop() {
	defer close(e.done)
	for b := range e.ch {
		if e.err != nil {
			continue
		}
		err := e.r.ctx.Err()
		if e.keeping {
			err = nil
		}
		if err == nil {
			err = e.r.send(b, nil)
		}
		if err != nil {
			e.err = err
			e.failed.Store(true)
			continue
		}
		for _, pl := range b {
			e.em.committed[pl.Path] = true
		}
	}
}

// put queues batch for emit. It returns false, queuing nothing, once an
// earlier batch failed: the producer stops and calls close.
func (e *emitter) put(batch []graph.FileExtracted) bool {
	if e.failed.Load() {
		return false
	}
	start := time.Now()
	e.ch <- batch
	e.wait += time.Since(start)
	return true
}

// close waits until every batch put is emitted or dropped and returns the
// first failure, nil when there was none. em is only read after close.
func (e *emitter) close() error {
	start := time.Now()
	close(e.ch)
	<-e.done
	e.wait += time.Since(start)
	return e.err
}
