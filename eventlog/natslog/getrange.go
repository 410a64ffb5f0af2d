package natslog

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// A short range of the stream — what a handle that lost a round to other
// handles has to read, typically the few batches they committed — is read
// with one message-get request per message, getWindow of them in flight at
// once, rather than through an ordered consumer: a consumer costs a create
// request, a delete and, on a busy replicated stream, a first delivery
// that can go missing for seconds (consumeStall), while every appender of
// the handle waits. A get is answered by the stream leader from what it
// has stored.

// getMsgRange is the longest range read with message gets (catch-up,
// Read, Head); a longer one is read through an ordered consumer.
const getMsgRange = 256

// getWindow is how many message gets are in flight at once.
const getWindow = 32

// notStoredError is getRange's answer when the stream leader does not
// hold the message at seq: missing from the stream when seq is at most
// the stream's last sequence, not stored yet (or never) when beyond it.
type notStoredError struct{ seq uint64 }

func (e *notStoredError) Error() string {
	return fmt.Sprintf("message %d is not stored", e.seq)
}

// getRange calls fn for every message from..to (inclusive), in order,
// reading them with message gets, getWindow at a time. A message the
// leader does not hold ends it with a *notStoredError naming its seq, after
// fn was called for every message before it. Other errors: as storageErr's
// and fn's.
func (l *Log) getRange(ctx context.Context, s jetstream.Stream, from, to uint64, fn func(rawMsg) error) error {
	for lo := from; lo <= to; lo += getWindow {
		hi := min(to, lo+getWindow-1)
		msgs := make([]*jetstream.RawStreamMsg, hi-lo+1)
		errs := make([]error, len(msgs))
		get := func(i int) {
			errs[i] = l.request(ctx, func(ctx context.Context) (err error) {
				msgs[i], err = s.GetMsg(ctx, lo+uint64(i))
				return err
			})
		}
		if len(msgs) == 1 {
			get(0)
		} else {
			var wg sync.WaitGroup
			for i := range msgs {
				wg.Go(func() { get(i) })
			}
			wg.Wait()
		}
		for i, m := range msgs {
			switch err := errs[i]; {
			case errors.Is(err, jetstream.ErrMsgNotFound):
				return &notStoredError{seq: lo + uint64(i)}
			case err != nil:
				return l.storageErr(ctx, "read", err)
			}
			if err := fn(rawMsg{m.Subject, m.Sequence, m.Header, m.Data}); err != nil {
				return err
			}
		}
		if hi == to {
			break // lo += getWindow would wrap at the top of uint64
		}
	}
	return nil
}
