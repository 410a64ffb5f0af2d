package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// SalvageReport is what Salvage kept and lost: the seqs examined, the
// events kept, every lost seq with its reason, and the new log's head.
type SalvageReport = boltlog.SalvageReport

// Salvage writes to dest (a new bbolt file; ErrDestExists when it exists)
// every event of the log at a that still verifies, and reports exactly
// which seqs were lost. The log is only read.
//
// From a file, every event that verifies on its own is kept, re-sequenced
// so the new chain verifies (boltlog.Log.Salvage).
//
// From a stream, the events before its first message that does not verify
// — a message published there by something other than cos, or a changed
// one — are kept, and that message and every one after it are reported
// lost, each with its reason: every append to a stream is conditional on
// the stream's last sequence, so cos's writers stop at the first bad
// message and no event of theirs follows it. The events keep their seqs,
// ids and hashes, and the request-id receipts whose events are all kept
// are copied with them. `cos --store DEST
// migrate --to nats://…/NEW_STREAM` then copies the file into a new stream
// (a stream refuses deletes, so the bad message cannot be removed in
// place).
//
// Errors: ErrDestExists, the log's storage errors (a stream's wrapping
// ErrUnavailable when its servers did not answer), ctx's error.
func Salvage(ctx context.Context, a Address, dest string) (SalvageReport, error) {
	if !a.IsNATS() {
		l, err := openFileReadOnly(ctx, a.Path)
		if err != nil {
			return SalvageReport{}, err
		}
		defer func() { _ = l.Close(context.Background()) }()
		return l.Salvage(ctx, dest)
	}
	rep := SalvageReport{Source: a.String(), Dest: dest, Head: eventlog.Head{Hash: eventlog.ZeroHash}}
	l, err := natslog.Open(ctx, a.URLs, natslog.Options{Stream: a.Stream, Replicas: a.Replicas(), ReadOnly: true})
	if err != nil {
		return rep, fmt.Errorf("open the log in %s: %w", a, err)
	}
	defer func() { _ = l.Close(context.Background()) }()
	last, err := l.LastSeq(ctx)
	if err != nil {
		return rep, err
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
	l    eventlog.Log
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

// Receipts lists the receipts of l (natslog.Log) whose events lie within
// the prefix.
func (p prefix) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	rl, ok := p.l.(eventlog.ReceiptLister)
	if !ok {
		return nil
	}
	return rl.Receipts(ctx, func(r eventlog.StoredReceipt) error {
		if r.Receipt.LastSeq > p.last {
			return nil
		}
		return fn(r)
	})
}
