package state

import (
	"context"
	"errors"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/projections/metrics"
	"github.com/cos-dev/cos/projections/tasks"
	"github.com/cos-dev/cos/search"
)

// View is what a read sees: the projections at one log position, and the
// resolver and search index over them. It is valid only inside the
// function Read or View hands it to, which holds the tailer's read lock:
// keep nothing of it past that function, and call neither Read, View,
// WaitFor nor Append from inside it.
type View struct {
	// Pos is the log position the projections reflect (an answer's
	// meta.log_seq).
	Pos     projections.Position
	Graph   *projections.Graph
	Board   *tasks.Board
	Series  *metrics.Series
	Bundles *evidence.Bundles
	// Resolver resolves a uid, path or name against Graph.
	Resolver *search.Resolver
	// Search is this process's search index (nil never: a point-in-time
	// view has a temporary one).
	Search *search.Index
	// Integrity says whether the log read cleanly up to its head; when it
	// did not, Pos is the state before the first damaged record.
	Integrity Integrity
	s         *State
}

// StateHash returns the combined state hash of the projections at Pos, as
// lowercase hex (the same value as projections.Tailer.StateHash).
func (v View) StateHash() string { return v.s.stateHashInView() }

// Read brings the projections up to the log head — so that fn sees every
// event committed, by any process, before Read was called — and runs fn
// inside a view of them.
//
// A damaged log (eventlog.ErrIntegrity) does not stop a read: fn sees the
// state before the damage and Read returns nil after logging it. Other
// errors (the log unreadable, ctx.Err()) are returned and fn is not run.
func (s *State) Read(ctx context.Context, fn func(View)) error {
	if err := s.noteCatchUp(ctx, s.tailer.Fresh(ctx)); err != nil {
		if !errors.Is(err, eventlog.ErrIntegrity) && !s.noteMissing(err) {
			return err
		}
		s.logger.Warn("answering from the state before a damaged or missing log", "err", err)
	}
	s.View(fn)
	return nil
}

// ReadStrict is Read that returns eventlog.ErrIntegrity instead of
// answering from the state before a damaged record: write tools use it
// for the reads that precede their append.
func (s *State) ReadStrict(ctx context.Context, fn func(View)) error {
	if err := s.lostErr(); err != nil {
		return err
	}
	if err := s.chainErr(ctx); err != nil {
		return err
	}
	if err := s.noteCatchUp(ctx, s.tailer.Fresh(ctx)); err != nil {
		return err
	}
	s.View(fn)
	return nil
}

// View runs fn inside a view of the projections as they are now, without
// catching up with the log first (see Read and WaitFor).
func (s *State) View(fn func(View)) {
	s.tailer.View(func(pos projections.Position) {
		fn(View{Pos: pos, Graph: s.graph, Board: s.board, Series: s.series, Bundles: s.bundles,
			Resolver: s.resolver, Search: s.index, Integrity: s.Integrity(), s: s})
	})
}

// Position returns the log position the projections reflect now.
func (s *State) Position() projections.Position { return s.tailer.Position() }

// WaitFor returns once the projections include seq (catching up from the
// log), or ctx's error.
func (s *State) WaitFor(ctx context.Context, seq uint64) error {
	for s.tailer.Position().Seq < seq {
		if _, err := s.tailer.CatchUp(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Append appends requests to the log, recording on each that names no
// client the Caller ctx carries (WithCaller), else this state's client,
// and returns the receipts or the first error (a request's own error —
// stale revision, request reuse — or the log's).
// A point-in-time state returns ErrReadOnly. While the hash chain has not
// been verified since Open (verifyChain), Append waits for it; a log whose
// chain is broken anywhere — even below the newest snapshot, which the
// projections were loaded from — refuses every write with an
// *eventlog.IntegrityError naming the first bad seq.
func (s *State) Append(ctx context.Context, reqs ...eventlog.AppendRequest) ([]eventlog.Receipt, error) {
	if s.ReadOnly() {
		return nil, ErrReadOnly
	}
	if err := s.lostErr(); err != nil {
		return nil, err
	}
	if err := s.chainErr(ctx); err != nil {
		return nil, err
	}
	for i := range reqs {
		if reqs[i].Client == "" {
			reqs[i].Client = clientOf(ctx, s.opts.Client)
		}
	}
	res, err := s.log.Append(ctx, reqs...)
	if err != nil {
		return nil, err
	}
	out := make([]eventlog.Receipt, len(res))
	for i, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		out[i] = r.Receipt
	}
	s.markSeen(newestOf(out))
	return out, nil
}

// newestOf returns the newest log position rs committed (the last event of
// the receipt with the highest LastSeq), the zero Head when none.
func newestOf(rs []eventlog.Receipt) eventlog.Head {
	var h eventlog.Head
	for _, r := range rs {
		if r.LastSeq > h.Seq && len(r.Hashes) > 0 {
			h = eventlog.Head{Seq: r.LastSeq, Hash: r.Hashes[len(r.Hashes)-1]}
		}
	}
	return h
}

// LookupReceipt returns the receipt the log keeps for requestID, if any.
func (s *State) LookupReceipt(ctx context.Context, requestID string) (eventlog.Receipt, bool, error) {
	return s.log.LookupReceipt(ctx, requestID)
}
