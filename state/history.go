package state

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/history"
)

// History keeps a history.Index of one State's log: built from the log the
// first time it is asked for (so a process that never reads history pays
// nothing), then fed by the tailer as a follower, like the search index.
// It is safe for concurrent use.
type History struct {
	s *State
	// register registers the follower, outside mu (it takes the tailer's
	// applyMu, under which the follower takes mu).
	register sync.Once
	// mu guards the fields below; it is a leaf, never held while reading
	// the log or waiting.
	mu sync.Mutex
	// from is the position at registration: the log is read up to it, the
	// follower gives what follows.
	from uint64
	// filled says idx holds the log up to from; until then the
	// follower's batches wait in pending.
	filled  bool
	pending [][]eventlog.Event
	// filling is closed when the fill in progress ends (nil: none runs).
	filling chan struct{}
	idx     *history.Index
}

// NewHistory returns the history of s; nothing is read until Index.
func NewHistory(s *State) *History { return &History{s: s, idx: history.New()} }

// Index returns the index once it holds every event up to seq (the
// position of a view the caller read), building it from the log first
// when this is the first call. Call it outside any view: it reads the log
// and waits for the tailer's followers. Errors: the log's (ctx's, a
// storage error).
func (h *History) Index(ctx context.Context, seq uint64) (*history.Index, error) {
	h.register.Do(func() {
		from := h.s.tailer.OnApplied(h.follow).Seq
		h.mu.Lock()
		h.from = from
		h.mu.Unlock()
	})
	for {
		h.mu.Lock()
		if h.filled {
			h.mu.Unlock()
			break
		}
		if h.filling != nil {
			ch := h.filling
			h.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		h.filling = ch
		from := h.from
		h.mu.Unlock()
		err := h.fill(ctx, from)
		h.mu.Lock()
		h.filling = nil
		if err == nil {
			for _, evs := range h.pending {
				h.idx.Apply(evs)
			}
			h.pending = nil
			h.filled = true
		}
		h.mu.Unlock()
		close(ch)
		if err != nil {
			return nil, err
		}
	}
	if err := h.idx.WaitFor(ctx, seq); err != nil {
		return nil, err
	}
	return h.idx, nil
}

// fill reads the log from what the index holds up to seq upto.
func (h *History) fill(ctx context.Context, upto uint64) error {
	start := h.idx.Seq() + 1
	if start > upto {
		return nil
	}
	const chunk = 2048
	evs := make([]eventlog.Event, 0, chunk)
	err := h.s.log.Read(ctx, start, func(ev eventlog.Event) error {
		if ev.Seq > upto {
			return eventlog.ErrStop
		}
		evs = append(evs, ev)
		if len(evs) == chunk {
			h.idx.Apply(evs)
			evs = evs[:0]
		}
		return nil
	})
	var ie *eventlog.IntegrityError
	if errors.As(err, &ie) && ie.Seq > upto {
		// Damage past what the projections hold: they stop before it too.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("build the history index: %w", err)
	}
	h.idx.Apply(evs)
	return nil
}

// follow is the tailer follower: batches after the registration position,
// held back until the fill from the log is done.
func (h *History) follow(evs []eventlog.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.filled {
		h.pending = append(h.pending, slices.Clone(evs))
		return
	}
	h.idx.Apply(evs)
}
