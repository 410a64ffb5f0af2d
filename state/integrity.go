package state

import (
	"context"
	"errors"

	"github.com/cos-dev/cos/eventlog"
)

// Integrity is whether the log reads cleanly up to its head: OK, or the
// first seq whose record could not be read and how many events lie past
// it. While the log is damaged, reads answer from the state before
// FirstBadSeq (View.Pos) and writes are refused.
//
// It reflects what reading the log found (each record's version byte and
// checksum, consecutive seqs) and what the walk of the whole hash chain
// that Open starts in the background found (verifyChain): a break below
// the newest snapshot, which the projections never read again, is
// reported too. The earlier of the two is reported.
type Integrity struct {
	OK bool `json:"ok"`
	// FirstBadSeq is the first seq that could not be read (0 when OK, or
	// when the log's metadata is what is damaged).
	FirstBadSeq uint64 `json:"first_bad_seq,omitempty"`
	// EventsAfter is the number of events past FirstBadSeq (head seq −
	// FirstBadSeq); none of them, nor FirstBadSeq, is in the state read.
	EventsAfter uint64 `json:"events_after,omitempty"`
	// SeenSeq, when set, is the newest seq the state folder has seen of a
	// log that now holds less (LogSeenFile): it was deleted, replaced or
	// rebuilt empty, and writes are refused.
	SeenSeq uint64 `json:"seen_seq,omitempty"`
	// Problem says what is wrong, in words (empty when OK).
	Problem string `json:"problem,omitempty"`
}

// Integrity returns what the last catch-up from the log, and the walk of
// the hash chain since Open, found.
func (s *State) Integrity() Integrity {
	d, c := s.damage.Load(), s.chainDamage.Load()
	switch l := s.seen.lost.Load(); {
	case l != nil:
		return l.integrity
	case c != nil && (d == nil || c.integrity.FirstBadSeq < d.FirstBadSeq):
		return c.integrity
	case d != nil:
		return *d
	}
	return Integrity{OK: true}
}

// chainBreak is what verifyChain found: the log's error and the Integrity
// it means.
type chainBreak struct {
	err       *eventlog.IntegrityError
	integrity Integrity
}

// startChainCheck starts verifyChain in the background; Close stops it.
func (s *State) startChainCheck() {
	ctx, cancel := context.WithCancel(context.Background())
	s.chainStop = cancel
	s.chainWG.Add(1)
	go func() {
		defer s.chainWG.Done()
		defer close(s.chainDone)
		s.verifyChain(ctx)
	}()
}

// verifyChain walks the log's whole hash chain once (hashVerifier when
// the log is one, else Log.Verify) and records where it breaks. The
// projections are loaded from the newest snapshot and only the events
// after it are read, so without this walk a record damaged below the
// snapshot would never be noticed and writes would go on. It runs in the background so that
// start-up and reads do not wait; writes do (chainErr). A failure other
// than a broken chain (the log unreadable, Close) is logged and leaves
// writes to the log's own checks.
func (s *State) verifyChain(ctx context.Context) {
	verify := s.log.Verify
	if h, ok := s.log.(hashVerifier); ok {
		verify = h.VerifyHashes
	}
	_, err := verify(ctx)
	var ie *eventlog.IntegrityError
	switch {
	case err == nil:
	case errors.As(err, &ie):
		c := &chainBreak{err: ie, integrity: Integrity{FirstBadSeq: ie.Seq}}
		if h, herr := s.log.Head(ctx); herr == nil && h.Seq > ie.Seq {
			c.integrity.EventsAfter = h.Seq - ie.Seq
		}
		s.chainDamage.Store(c)
		s.logger.Error("the event log's hash chain is broken; writes are refused, reads answer (cos verify --salvage writes a copy of every event that still verifies)", "seq", ie.Seq, "err", err)
	case ctx.Err() == nil:
		s.logger.Warn("could not verify the event log's hash chain", "err", err)
	}
}

// hashVerifier is a log that can walk its hash chain without decoding
// every payload (boltlog.Log.VerifyHashes: the same chain, checksums and
// head as Verify, at a small part of its CPU). The background walk uses it
// when the log has it; `cos verify` keeps the full decode (Log.Verify).
type hashVerifier interface {
	VerifyHashes(ctx context.Context) (uint64, error)
}

// chainErr waits for verifyChain to finish (or ctx to end) and returns the
// break it found (with a NATS store, as natsIntegrity gives it), nil when
// none.
func (s *State) chainErr(ctx context.Context) error {
	select {
	case <-s.chainDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	if c := s.chainDamage.Load(); c != nil {
		if _, ok := s.log.(natsStore); ok {
			return natsIntegrity(c.err)
		}
		return c.err
	}
	return nil
}

// noteCatchUp records the outcome of bringing the projections up to the
// log head: a damaged record (eventlog.ErrIntegrity) marks the state
// damaged, a clean catch-up clears the mark. Any other error leaves it as
// it was. It returns err unchanged.
func (s *State) noteCatchUp(ctx context.Context, err error) error {
	var ie *eventlog.IntegrityError
	switch {
	case err == nil:
		s.damage.Store(nil)
	case errors.As(err, &ie):
		d := Integrity{FirstBadSeq: ie.Seq, Problem: ie.Reason}
		if h, herr := s.log.Head(ctx); herr == nil && h.Seq > ie.Seq {
			d.EventsAfter = h.Seq - ie.Seq
		}
		s.damage.Store(&d)
	}
	return err
}
