package natslog

import (
	"context"
	"time"
)

// A writing handle that loses a round has to read what the other handles
// committed before it can decide again — with several handles writing,
// every event any of them commits. Reading that on demand (a consumer
// created per catch-up, or one message-get request per message) costs a
// request per message or per catch-up and, on a busy replicated stream, a
// consumer's first delivery can go missing for seconds while every
// appender of the handle waits. So a writing handle that has lost a round
// keeps one ordered consumer running from its head until it closes: the
// feed.
// Catch-up takes what the feed has already delivered, and falls back to
// message gets (and to the stream's state) only when the feed has not
// delivered what it needs within feedWait.

// feedBuffer is how many delivered messages the feed holds for the
// committer; a full buffer pauses the feed's reading, not the stream.
const feedBuffer = 1024

// feedWait is how long a catch-up waits for the feed to deliver the
// messages it knows are committed or proposed before it reads them with
// message gets.
const feedWait = 250 * time.Millisecond

// feedRetry is the pause before the feed's consumer is created again
// after it failed.
const feedRetry = 100 * time.Millisecond

// feed is a writing handle's running read of the stream; see above.
type feed struct {
	msgs   chan rawMsg
	cancel context.CancelFunc
	done   chan struct{}
	// held is a message taken from msgs beyond the model's next seq (the
	// model moved past a gap in what the feed delivered: cannot happen
	// while the feed reads in order, kept for safety); used under smu.
	held *rawMsg
}

// ensureFeed starts the feed from the model's next seq unless it runs or
// was stopped. Called under smu, by the committer after a lost round: a
// handle that never loses one (a one-shot process, a single writer) never
// creates the consumer.
func (l *Log) ensureFeed() {
	if l.feed != nil || l.feedStopped || l.stream == nil || l.opts.ReadOnly {
		return
	}
	s, from := l.stream, l.m.head.Seq+1
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{msgs: make(chan rawMsg, feedBuffer), cancel: cancel, done: make(chan struct{})}
	l.feed = f
	go func() {
		defer close(f.done)
		for ctx.Err() == nil {
			err := l.consume(ctx, s, from, 0, func(m rawMsg) (bool, error) {
				select {
				case f.msgs <- m:
					from = m.seq + 1
					return true, nil
				case <-ctx.Done():
					return false, ctx.Err()
				}
			})
			if ctx.Err() != nil {
				return
			}
			l.opts.Logger.Debug("eventlog: the writer's feed of the stream stopped; starting it again", "from_seq", from, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(feedRetry):
			}
		}
	}()
}

// stopFeed stops the feed, waits for it, and keeps it from starting
// again. Called by Close once the committer has stopped.
func (l *Log) stopFeed() {
	l.smu.Lock()
	f := l.feed
	l.feedStopped = true
	l.smu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

// drainFeed applies what the feed delivered, in order, until the model's
// head reaches target or nothing more arrives for wait. Messages at or
// before the head (this handle's own, applied at their acknowledgement)
// are dropped. It returns apply's error. Called under smu.
func (l *Log) drainFeed(target uint64, wait time.Duration, apply func(rawMsg) error) error {
	f := l.feed
	if f == nil || l.m.head.Seq >= target {
		return nil
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for l.m.head.Seq < target {
		var m rawMsg
		switch {
		case f.held != nil:
			m = *f.held
			f.held = nil
		default:
			select {
			case m = <-f.msgs:
			default:
				if timer == nil {
					timer = time.NewTimer(wait)
				}
				select {
				case m = <-f.msgs:
				case <-timer.C:
					return nil
				}
			}
		}
		switch next := l.m.head.Seq + 1; {
		case m.seq < next:
			continue
		case m.seq > next:
			f.held = &m
			return nil
		}
		if err := apply(m); err != nil {
			return err
		}
	}
	return nil
}
