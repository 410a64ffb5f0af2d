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
// checksum, consecutive seqs); only `cos verify` walks the hash chain.
type Integrity struct {
	OK bool `json:"ok"`
	// FirstBadSeq is the first seq that could not be read (0 when OK, or
	// when the log's metadata is what is damaged).
	FirstBadSeq uint64 `json:"first_bad_seq,omitempty"`
	// EventsAfter is the number of events past FirstBadSeq (head seq −
	// FirstBadSeq); none of them, nor FirstBadSeq, is in the state read.
	EventsAfter uint64 `json:"events_after,omitempty"`
}

// Integrity returns what the last catch-up from the log found.
func (s *State) Integrity() Integrity {
	if p := s.damage.Load(); p != nil {
		return *p
	}
	return Integrity{OK: true}
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
		d := Integrity{FirstBadSeq: ie.Seq}
		if h, herr := s.log.Head(ctx); herr == nil && h.Seq > ie.Seq {
			d.EventsAfter = h.Seq - ie.Seq
		}
		s.damage.Store(&d)
	}
	return err
}
