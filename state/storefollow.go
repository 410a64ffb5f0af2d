package state

import (
	"context"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// storeFollower is a log that can push its new events as they commit
// (*natslog.Log: an ordered consumer on the stream).
type storeFollower interface {
	Follow(ctx context.Context, fromSeq uint64, fn func(eventlog.Event) error) error
}

// followRetry is the wait before following the store again after the
// follow ended with an error (a lost connection, a leader change).
const followRetry = 500 * time.Millisecond

// followLagMax is the longest wait between two catch-ups while the log's
// reads lag behind an event its feed already delivered.
const followLagMax = 50 * time.Millisecond

// ringUntil rings the tailer for seq and, while the projections are still
// short of seq, catches up again after a growing pause. The feed can
// deliver an event a moment before the log's reads show it (a replica
// answered first): one ring would then leave it unapplied until the next
// event. It returns ctx's error, or the tailer's.
func (s *State) ringUntil(ctx context.Context, seq uint64) error {
	wait := time.Millisecond
	for {
		if s.tailer.Position().Seq >= seq {
			return nil
		}
		// Ring only once the log's head shows seq: a ring past the head
		// is ignored with a warning meant for forged bus messages.
		if h, err := s.log.Head(ctx); err == nil && h.Seq >= seq {
			if err := s.tailer.Ring(ctx, seq); err != nil {
				return err
			}
			if s.tailer.Position().Seq >= seq {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, followLagMax)
	}
}

// startStoreFollow wakes the tailer for every event another machine (or
// process) commits to a log that pushes them (storeFollower), as the bus
// doorbell does for a file log: each event is a doorbell naming its seq,
// and the tailer reads the events from the log. Reads do not depend on it
// — every read compares the position with the log's head first — but
// subscribers and the search index see other machines' commits as they
// happen instead of at the next read. It runs until Close; a follow that
// ends with an error starts again from the tailer's position.
func (s *State) startStoreFollow() {
	f, ok := s.log.(storeFollower)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.followStop = cancel
	s.followWG.Add(1)
	go func() {
		defer s.followWG.Done()
		for ctx.Err() == nil {
			from := s.tailer.Position().Seq + 1
			err := f.Follow(ctx, from, func(ev eventlog.Event) error {
				return s.ringUntil(ctx, ev.Seq)
			})
			if ctx.Err() != nil {
				return
			}
			s.logger.Warn("following the store's new events stopped; starting again", "from_seq", from, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(followRetry):
			}
		}
	}()
}
