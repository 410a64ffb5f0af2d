package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cos-dev/cos/bus"
	"github.com/cos-dev/cos/eventlog"
)

// openBus connects to NATS, publishes this process's commits and, when a
// message announces another's, catches up from the log; every (re)connect
// catches up from the log too.
func (s *State) openBus(ctx context.Context) error {
	b, err := bus.Open(ctx, bus.Options{
		Mode:      s.opts.NATS,
		StateDir:  s.opts.Dir,
		Namespace: s.opts.Namespace,
		Logger:    s.logger,
		Position:  func() uint64 { return s.tailer.Position().Seq },
		// This process's own commits reach its projections through
		// WaitFor or the next read's freshness check; its own doorbells
		// would only make it read the log a second time.
		NoEcho: true,
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
	// A message is a doorbell: only its seq is read, and the tailer takes
	// the events from the log. Its body is never applied, so anyone who can
	// publish on the bus cannot change what this process serves.
	if _, err := b.SubscribeSeqs(bus.EventsSubject(b.Namespace(), ">"), func(seq uint64) {
		if err := s.tailer.Ring(context.Background(), seq); err != nil {
			s.logger.Warn("catch up after a bus message", "seq", seq, "err", err)
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
// bus. Other cos processes use a message only as a doorbell (they read the
// event from the log); watchers such as `cos watch` see its body.
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
