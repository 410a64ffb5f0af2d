package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
)

// openBus connects to NATS, publishes this process's commits and applies
// the others' as they arrive; every (re)connect catches up from the log.
func (s *State) openBus(ctx context.Context) error {
	b, err := bus.Open(ctx, bus.Options{
		Mode:      s.opts.NATS,
		StateDir:  s.opts.Dir,
		Namespace: s.opts.Namespace,
		Logger:    s.logger,
		Position:  func() uint64 { return s.tailer.Position().Seq },
	})
	if errors.Is(err, bus.ErrUnavailable) && s.opts.NATS == bus.ModeAuto {
		// The log is the truth and reads check it for freshness: without a
		// bus, other processes' writes still show up on the next call.
		s.logger.Warn("NATS unavailable; running without a bus (reads still see every commit through the log)", "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	s.bus = b
	if _, err := b.Subscribe(bus.EventsSubject(b.Namespace(), ">"), func(ev eventlog.Event) {
		if err := s.tailer.Offer(context.Background(), ev); err != nil {
			s.logger.Warn("apply event from the bus", "seq", ev.Seq, "err", err)
		}
	}); err != nil {
		return fmt.Errorf("bus subscribe: %w", err)
	}
	b.OnReconnect(func() {
		if _, err := s.tailer.CatchUp(context.Background()); err != nil {
			s.logger.Warn("catch up after reconnect", "err", err)
		}
	})
	return nil
}

// publish is the log's OnCommit hook: it sends each committed event to the
// bus (a doorbell and a carrier; the log stays the truth).
func (s *State) publish(evs []eventlog.Event) {
	b := s.bus
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, ev := range evs {
		if err := b.Publish(ctx, ev); err != nil {
			s.logger.Debug("publish event", "seq", ev.Seq, "err", err)
			return
		}
	}
}
