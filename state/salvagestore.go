package state

import (
	"context"
	"errors"
	"fmt"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
)

// SalvageStore is SalvageLog for a NATS store: it writes to dest (a new
// bbolt file; ErrDestExists when it exists) every event of the stream
// before its first message that does not verify — a message published
// there by something other than cos, or a changed one — and reports that
// message and every one after it as lost, each with its reason. Every
// append to a stream is conditional on the stream's last sequence, so
// cos's writers stop at the first bad message: no event of theirs follows
// it. The events keep their seqs, ids and hashes; request-id receipts are
// not copied. The stream is only read; `cos --store DEST migrate --to
// nats://…/NEW_STREAM` then copies the file into a new stream (a stream
// refuses deletes, so the bad message cannot be removed in place). dir is
// the state folder (only its path is used). Errors: ErrDestExists, ErrStore
// for an address that is not a NATS store, the log's errors, ctx's error.
func SalvageStore(ctx context.Context, dir string, st Store, dest string) (SalvageReport, error) {
	rep := SalvageReport{Source: st.String(), Dest: dest, Head: eventlog.Head{Hash: eventlog.ZeroHash}}
	if !st.IsNATS() {
		return rep, fmt.Errorf("%w: %s is not a NATS store", ErrStore, st)
	}
	l, err := OpenLog(ctx, dir, LogOptions{ReadOnly: true, Store: st.String()})
	if err != nil {
		return rep, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	ns, ok := l.(natsStore)
	if !ok {
		return rep, fmt.Errorf("%w: %s is not a NATS store", ErrStore, st)
	}
	last, err := ns.LastSeq(ctx)
	if err != nil {
		return rep, unavailable(err)
	}
	good, err := l.Verify(ctx)
	var ie *eventlog.IntegrityError
	switch {
	case errors.As(err, &ie):
		for seq := good + 1; seq <= last; seq++ {
			reason := ie.Reason
			if seq != ie.Seq {
				reason = fmt.Sprintf("after the first bad message (seq %d) of the stream", ie.Seq)
			}
			rep.Lost = append(rep.Lost, boltlog.LostEvent{Seq: seq, Reason: reason})
		}
	case err != nil:
		return rep, err
	default:
		last = max(last, good)
	}
	rep.Examined = max(last, good)
	head, err := boltlog.Import(ctx, dest, prefix{l, good}, nil)
	if err != nil {
		return rep, err
	}
	rep.Kept, rep.Head = head.Seq, head
	return rep, nil
}

// prefix reads the events of l up to seq last and stops there, before any
// message after it is decoded.
type prefix struct {
	l    Log
	last uint64
}

func (p prefix) Read(ctx context.Context, from uint64, fn func(eventlog.Event) error) error {
	if p.last == 0 {
		return nil
	}
	return p.l.Read(ctx, from, func(ev eventlog.Event) error {
		if err := fn(ev); err != nil {
			return err
		}
		if ev.Seq >= p.last {
			return eventlog.ErrStop
		}
		return nil
	})
}
