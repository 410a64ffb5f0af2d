package tasks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// view is one claimer's private board kept current from the real log, as
// a separate process's tailer would.
type view struct {
	board *Board
	next  uint64
}

func (v *view) catchUp(ctx context.Context, l *boltlog.Log) error {
	return l.Read(ctx, v.next, func(ev eventlog.Event) error {
		v.next = ev.Seq + 1
		_ = v.board.Apply(ev)
		return nil
	})
}

// claim is the protocol of the package doc: check, append at the read
// revision, on STALE_REVISION catch up and check again.
func claim(ctx context.Context, l *boltlog.Log, v *view, id, assignee string) (won bool, err error) {
	for attempt := 0; attempt < 5; attempt++ {
		if err := v.catchUp(ctx, l); err != nil {
			return false, err
		}
		task, outcome, err := v.board.ClaimCheck(id, assignee)
		if err != nil {
			return false, err
		}
		if outcome == ClaimHeld {
			return false, nil
		}
		p, err := ClaimedPayload(assignee)
		if err != nil {
			return false, err
		}
		_, err = l.AppendOne(ctx, eventlog.AppendRequest{Stream: StreamOf(id), Events: []eventlog.Payload{p},
			Expect: eventlog.AtRevision(task.Revision), ExpectedHash: task.Hash})
		if errors.Is(err, eventlog.ErrStaleRevision) {
			continue
		}
		return err == nil, err
	}
	return false, fmt.Errorf("claim %s: too many stale revisions", id)
}

// TestClaim_ExactlyOneWinner runs the claim protocol of 8 claimers at once
// against the real log, round after round: exactly one appends, the others
// learn the winner's name.
func TestClaim_ExactlyOneWinner(t *testing.T) {
	ctx := context.Background()
	l := testutil.OpenLog(t, boltlog.Options{})
	const claimers, rounds = 8, 20
	views := make([]*view, claimers)
	for i := range views {
		views[i] = &view{board: NewBoard(), next: 1}
	}
	for round := 0; round < rounds; round++ {
		p, _ := CreatedPayload(Created{Title: fmt.Sprintf("round %d", round), Priority: DefaultPriority, Status: DefaultStatus})
		rec, err := l.AppendOne(ctx, eventlog.AppendRequest{StreamPrefix: StreamPrefix, Expect: eventlog.NoStream(), Events: []eventlog.Payload{p}})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := IDOfStream(rec.Stream)
		var wg sync.WaitGroup
		won := make([]bool, claimers)
		errs := make([]error, claimers)
		for i := range claimers {
			wg.Go(func() { won[i], errs[i] = claim(ctx, l, views[i], id, fmt.Sprintf("agent-%d", i)) })
		}
		wg.Wait()
		winner := -1
		for i := range claimers {
			if won[i] {
				if winner >= 0 {
					t.Fatalf("round %d: agent-%d and agent-%d both won", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won: %v", round, errs)
		}
		for i, err := range errs {
			var ce *ClaimedError
			switch {
			case i == winner && err != nil:
				t.Errorf("round %d: winner error %v", round, err)
			case i != winner && (!errors.As(err, &ce) || ce.Holder != fmt.Sprintf("agent-%d", winner)):
				t.Errorf("round %d: agent-%d got %v, want conflict naming agent-%d", round, i, err, winner)
			}
		}
		// Claiming what you hold is idempotent: no new event.
		head, _ := l.Head(ctx)
		if w, err := claim(ctx, l, views[winner], id, fmt.Sprintf("agent-%d", winner)); w || err != nil {
			t.Errorf("round %d: re-claim by the holder = %v, %v", round, w, err)
		}
		if again, _ := l.Head(ctx); again.Seq != head.Seq {
			t.Errorf("round %d: re-claim appended an event", round)
		}
	}
	// Every view converges on the same board.
	for _, v := range views {
		if err := v.catchUp(ctx, l); err != nil {
			t.Fatal(err)
		}
		if v.board.StateHash() != views[0].board.StateHash() {
			t.Fatal("views disagree on the state hash")
		}
	}
}
